#pragma once
// ffmpeg's v360 filter as the reference the projections are compared with (CPU and GPU tests).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "stitch/projection_images.hpp"
#include "support/test_data.hpp"

namespace gp::stitch::test {

inline bool have_ffmpeg() { return std::system("ffmpeg -hide_banner -version > /dev/null 2>&1") == 0; }

// Runs `ffmpeg -vf <filter>` on an RGB image, returns its rgb24 output of w x h.
inline HostImage ffmpeg_v360(const HostImage& src, const std::string& filter, int w, int h) {
  const auto dir = gp::test::scratch_dir("v360");
  {
    std::ofstream ppm(dir / "in.ppm", std::ios::binary);
    ppm << "P6\n" << src.view.width << " " << src.view.height << "\n255\n";
    for (int y = 0; y < src.view.height; ++y)
      ppm.write(reinterpret_cast<const char*>(src.px(0, y)), std::streamsize(src.view.width) * 3);
  }
  const std::string cmd = "ffmpeg -v error -y -i '" + (dir / "in.ppm").string() + "' -vf '" + filter +
                          "' -f rawvideo -pix_fmt rgb24 '" + (dir / "out.rgb").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream raw(dir / "out.rgb", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == std::size_t(w) * h * 3);
  HostImage out(w, h, 3);
  std::copy(bytes.begin(), bytes.end(), out.pixels.begin());
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace gp::stitch::test
