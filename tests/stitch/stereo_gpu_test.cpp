// stitch-360's stereo inputs on the GPU: each eye is a view into the device panorama (top/bottom:
// a row offset; side by side: a byte offset with the panorama's pitch), a square eye a 180-degree
// (VR180) source; the Projector's device run (views with its remap table, cube faces) equals its
// CPU run for both eyes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "stitch/projection_images.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_settings.hpp"

using gp::stitch::test::HostImage;

TEST_CASE("stereo panoramas: both eyes' outputs on the GPU equal the CPU's", "[stitch][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  gp::Stream stream = rt.make_stream();
  struct Case {
    const char* stereo;
    int eye_width;  // eyes 256 high: 512 wide (360 degrees) or 256 (VR180)
  };
  for (const Case& k : {Case{"top_bottom", 512}, Case{"side_by_side", 512}, Case{"side_by_side", 256}})
    for (const char* mode : {"views", "cubemap"}) {
      const char* stereo = k.stereo;
      const int ew = k.eye_width;
      INFO(stereo << ", eyes " << ew << "x256, mode " << mode);
      const bool tb = std::string(stereo) == "top_bottom";
      gp::config::json user = {{"inputs", {"p.jpg"}}, {"mode", mode},
                               {"input", {{"stereo", stereo}, {"eye", "both"}}},
                               {"views", {{"width", 96}, {"height", 80}}}, {"cubemap", {{"face_size", 64}}}};
      const gp::stitch::Settings s = gp::stitch::read_settings(gp::stitch::schema().validate(user, "job.json"));
      const gp::stitch::Projector projector(s);
      // Two different eyes: a textured panorama, its detail doubled in the right eye (a VR180 eye:
      // the same texture read as covering 180 degrees).
      const HostImage left = gp::stitch::test::textured_equirect(ew, 256, 3, 2.0);
      const HostImage right = gp::stitch::test::textured_equirect(ew, 256, 3, 4.0);
      HostImage pano(tb ? ew : 2 * ew, tb ? 512 : 256, 3);
      for (int y = 0; y < 256; ++y)
        for (int x = 0; x < ew; ++x)
          for (int c = 0; c < 3; ++c) {
            pano.px(x, y)[c] = left.px(x, y)[c];
            pano.px(tb ? x : x + ew, tb ? y + 256 : y)[c] = right.px(x, y)[c];
          }
      std::vector<gp::stitch::OutputImage> cpu;
      for (gp::stitch::PlannedOutput& p : gp::stitch::plan_outputs(s, gp::InputItem{"p.jpg", 0, ""}, pano.view.width, pano.view.height))
        cpu.push_back(gp::stitch::OutputImage{std::move(p)});
      REQUIRE(cpu.size() == (std::string(mode) == "views" ? 16u : 12u));
      projector.run_cpu(pano.view, cpu);
      // The same on the device, outputs and panorama pitched.
      gp::DeviceBuffer dpano = rt.device_alloc(pano.view.bytes(), stream, "stereo test");
      stream.copy_to_device(dpano.get(), pano.view.data, pano.view.bytes());
      gp::ImageView dview = pano.view;
      dview.data = dpano.get();
      std::vector<gp::DeviceBuffer> buffers;
      std::vector<gp::ImageView> outs;
      for (const gp::stitch::OutputImage& o : cpu) {
        gp::ImageView v = gp::packed_view(nullptr, o.plan.width, o.plan.height, 3, gp::PixelType::u8);
        buffers.push_back(rt.device_alloc(v.bytes(), stream, "stereo test"));
        v.data = buffers.back().get();
        outs.push_back(v);
      }
      gp::DeviceBuffer table;
      if (projector.uses_remap_table()) {
        table = rt.device_alloc(projector.remap_table_bytes(outs), stream, "stereo test");
        projector.build_remap_device(dview, outs, table.get(), stream.get());
      }
      projector.run_device(dview, outs, stream.get(), {}, table.get());
      const auto host_of = [](const gp::stitch::OutputImage& o) {
        HostImage h(o.plan.width, o.plan.height, 3);
        std::copy(o.pixels.begin(), o.pixels.end(), static_cast<std::uint8_t*>(h.view.data));
        return h;
      };
      for (std::size_t k = 0; k < outs.size(); ++k) {
        HostImage got(outs[k].width, outs[k].height, 3);
        stream.copy_to_host(got.view.data, outs[k].data, outs[k].bytes());
        stream.synchronize("stereo test");
        INFO("output " << cpu[k].plan.label);
        CHECK(gp::stitch::test::max_difference(got, host_of(cpu[k])) <= 1);
      }
      // The eyes differ (the right eye's views are not the left's).
      CHECK(gp::stitch::test::max_difference(host_of(cpu.front()), host_of(cpu[cpu.size() / 2])) > 10);
    }
}
