// track-faces' job config: the example documents every field and reads; the stream and signal
// settings land where the command reads them.
#include <catch2/catch.hpp>

#include "core/config.hpp"
#include "infer/model_files.hpp"
#include "support/config_example.hpp"
#include "support/test_data.hpp"
#include "track_faces/track_settings.hpp"

TEST_CASE("track-faces: configs/track-faces.json documents every field and reads", "[track_faces]") {
  if (!gp::test::find_model("face_landmark.tflite") || !gp::test::find_model("face_detection_short_range.tflite")) return;
  gp::config::json c = gp::test::check_documented_example("configs/track-faces.json", gp::track::schema());
  gp::track::TrackSettings s = gp::track::read_settings(c);
  CHECK(s.signals);
  CHECK(s.camera_fov_deg == 60.0f);
  CHECK(s.stream.zmq_endpoint.empty());
  CHECK_FALSE(s.stream.stdout_lines);
  CHECK(s.stream.queue == 1024);
  gp::config::apply_override(c, "output.stream.zmq=tcp://*:5555");
  gp::config::apply_override(c, "output.stream.stdout=true");
  gp::config::apply_override(c, "output.stream.queue=16");
  gp::config::apply_override(c, "output.stream.wait_subscribers=2");
  gp::config::apply_override(c, "signals.camera_fov_deg=90");
  s = gp::track::read_settings(gp::track::schema().validate(c, "test"));
  CHECK(s.stream.zmq_endpoint == "tcp://*:5555");
  CHECK(s.stream.stdout_lines);
  CHECK(s.stream.queue == 16);
  CHECK(s.stream.wait_subscribers == 2);
  CHECK(s.camera_fov_deg == 90.0f);
}
