#pragma once
// A decoded video frame (yuv420p, as VideoReader delivers by default) as the kernels' FrameSource,
// over the frame's own planes (no copy). The kernels know BT.601 and BT.709; BT.2020 frames are
// read with BT.709's matrix, the nearer of the two.
#include "cuda/frames/frame.hpp"
#include "io/video_frame.hpp"

namespace gp::frames {

inline FrameSource video_frame_source(const io::VideoFrame& f) {
  const YuvMatrix matrix = f.matrix() == io::YuvMatrix::bt601 ? YuvMatrix::bt601 : YuvMatrix::bt709;
  return yuv420_frame(f.plane(0), std::size_t(f.pitch(0)), f.plane(1), std::size_t(f.pitch(1)), f.plane(2),
                      std::size_t(f.pitch(2)), f.width(), f.height(), matrix, f.full_range());
}

}  // namespace gp::frames
