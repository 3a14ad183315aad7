// Cubemap layouts as v360 writes them: the six faces (order r l u d f b) as sub-views of one image.
#include <string>

#include "core/error.hpp"
#include "cuda/stitch/project.hpp"

namespace gp::stitch {
namespace {

// Face columns x rows of a layout, and where face f sits.
void layout_grid(CubeLayout layout, int& columns, int& rows) {
  switch (layout) {
    case CubeLayout::c3x2: columns = 3; rows = 2; return;
    case CubeLayout::c6x1: columns = 6; rows = 1; return;
    case CubeLayout::c1x6: columns = 1; rows = 6; return;
  }
  throw Error("unknown cube layout");
}

void face_cell(CubeLayout layout, int face, int& column, int& row) {
  int columns, rows;
  layout_grid(layout, columns, rows);
  column = face % columns;
  row = face / columns;
}

}  // namespace

int cube_layout_width(CubeLayout layout, int face_size) {
  int columns, rows;
  layout_grid(layout, columns, rows);
  return columns * face_size;
}

int cube_layout_height(CubeLayout layout, int face_size) {
  int columns, rows;
  layout_grid(layout, columns, rows);
  return rows * face_size;
}

int cube_layout_face_size(CubeLayout layout, const ImageView& image) {
  int columns, rows;
  layout_grid(layout, columns, rows);
  const int n = image.width / columns;
  if (n <= 0 || image.width != n * columns || image.height != n * rows)
    throw Error("cube layout " + std::to_string(columns) + "x" + std::to_string(rows) + ": image " +
                std::to_string(image.width) + "x" + std::to_string(image.height) + " is not a whole number of square faces");
  return n;
}

ImageView cube_layout_face(const ImageView& image, CubeLayout layout, int face) {
  if (face < 0 || face >= cube_face_count) throw Error("cube_layout_face: face index must be 0..5");
  const int n = cube_layout_face_size(layout, image);
  int column, row;
  face_cell(layout, face, column, row);
  ImageView v = image;
  v.width = v.height = n;
  v.data = static_cast<char*>(image.data) + image.pitch * std::size_t(row) * std::size_t(n) +
           std::size_t(column) * std::size_t(n) * std::size_t(image.channels) * pixel_type_bytes(image.type);
  return v;
}

CubeFaces cube_layout_faces(const ImageView& image, CubeLayout layout) {
  CubeFaces faces;
  for (int f = 0; f < cube_face_count; ++f) faces[f] = cube_layout_face(image, layout, f);
  return faces;
}

}  // namespace gp::stitch
