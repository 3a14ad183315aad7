#pragma once
// The shared frame types and preprocessing (cuda/frames, also track-faces') under the names
// segment-body's kernels and pipeline use.
#include "cuda/frames/frame.hpp"
#include "cuda/frames/frame_math.hpp"
#include "cuda/frames/preprocess.hpp"

namespace gp::segbody {

using frames::chroma_size;
using frames::content_rect;
using frames::FrameFormat;
using frames::frame_luma_cpu;
using frames::frame_luma_gpu;
using frames::FrameSource;
using frames::packed_frame;
using frames::preprocess_cpu;
using frames::preprocess_gpu;
using frames::PreprocessParams;
using frames::Rect;
using frames::resize_frame_cpu;
using frames::resize_frame_gpu;
using frames::ResizeMode;
using frames::ResizeFilter;
using frames::TensorType;
using frames::Yuv420Planes;
using frames::yuv420_frame;
using frames::YuvMatrix;

}  // namespace gp::segbody

namespace gp::segbody::math {

using namespace frames::math;  // sampling, colour conversion and clamps shared with the frame kernels

}  // namespace gp::segbody::math
