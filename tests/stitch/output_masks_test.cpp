// Output masks: the nadir cap and a mask image land where the views look, each set is made once,
// the PNG bytes are a PNG of the mask, and applying masks blacks out exactly the dropped pixels.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "io/image_io.hpp"
#include "io/oiio_module.hpp"
#include "stitch/output_masks.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_settings.hpp"
#include "support/test_data.hpp"
#include "projection_images.hpp"

using gp::config::json;
using namespace gp::stitch;

namespace {

Settings settings_with(const json& overrides) {
  json user = {{"inputs", {"pano.jpg"}}, {"views", {{"width", 201}, {"height", 201}}}};
  user.merge_patch(overrides);
  return read_settings(schema().validate(user, "job.json"));
}

std::uint8_t at(const OutputMask& m, int x, int y) { return m.pixels[std::size_t(y) * m.width + x]; }

}  // namespace

TEST_CASE("panorama_mask: the nadir cap by row latitude, the image resampled nearest", "[stitch][mask]") {
  const auto cap = panorama_mask(gp::ImageView{}, 30, 36, 18);  // rows of 10 degrees
  CHECK(cap[std::size_t(14) * 36] == 255);  // centre latitude -55
  CHECK(cap[std::size_t(15) * 36] == 0);    // -65: within 30 degrees of the nadir
  CHECK(cap[std::size_t(17) * 36 + 35] == 0);

  std::vector<std::uint8_t> image = {255, 0, 255, 255};  // 2 x 2: top-right dropped
  const auto scaled = panorama_mask(gp::packed_view(image.data(), 2, 2, 1, gp::PixelType::u8), 0, 4, 4);
  CHECK(scaled == std::vector<std::uint8_t>{255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255});
}

TEST_CASE("output masks: a 30 degree nadir cap in the nadir view and none in the ring", "[stitch][mask]") {
  const Settings s = settings_with({{"views", {{"preset", "ring8+zenith+nadir"}}}, {"mask", {{"enabled", true}, {"nadir", 30}}}});
  OutputMasks masks(s);
  const auto plan = plan_outputs(s, gp::InputItem{"p.jpg", 0, ""}, 0, 0);
  const auto set = masks.masks_for(plan);
  REQUIRE(set->size() == 10);
  CHECK(masks.masks_for(plan) == set);  // made once

  for (int v = 0; v < 8; ++v) {  // the ring sees down to 45 degrees below the horizon: all kept
    const OutputMask& m = (*set)[v];
    CHECK(std::count(m.pixels.begin(), m.pixels.end(), 0) == 0);
  }
  const OutputMask& zenith = (*set)[8];
  CHECK(std::count(zenith.pixels.begin(), zenith.pixels.end(), 0) == 0);
  // Nadir view, 90 degrees across 201 pixels: focal 100 px; the cap's edge is 30 degrees from
  // the centre, tan(30) * 100 = 57.7 px.
  const OutputMask& nadir = (*set)[9];
  REQUIRE(plan[9].label == "nadir");
  CHECK(at(nadir, 100, 100) == 0);
  CHECK(at(nadir, 100 + 55, 100) == 0);
  CHECK(at(nadir, 100, 100 - 55) == 0);
  CHECK(at(nadir, 100 + 61, 100) == 255);
  CHECK(at(nadir, 0, 0) == 255);
  const double dropped = double(std::count(nadir.pixels.begin(), nadir.pixels.end(), 0));
  CHECK(dropped == Approx(3.14159 * 57.7 * 57.7).epsilon(0.03));

  // The PNG bytes are that mask.
  const auto dir = gp::test::scratch_dir("masks");
  const std::string path = (dir / "nadir.png").string();
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(nadir.png.data()), std::streamsize(nadir.png.size()));
  }
  const auto back = gp::io::oiio_module().open_float_image(path);
  REQUIRE(back->width == 201);
  REQUIRE(back->channels == 1);
  std::vector<std::uint8_t> pixels;
  std::vector<float> row;
  for (int y = 0; y < back->height; ++y) {
    back->read_row(y, row);
    for (float v : row) pixels.push_back(std::uint8_t(std::lround(v * 255)));
  }
  CHECK(pixels == nadir.pixels);
}

TEST_CASE("output masks: a mask image drops what it paints black, in views and cube faces", "[stitch][mask]") {
  // 360 x 180: black around yaw 0 (the panorama's centre column), 20 degrees wide.
  const auto dir = gp::test::scratch_dir("mask-image");
  test::HostImage image(360, 180, 1);
  for (int y = 0; y < 180; ++y)
    for (int x = 0; x < 360; ++x) *image.px(x, y) = std::abs(x + 0.5 - 180) < 10 && std::abs(y + 0.5 - 90) < 10 ? 0 : 255;
  const std::string path = (dir / "tripod.png").string();
  gp::io::write_image(path, image.view, gp::io::WriteOptions{});

  const Settings views = settings_with({{"mask", {{"enabled", true}, {"image", path}}}});
  OutputMasks masks(views);
  const auto set = masks.masks_for(plan_outputs(views, gp::InputItem{"p.jpg", 0, ""}, 0, 0));
  const OutputMask& front = (*set)[0];  // yaw 0
  CHECK(at(front, 100, 100) == 0);
  CHECK(at(front, 100 + 15, 100) == 0);  // atan(15/100) = 8.5 degrees
  CHECK(at(front, 100 + 20, 100) == 255);  // 11.3 degrees
  const OutputMask& back = (*set)[4];   // yaw 180
  CHECK(std::count(back.pixels.begin(), back.pixels.end(), 0) == 0);

  const Settings cube = settings_with({{"mode", "cubemap"}, {"cubemap", {{"face_size", 64}}},
                                       {"mask", {{"enabled", true}, {"image", path}}}});
  OutputMasks cube_masks(cube);
  const auto faces = cube_masks.masks_for(plan_outputs(cube, gp::InputItem{"p.jpg", 0, ""}, 256, 128));
  REQUIRE(faces->size() == 6);
  CHECK(at((*faces)[4], 32, 32) == 0);  // front
  CHECK(std::count((*faces)[5].pixels.begin(), (*faces)[5].pixels.end(), 0) == 0);  // back

  CHECK_THROWS_AS(OutputMasks(settings_with({{"mask", {{"enabled", true}, {"image", (dir / "none.png").string()}}}})),
                  gp::UsageError);
}

TEST_CASE("applied masks black out exactly the dropped pixels", "[stitch][mask]") {
  const Settings s = settings_with({{"views", {{"preset", "ring8+zenith+nadir"}}},
                                    {"mask", {{"enabled", true}, {"nadir", 40}, {"apply", true}}}});
  OutputMasks masks(s);
  const auto plan = plan_outputs(s, gp::InputItem{"p.jpg", 0, ""}, 0, 0);
  const auto set = masks.masks_for(plan);
  const test::HostImage pano = test::textured_equirect(512, 256, 3, 1.0);
  const Projector projector(s);
  std::vector<OutputImage> plain, masked;
  for (const PlannedOutput& p : plan) {
    plain.push_back(OutputImage{p});
    masked.push_back(OutputImage{p});
  }
  std::vector<gp::ImageView> views;
  for (const OutputMask& m : *set) views.push_back(m.view());
  projector.run_cpu(pano.view, plain);
  projector.run_cpu(pano.view, masked, views);
  long dropped = 0;
  for (std::size_t v = 0; v < plan.size(); ++v)
    for (std::size_t i = 0; i < (*set)[v].pixels.size(); ++i)
      for (int c = 0; c < 3; ++c) {
        const std::uint8_t expected = (*set)[v].pixels[i] ? plain[v].pixels[3 * i + c] : 0;
        if (masked[v].pixels[3 * i + c] != expected) FAIL("view " << v << " pixel " << i);
        dropped += (*set)[v].pixels[i] == 0 && c == 0;
      }
  CHECK(dropped > 1000);
}
