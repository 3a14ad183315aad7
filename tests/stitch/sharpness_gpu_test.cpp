// The sharpness score's kernel against its CPU reference: exact integer sums, pitched images.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/stitch/sharpness.hpp"

TEST_CASE("laplacian sums: GPU equals the CPU exactly", "[stitch][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  gp::Stream stream = rt.make_stream();
  std::mt19937 rng(7);
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {3, 3}, {33, 9}, {1920, 1080}, {7680, 3840}}) {
    INFO(w << "x" << h);
    const std::size_t pitch = std::size_t(w) + 13;
    std::vector<std::uint8_t> pixels(pitch * std::size_t(h));
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t((rng() >> 8) & (i % 3 ? 0xff : 0x0f));
    gp::ImageView host = gp::packed_view(pixels.data(), w, h, 1, gp::PixelType::u8);
    host.pitch = pitch;
    gp::DeviceBuffer image = rt.device_alloc(pixels.size(), stream, "sharpness test");
    gp::DeviceBuffer sums = rt.device_alloc(sizeof(gp::stitch::LaplacianSums), stream, "sharpness test");
    stream.copy_to_device(image.get(), pixels.data(), pixels.size());
    gp::ImageView device = host;
    device.data = image.get();
    gp::stitch::laplacian_sums_gpu(device, static_cast<gp::stitch::LaplacianSums*>(sums.get()), stream.get());
    gp::stitch::LaplacianSums got;
    stream.copy_to_host(&got, sums.get(), sizeof(got));
    stream.synchronize("sharpness test");
    const gp::stitch::LaplacianSums want = gp::stitch::laplacian_sums_cpu(host);
    CHECK(got.sum == want.sum);
    CHECK(got.sum_squares == want.sum_squares);
  }
}
