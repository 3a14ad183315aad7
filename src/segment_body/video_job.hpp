#pragma once
// One video through segment-body: a decode thread (VideoReader) -> bounded queue -> the compute
// stage on the calling thread (MaskProcessor, batches of frames with the video's temporal state)
// -> bounded queue -> an encode thread (mask / background videos through VideoWriter, per-frame
// PNGs). Decoding, compute and encoding overlap. Any error fails this video alone, and none of
// its files stays: its videos are discarded (VideoWriter's temporaries) and the frame PNGs
// already written are removed. A stop (SIGINT/SIGTERM) cancels it at its next batch.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/video_reader.hpp"
#include "segment_body/mask_processor.hpp"
#include "segment_body/output_plan.hpp"

namespace gp::segbody {

struct VideoJobResult {
  std::int64_t frames = 0;
  std::vector<std::string> written;
  std::vector<double> latency_ms;          // per frame: decoded -> mask on the host (queue waits included)
  std::vector<double> compute_latency_ms;  // per frame: taken by the compute stage -> mask on the host
};

// What a video's frames need from the processor.
FrameWants video_wants(const InputPlan& plan);

io::VideoReaderOptions reader_options(const Settings& s);

// Throws the first error (ItemError naming the file and stage where it can).
VideoJobResult run_video(const Settings& s, MaskProcessor& processor, io::VideoReader& reader,
                         const InputPlan& plan, const InputItem& item);

}  // namespace gp::segbody
