// track-faces result files: JSON lines and CSV read back to the written values, atomic appearance
// at finish(), nothing left without it, and the per-camera track summary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"
#include "track_faces/result_writers.hpp"

using namespace gp::track;
namespace fs = std::filesystem;

namespace {

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// RFC 4180 records (quoted fields may hold commas, doubled quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, in_record = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    in_record = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      in_record = false;
    } else {
      field += c;
    }
  }
  if (in_record) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

TrackedFace face(int id, float x0, float y0, float size, float score, bool detected, bool landmarks) {
  TrackedFace f;
  f.track_id = id;
  f.box = {x0, y0, x0 + size, y0 + size};
  f.score = score;
  f.detected = detected;
  for (int k = 0; k < kMaxKeypoints; ++k) f.keypoints[k] = {x0 + 3.25f * k, y0 + 1.5f * k};
  if (landmarks) {
    f.landmark_score = 0.987654f;
    for (int i = 0; i < kFaceLandmarks; ++i) {
      f.landmarks.push_back(x0 + 0.1f * i);
      f.landmarks.push_back(y0 + 0.05f * i);
      f.landmarks.push_back(-2.5f + 0.01f * i);
    }
  }
  return f;
}

// Frames 0-3 of "cam0": no face, two faces (one with landmarks), one face, no face.
std::vector<CameraFrame> sample_frames(const std::string& camera = "cam0") {
  std::vector<CameraFrame> frames(4);
  for (int i = 0; i < 4; ++i) {
    frames[i].camera = camera;
    frames[i].frame = 10 + i;
    frames[i].time_s = 0.4 + i / 30.0;
  }
  frames[1].faces = {face(1, 100.123f, 50.5f, 80, 0.93127f, true, true), face(2, 300, 40.25f, 60, 0.61f, true, false)};
  frames[1].faces[0].signals = FaceSignals{12.345f, -3.5f, 7.0f, {10.04f, -20.5f, 612.26f}, 0.3125f, 0.29f, 0.115f};
  frames[2].faces = {face(1, 101.5f, 51, 80, 0.8f, false, true)};
  return frames;
}

void check_face_json(const nlohmann::json& j, const TrackedFace& f, bool expect_landmarks) {
  CHECK(j.at("track").get<int>() == f.track_id);
  const auto& box = j.at("box");
  REQUIRE(box.size() == 4);
  CHECK(box[0].get<double>() == Approx(f.box.x0).margin(0.005));
  CHECK(box[1].get<double>() == Approx(f.box.y0).margin(0.005));
  CHECK(box[2].get<double>() == Approx(f.box.x1).margin(0.005));
  CHECK(box[3].get<double>() == Approx(f.box.y1).margin(0.005));
  CHECK(j.at("score").get<double>() == Approx(f.score).margin(5e-5));
  CHECK(j.at("detected").get<bool>() == f.detected);
  const auto& kp = j.at("keypoints");
  REQUIRE(kp.size() == kMaxKeypoints);
  for (int k = 0; k < kMaxKeypoints; ++k) {
    REQUIRE(kp[k].size() == 2);
    CHECK(kp[k][0].get<double>() == Approx(f.keypoints[k].x).margin(0.005));
    CHECK(kp[k][1].get<double>() == Approx(f.keypoints[k].y).margin(0.005));
  }
  CHECK(j.contains("landmarks") == expect_landmarks);
  CHECK(j.contains("landmark_score") == expect_landmarks);
  CHECK(j.contains("head_pose") == f.signals.has_value());
  if (f.signals) {
    CHECK(j["head_pose"]["yaw"].get<double>() == Approx(f.signals->yaw).margin(0.005));
    CHECK(j["head_pose"]["roll"].get<double>() == Approx(f.signals->roll).margin(0.005));
    CHECK(j["head_pose"]["translation_mm"][2].get<double>() == Approx(f.signals->translation_mm[2]).margin(0.05));
    CHECK(j["eye_openness"][0].get<double>() == Approx(f.signals->right_eye).margin(5e-5));
    CHECK(j["eye_openness"][1].get<double>() == Approx(f.signals->left_eye).margin(5e-5));
    CHECK(j["mouth_openness"].get<double>() == Approx(f.signals->mouth).margin(5e-5));
  }
  if (!expect_landmarks) return;
  CHECK(j.at("landmark_score").get<double>() == Approx(f.landmark_score).margin(5e-5));
  const auto& lm = j.at("landmarks");
  REQUIRE(lm.size() == kFaceLandmarks);
  for (int i = 0; i < kFaceLandmarks; ++i) {
    REQUIRE(lm[i].size() == 3);
    for (int c = 0; c < 3; ++c) CHECK(lm[i][c].get<double>() == Approx(f.landmarks[3 * i + c]).margin(0.005));
  }
}

}  // namespace

TEST_CASE("result writer: JSON lines read back to the frames, a line per frame", "[track_faces][results]") {
  const fs::path dir = gp::test::scratch_dir("face-results-jsonl");
  const auto frames = sample_frames();
  for (const bool include_landmarks : {true, false}) {
    const fs::path path = dir / (include_landmarks ? "with.jsonl" : "without.jsonl");
    {
      CameraResultWriter writer(path.string(), "", include_landmarks);
      for (const auto& f : frames) writer.write(f);
      writer.finish();
    }
    const auto lines = lines_of(gp::test::read_text(path));
    REQUIRE(lines.size() == frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const auto j = nlohmann::json::parse(lines[i]);
      CHECK(j.at("camera") == "cam0");
      CHECK(j.at("frame").get<std::int64_t>() == frames[i].frame);
      CHECK(j.at("time_s").get<double>() == Approx(frames[i].time_s).margin(1e-6));
      REQUIRE(j.at("faces").size() == frames[i].faces.size());
      for (std::size_t k = 0; k < frames[i].faces.size(); ++k)
        check_face_json(j["faces"][k], frames[i].faces[k], include_landmarks && !frames[i].faces[k].landmarks.empty());
    }
  }
  CHECK(names_in(dir) == std::set<std::string>{"with.jsonl", "without.jsonl"});
}

TEST_CASE("result writer: short fixed-precision numbers and escaped camera ids", "[track_faces][results]") {
  const fs::path dir = gp::test::scratch_dir("face-results-format");
  CameraFrame frame;
  frame.camera = "cam \"A\"\\1";
  frame.frame = 12;
  frame.time_s = 0.4;
  TrackedFace f;
  f.track_id = 7;
  f.box = {10.0f, 20.5f, 110.25f, -0.001f};
  f.score = 0.93127f;
  f.detected = true;
  f.keypoints[2] = {1.005f, 3.0f};
  f.landmark_score = 0.5f;  // no landmarks: not written even with include_landmarks
  frame.faces = {f};
  CameraFrame nan_frame = frame;
  nan_frame.frame = 13;
  nan_frame.faces[0].score = std::numeric_limits<float>::quiet_NaN();
  {
    CameraResultWriter writer((dir / "a.jsonl").string(), "", true);
    writer.write(frame);
    writer.write(nan_frame);
    writer.finish();
  }
  const auto lines = lines_of(gp::test::read_text(dir / "a.jsonl"));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        R"({"camera":"cam \"A\"\\1","frame":12,"time_s":0.4,"faces":[{"track":7,"box":[10,20.5,110.25,0],"score":0.9313,)"
        R"("detected":true,"keypoints":[[0,0],[0,0],[1,3],[0,0],[0,0],[0,0]]}]})");
  const auto j = nlohmann::json::parse(lines[1]);
  CHECK(j["camera"] == frame.camera);
  CHECK(j["faces"][0]["score"].is_null());  // JSON has no NaN
}

TEST_CASE("result writer: CSV rows per face, columns as the header, RFC 4180 quoting", "[track_faces][results]") {
  const fs::path dir = gp::test::scratch_dir("face-results-csv");
  const std::string camera = "studio A, \"left\"";
  const auto frames = sample_frames(camera);
  for (const bool include_landmarks : {true, false}) {
    const fs::path path = dir / (include_landmarks ? "with.csv" : "without.csv");
    {
      CameraResultWriter writer("", path.string(), include_landmarks);
      for (const auto& f : frames) writer.write(f);
      writer.finish();
    }
    const auto rows = parse_csv(gp::test::read_text(path));
    REQUIRE(rows.size() == 1 + 3);  // header + one row per face (frames without faces have none)
    const auto& header = rows[0];
    const std::size_t columns = 10 + 2 * kMaxKeypoints + 9 + (include_landmarks ? 1 + 3 * kFaceLandmarks : 0);
    CHECK(header.size() == columns);
    CHECK(header[0] == "camera");
    CHECK(header[9] == "detected");
    CHECK(header[10] == "kp0_x");
    CHECK(header[21] == "kp5_y");
    CHECK(header[22] == "yaw");
    CHECK(header[27] == "tz_mm");
    CHECK(header[30] == "mouth_openness");
    if (include_landmarks) {
      CHECK(header[31] == "landmark_score");
      CHECK(header[32] == "lm0_x");
      CHECK(header.back() == "lm467_z");
    }
    for (std::size_t r = 1; r < rows.size(); ++r) {
      INFO("row " << r);
      REQUIRE(rows[r].size() == columns);
      CHECK(rows[r][0] == camera);
    }
    // Row 1: frame 11, track 1 (with landmarks); row 2: track 2 (without); row 3: frame 12.
    const TrackedFace& f = frames[1].faces[0];
    CHECK(rows[1][1] == "11");
    CHECK(std::stod(rows[1][2]) == Approx(frames[1].time_s).margin(1e-6));
    CHECK(rows[1][3] == "1");
    CHECK(std::stod(rows[1][4]) == Approx(f.box.x0).margin(0.005));
    CHECK(std::stod(rows[1][7]) == Approx(f.box.y1).margin(0.005));
    CHECK(std::stod(rows[1][8]) == Approx(f.score).margin(5e-5));
    CHECK(rows[1][9] == "1");
    CHECK(std::stod(rows[1][20]) == Approx(f.keypoints[5].x).margin(0.005));
    CHECK(rows[2][3] == "2");
    CHECK(rows[3][1] == "12");
    CHECK(rows[3][9] == "0");
    // Signals: degrees to 1/100, millimetres to 1/10, openings to 1e-4; none for track 2.
    CHECK(rows[1][22] == "12.35");
    CHECK(rows[1][23] == "-3.5");
    CHECK(rows[1][27] == "612.3");
    CHECK(rows[1][28] == "0.3125");
    CHECK(rows[1][30] == "0.115");
    CHECK(rows[2][22].empty());
    CHECK(rows[2][30].empty());
    if (include_landmarks) {
      CHECK(std::stod(rows[1][31]) == Approx(f.landmark_score).margin(5e-5));
      CHECK(std::stod(rows[1][32 + 3 * 100 + 2]) == Approx(f.landmarks[3 * 100 + 2]).margin(0.005));
      CHECK(rows[2][31].empty());  // track 2 has no landmarks: empty fields
      CHECK(rows[2].back().empty());
    }
  }
}

TEST_CASE("result writer: files appear only at finish, none without it", "[track_faces][results]") {
  const fs::path dir = gp::test::scratch_dir("face-results-atomic");
  const auto frames = sample_frames();
  const fs::path jsonl = dir / "sub" / "cam0.jsonl", csv = dir / "sub" / "cam0.csv";
  {
    CameraResultWriter writer(jsonl.string(), csv.string(), true);
    for (const auto& f : frames) writer.write(f);
    CHECK_FALSE(fs::exists(jsonl));
    CHECK_FALSE(fs::exists(csv));
    CHECK(names_in(dir / "sub").size() == 2);  // the two temporaries
    // Destroyed without finish(): an error or a cancelled job.
  }
  CHECK(names_in(dir / "sub").empty());

  for (const bool fsync : {true, false}) {
    gp::set_outputs_fsync(fsync);
    fs::remove(jsonl);
    fs::remove(csv);
    CameraResultWriter writer(jsonl.string(), csv.string(), false);
    for (const auto& f : frames) writer.write(f);
    CHECK_FALSE(fs::exists(jsonl));
    writer.finish();
    gp::set_outputs_fsync(true);
    CHECK(names_in(dir / "sub") == std::set<std::string>{"cam0.jsonl", "cam0.csv"});
    CHECK(lines_of(gp::test::read_text(jsonl)).size() == frames.size());
    CHECK(lines_of(gp::test::read_text(csv)).size() == 1 + 3);
    CHECK_THROWS_AS(writer.write(frames[0]), gp::Error);  // after finish
  }

  // A camera without frames: an empty JSON-lines file and a CSV with only its header.
  {
    CameraResultWriter writer(jsonl.string(), csv.string(), false);
    writer.finish();
  }
  CHECK(gp::test::read_text(jsonl).empty());
  CHECK(lines_of(gp::test::read_text(csv)).size() == 1);
}

TEST_CASE("result writer: frames out of order, of another camera or with bad landmarks are refused",
          "[track_faces][results]") {
  const fs::path dir = gp::test::scratch_dir("face-results-refused");
  auto frames = sample_frames();
  CameraResultWriter writer((dir / "a.jsonl").string(), (dir / "a.csv").string(), true);
  writer.write(frames[0]);
  writer.write(frames[1]);
  CHECK_THROWS_AS(writer.write(frames[1]), gp::Error);
  CHECK_THROWS_AS(writer.write(frames[0]), gp::Error);
  CameraFrame other = frames[2];
  other.camera = "cam1";
  CHECK_THROWS_AS(writer.write(other), gp::Error);
  CameraFrame bad = frames[2];
  bad.faces[0].landmarks.resize(10);
  CHECK_THROWS_AS(writer.write(bad), gp::Error);
  writer.write(frames[2]);
  writer.finish();
  CHECK(writer.summary().frames() == 3);
  CHECK(lines_of(gp::test::read_text(dir / "a.jsonl")).size() == 3);
}

TEST_CASE("camera summary: counts and spans of a track that leaves and comes back", "[track_faces][results]") {
  // 10 frames at 10 fps from t = 1 s. Track 1: frames 0-2 and 6-8 (detected in 0 and 6); frame 3
  // empty; track 2: frames 4-9, always detected.
  CameraResultWriter writer("", "", false);  // summary only: no files
  for (int i = 0; i < 10; ++i) {
    CameraFrame frame;
    frame.camera = "cam7";
    frame.frame = i;
    frame.time_s = 1.0 + i * 0.1;
    if (i <= 2 || (i >= 6 && i <= 8)) frame.faces.push_back(face(1, 10, 10, 50, i == 0 ? 0.9f : 0.6f, i == 0 || i == 6, false));
    if (i >= 4) frame.faces.push_back(face(2, 200, 10, 50, 0.75f, true, false));
    // Track 2 has signals from frame 5 on: yaw 5, 6, ... 9; right eye closing from 0.3.
    if (i >= 5) frame.faces.back().signals = FaceSignals{float(i), 0, 0, {0, 0, 500}, 0.3f - 0.05f * float(i - 5), 0.3f, 0.1f};
    writer.write(frame);
  }
  writer.finish();
  const CameraSummary& summary = writer.summary();
  CHECK(summary.frames() == 10);
  CHECK(summary.frames_with_faces() == 9);
  CHECK(summary.faces() == 12);
  CHECK(summary.tracks() == 2);

  const auto j = summary.to_json();
  CHECK(j["camera"] == "cam7");
  CHECK(j["frames"] == 10);
  CHECK(j["frames_with_faces"] == 9);
  CHECK(j["faces"] == 12);
  REQUIRE(j["tracks"].size() == 2);
  const auto& t1 = j["tracks"][0];
  CHECK(t1["id"] == 1);
  CHECK(t1["first_frame"] == 0);
  CHECK(t1["last_frame"] == 8);
  CHECK(t1["first_time_s"].get<double>() == Approx(1.0));
  CHECK(t1["last_time_s"].get<double>() == Approx(1.8));
  CHECK(t1["duration_s"].get<double>() == Approx(0.8));
  CHECK(t1["frames_seen"] == 6);
  CHECK(t1["frames_detected"] == 2);
  CHECK(t1["appearances"] == 2);
  CHECK(t1["mean_score"].get<double>() == Approx((0.9 + 5 * 0.6) / 6).epsilon(1e-6));
  const auto& t2 = j["tracks"][1];
  CHECK(t2["id"] == 2);
  CHECK(t2["first_frame"] == 4);
  CHECK(t2["last_frame"] == 9);
  CHECK(t2["duration_s"].get<double>() == Approx(0.5));
  CHECK(t2["frames_seen"] == 6);
  CHECK(t2["frames_detected"] == 6);
  CHECK(t2["appearances"] == 1);
  CHECK(t2["mean_score"].get<double>() == Approx(0.75));
  CHECK_FALSE(t1.contains("signals"));
  const auto& g = t2["signals"];
  CHECK(g["frames"] == 5);
  CHECK(g["yaw"]["mean"].get<double>() == Approx(7));
  CHECK(g["yaw"]["min"].get<double>() == Approx(5));
  CHECK(g["yaw"]["max"].get<double>() == Approx(9));
  CHECK(g["right_eye_openness"]["min"].get<double>() == Approx(0.1).epsilon(1e-5));
  CHECK(g["mouth_openness"]["mean"].get<double>() == Approx(0.1).epsilon(1e-5));
  // The keys' order is part of the format (ordered_json): people read the summary.
  CHECK(j.begin().key() == "camera");
  CHECK(t1.begin().key() == "id");
}
