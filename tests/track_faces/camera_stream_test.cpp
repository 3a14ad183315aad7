// A camera's decoder thread body (CPU path: no pinned slots) on the sample camera, and the start
// gate it waits at.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/trace.hpp"
#include "track_faces/camera_stream.hpp"

using namespace gp::track;

TEST_CASE("StartGate opens when the last party arrives, with the time it opened", "[track_faces]") {
  StartGate gate(3);
  std::atomic<int> passed{0};
  std::int64_t seen = -1;
  std::thread waiter([&] {
    seen = gate.wait();
    passed = 1;
  });
  gate.arrive();
  gate.arrive();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(passed == 0);  // two of three
  const std::int64_t before = gp::Trace::now_us();
  gate.arrive();
  waiter.join();
  CHECK(passed == 1);
  CHECK(seen >= before);
  gate.arrive();  // more arrivals than parties change nothing
  CHECK(gate.wait() == seen);
}

TEST_CASE("decode_camera: every frame in order, timestamps from 0 plus the camera's offset", "[track_faces]") {
  TrackSettings s;
  s.decode_threads = 1;
  Camera cam;
  cam.id = "cam_front";
  cam.path = std::string(GPUPROC_SOURCE_DIR) + "/data-samples/faces/cam_front.mp4";
  cam.offset_s = 2.5;
  StartGate gate(1);  // the decoder is the only party: it opens the gate with its first frame
  gp::Progress progress(gp::ProgressMode::none, "track-faces", 1);
  std::thread decoder([&] { decode_camera(cam, s, nullptr, gate, progress); });
  std::int64_t expected = 0;
  while (std::optional<DecodedFrame> d = cam.decoded.pop()) {
    INFO("frame " << expected);
    CHECK(d->index == expected);
    CHECK(d->time_s == Approx(2.5 + double(expected) / 24.0).margin(1e-6));
    CHECK(d->slot == -1);  // CPU path: the frame itself
    CHECK(d->source.width == 720);
    CHECK(d->source.planes[0] == d->frame.plane(0));
    ++expected;
  }
  decoder.join();
  CHECK(expected == 120);
  CHECK_FALSE(cam.failed());
}

TEST_CASE("decode_camera: an unreadable video fails the camera, naming it, and still passes the gate", "[track_faces]") {
  TrackSettings s;
  Camera cam;
  cam.path = "/nonexistent/cam.mp4";
  StartGate gate(1);
  gp::Progress progress(gp::ProgressMode::none, "track-faces", 1);
  decode_camera(cam, s, nullptr, gate, progress);
  CHECK(cam.failed());
  const auto failure = cam.failure_copy();
  REQUIRE(failure);
  CHECK(failure->message.find("/nonexistent/cam.mp4") != std::string::npos);
  gate.wait();  // opened by the failed decoder's arrival
  CHECK_FALSE(cam.decoded.pop());
}
