// stitch-360's six-file cubemaps: which face a file names, and a folder's faces.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "stitch/cube_face_files.hpp"

namespace fs = std::filesystem;

TEST_CASE("cube face names: v360's face words, px..nz, posx..negz, at the end of the stem", "[stitch]") {
  using gp::stitch::cube_face_of_stem;
  CHECK(cube_face_of_stem("right") == 0);
  CHECK(cube_face_of_stem("sky_left") == 1);
  CHECK(cube_face_of_stem("sky-top") == 2);
  CHECK(cube_face_of_stem("Sky.Bottom") == 3);
  CHECK(cube_face_of_stem("pz") == 4);
  CHECK(cube_face_of_stem("room_negz") == 5);
  CHECK(cube_face_of_stem("px") == 0);
  CHECK(cube_face_of_stem("nx") == 1);
  CHECK(cube_face_of_stem("posy") == 2);
  CHECK(cube_face_of_stem("ny") == 3);
  CHECK(cube_face_of_stem("frontyard") == -1);  // not at the end
  CHECK(cube_face_of_stem("playback") == -1);   // not after a separator
  CHECK(cube_face_of_stem("photo") == -1);
}

TEST_CASE("a cubemap folder gives its six faces in v360's order, or names what is missing", "[stitch]") {
  const fs::path dir = fs::temp_directory_path() / "gpuproc_cube_face_files_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto touch = [&](const std::string& name) { std::ofstream(dir / name) << "x"; };
  for (const char* name : {"c_px.jpg", "c_nx.jpg", "c_py.png", "c_ny.jpg", "c_pz.jpg", "notes.txt", "c_extra.jpg"}) touch(name);
  CHECK_THROWS_WITH(gp::stitch::cube_face_files(dir.string()), Catch::Contains("missing: back"));
  touch("c_nz.tif");
  const auto files = gp::stitch::cube_face_files(dir.string());
  CHECK(fs::path(files[0]).filename() == "c_px.jpg");
  CHECK(fs::path(files[2]).filename() == "c_py.png");
  CHECK(fs::path(files[5]).filename() == "c_nz.tif");
  touch("c_back.jpg");
  CHECK_THROWS_WITH(gp::stitch::cube_face_files(dir.string()), Catch::Contains("more than one file for back"));
  fs::remove_all(dir);
}
