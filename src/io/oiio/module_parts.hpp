#pragma once
// What the OpenImageIO module's files implement; module.cpp hands them out as an OiioModule.
#include <memory>
#include <string>
#include <vector>

#include "io/image_io.hpp"
#include "io/oiio_module.hpp"

namespace gp::io::oiio {

std::unique_ptr<ImageSource> open_source(const std::string& path);                                  // source.cpp
void write_image(const std::string& path, const ImageView& image, const WriteOptions& options);      // writer.cpp
void write_mip_image(const std::string& path, const std::vector<ImageView>& levels, const WriteOptions& options);
bool can_write_extension(const std::string& extension);  // lowercase, with its dot
std::unique_ptr<FloatImage> open_float_image(const std::string& path, int subimage, int miplevel);  // float_image.cpp
std::unique_ptr<GreyPages> open_grey_pages(const std::string& path);                               // grey_pages.cpp

}  // namespace gp::io::oiio
