#pragma once
// One camera's threads and state in a track-faces job: its decoder thread (libavcodec, or the
// images of an image-sequence folder) filling a
// small queue, on the GPU path through a ring of pinned slots the decoder packs each frame into
// (so the copy that staging costs runs on the camera's own thread, and the compute step uploads
// straight from pinned memory), and its save thread (results, summary, preview).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_queue.hpp"
#include "core/gpu_runtime.hpp"
#include "core/pipeline.hpp"  // ItemFailure
#include "core/progress.hpp"
#include "core/trace.hpp"
#include "cuda/frames/frame.hpp"
#include "io/video_frame.hpp"
#include "frames/rgb_image.hpp"
#include "track_faces/camera_tracker.hpp"
#include "track_faces/face_frame.hpp"
#include "track_faces/track_settings.hpp"

namespace gp::track {

// Opens once every party has arrived: the compute workers with their engines built and warmed
// up, the decoders with their first frames staged. With run.realtime the cameras' clocks start there
// (live cameras are switched on once the system is up), so start-up is not counted as latency.
class StartGate {
 public:
  explicit StartGate(std::size_t parties) : left_(parties) {}
  void arrive();        // once per party; the last one opens the gate
  std::int64_t wait();  // the start time (Trace::now_us clock)
  bool started() const;  // without waiting: whether it opened (then start_us() is the start)
  std::int64_t start_us() const { return start_us_; }
  double start_cpu_s();  // the process's CPU time then (call after wait)

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  std::size_t left_;
  std::atomic<bool> open_{false};  // set last, after the start time (read without the lock by started())
  std::int64_t start_us_ = 0;
  double start_cpu_s_ = 0;
};

struct DecodedFrame {
  io::VideoFrame frame;         // kept when the preview needs it, or on the CPU path
  std::shared_ptr<const frames::RgbImage> image;  // an image-sequence camera's frame (instead of `frame`)
  frames::FrameSource source;  // the frame's pixels: a pinned slot (GPU path) or `frame` itself
  int slot = -1;                // the pinned slot, returned with Camera::release_slot
  std::int64_t index = 0;
  double time_s = 0;
  std::int64_t due_us = 0;  // when the frame was (or, realtime, would have been) available
  static constexpr std::int64_t kDueUnset = -1;  // the compute worker sets it (due_time)
  double stream_time_s = -1;  // live cameras: the frame's own timestamp in its stream (-1: not live)
};

struct SaveItem {
  CameraFrame result;
  io::VideoFrame frame;  // for the preview; empty without one
  std::shared_ptr<const frames::RgbImage> image;  // the same for an image-sequence camera
  std::int64_t due_us = 0;
};

struct Camera {
  std::size_t item = 0;  // position in the run's inputs
  std::string id, path;
  double offset_s = 0;
  static constexpr int kQueuedFrames = 3;  // decoded frames waiting for the compute worker
  BoundedQueue<DecodedFrame> decoded{kQueuedFrames};
  BoundedQueue<SaveItem> to_save{8};
  std::unique_ptr<CameraTracker> tracker;
  std::thread decoder, saver;
  std::vector<std::string> written;
  nlohmann::ordered_json summary;
  std::vector<double> latency_ms;  // per frame, in frame order
  std::vector<std::int64_t> due_us;  // when each of those frames was due
  std::int64_t frames = 0, detection_frames = 0;
  bool active = true;  // the compute worker's: frames still coming
  // Set by the compute worker when the camera's last frame went to the save thread (not when the
  // job stopped first): only then are its files finished and put in place.
  std::atomic<bool> stream_ended{false};
  // Live cameras (URLs, capture devices): read as frames arrive, reconnected when lost.
  bool live = false;
  std::atomic<std::int64_t> reconnects{0}, dropped_behind{0};  // frames dropped: the pipeline was behind
  double decode_cpu_s = 0, save_cpu_s = 0;  // CPU time of its decoder and save threads (set as they end)
  // The camera's frame rate, for its preview (set by the decoder before its first frame).
  io::Rational frame_rate{30, 1};

  // Pinned slots (GPU path): the queue's frames, one being decoded and one in the compute step,
  // carved from one allocation made at the first frame, before the clock starts (on the H100,
  // 64 cameras allocating slots one by one as frames came serialised on the pinned pool for
  // seconds: 326 allocations, 81 ms each on average, all inside the timed run).
  static constexpr int kSlots = 5;
  PinnedBuffer slab;
  std::size_t slot_bytes = 0;
  std::vector<PinnedBuffer> larger;  // a slot whose frame outgrew slot_bytes (the stream changed size)
  BoundedQueue<int> free_slots{kSlots};
  void release_slot(int slot) {
    if (slot >= 0) free_slots.push(slot);
  }
  // When a file camera's frame whose decoder left due_us unset is due, the clock having started at
  // start_us: with run.realtime when a live camera would deliver it (its time in the video), else
  // (a frame queued before the start) the start.
  std::int64_t due_time(const DecodedFrame& d, std::int64_t start_us, bool realtime) const {
    return realtime ? start_us + std::int64_t((d.time_s - offset_s) * 1e6) : start_us;
  }

  void fail(const std::string& stage, const std::string& message);
  bool failed();
  std::optional<ItemFailure> failure_copy();

 private:
  std::mutex failure_mutex_;
  std::optional<ItemFailure> failure_;
};

// The decoder thread's body. pinned: the runtime to take the slots from (GPU path), or null.
// progress: where a live camera's losses and reconnections are said.
void decode_camera(Camera& cam, const TrackSettings& s, Runtime* pinned, StartGate& gate, Progress& progress);
// The save thread's body; each frame also to `stream` when there is one.
void save_camera(Camera& cam, const TrackSettings& s, io::ResultStream* stream);

}  // namespace gp::track
