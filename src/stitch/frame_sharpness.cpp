#include "stitch/frame_sharpness.hpp"

#include "core/error.hpp"

namespace gp::stitch {

FrameSharpness::FrameSharpness(Runtime* runtime) {
  if (!runtime || !runtime->gpu()) return;
  gpu_ = runtime;
  gpu_->bind_thread();
  stream_ = gpu_->make_stream();
  sums_ = gpu_->device_alloc(sizeof(LaplacianSums), stream_, "sharpness sums");
  host_sums_ = gpu_->pinned_alloc(sizeof(LaplacianSums));
}

FrameSharpness::~FrameSharpness() {
  if (!gpu_ || !pending_) return;
  try {
    stream_.synchronize("sharpness of a video frame (abandoned)");
  } catch (const std::exception&) {
    // A GPU failure is reported by whoever meets it next; a destructor only waits.
  }
}

void FrameSharpness::submit(const ImageView& luma) {
  if (pending_) throw Error("FrameSharpness::submit: the previous frame's score was not collected");
  pending_ = true;
  width_ = luma.width;
  height_ = luma.height;
  if (!gpu_) {
    cpu_sums_ = laplacian_sums_cpu(luma);
    return;
  }
  // Any load thread may decode the next frame: the device is made current on each call.
  gpu_->bind_thread();
  const std::size_t row = std::size_t(luma.width);
  const std::size_t bytes = row * std::size_t(luma.height);
  if (luma_.size() < bytes) {
    luma_.reset();  // freed on the stream, after the work queued on it
    luma_ = gpu_->device_alloc(bytes, stream_, "sharpness luma");
  }
  // From pageable memory the copy has taken the pixels when it returns (CUDA stages them); the
  // kernel and the copy of its sums back run while the caller decodes the next frame.
  stream_.copy_2d(luma_.get(), row, luma.data, luma.pitch, row, std::size_t(luma.height));
  ImageView device = packed_view(luma_.get(), luma.width, luma.height, 1, PixelType::u8);
  laplacian_sums_gpu(device, sums_.as<LaplacianSums>(), stream_.get());
  stream_.copy_to_host(host_sums_.get(), sums_.get(), sizeof(LaplacianSums));
}

double FrameSharpness::collect() {
  if (!pending_) throw Error("FrameSharpness::collect: no frame was submitted");
  pending_ = false;
  LaplacianSums sums;
  if (gpu_) {
    stream_.synchronize("sharpness of a video frame");
    sums = *host_sums_.as<LaplacianSums>();
  } else {
    sums = *cpu_sums_;
  }
  return laplacian_variance(sums, width_, height_);
}

}  // namespace gp::stitch
