// gp::tools::compare_paths: every format gpuproc writes (images with their subimages and MIP levels,
// videos, NRRD volumes, VTP, Statoil and text files, CSV, JSON), folders, what is reported, and
// what cannot be compared.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "tools/compare.hpp"
#include "io/image_io.hpp"
#include "io/video_writer.hpp"
#include "pnm/network_writers.hpp"
#include "support/test_data.hpp"

namespace {

namespace fs = std::filesystem;
using gp::tools::CompareOptions;
using gp::tools::compare_paths;
using Catch::Matchers::Contains;

// A 4x3 RGB image, each sample distinct.
std::vector<std::uint8_t> gradient() {
  std::vector<std::uint8_t> pixels(4 * 3 * 3);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t(10 + 7 * i);
  return pixels;
}

template <class T>
std::string write_image(const fs::path& path, const std::vector<T>& pixels, OIIO::TypeDesc type, int width = 4,
                        int height = 3, int channels = 3) {
  auto out = OIIO::ImageOutput::create(path.string());
  REQUIRE(out);
  REQUIRE(out->open(path.string(), OIIO::ImageSpec(width, height, channels, type)));
  REQUIRE(out->write_image(type, pixels.data()));
  REQUIRE(out->close());
  return path.string();
}

std::string write_png(const fs::path& path, const std::vector<std::uint8_t>& pixels) {
  return write_image(path, pixels, OIIO::TypeDesc::UINT8);
}

std::string write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` with the first `from` at or after `marker` replaced by `to`, written to `path`.
std::string write_changed(const fs::path& path, std::string text, const std::string& marker, const std::string& from,
                          const std::string& to) {
  const std::size_t at = text.find(from, text.find(marker));
  REQUIRE(at != std::string::npos);
  return write_text(path, text.replace(at, from.size(), to));
}

CompareOptions tolerance(double absolute, double relative = 0) {
  CompareOptions o;
  o.tolerance = absolute;
  o.relative_tolerance = relative;
  return o;
}

// The result says "cannot compare" and names the file and why.
void check_cannot_compare(const gp::tools::CompareResult& r, const std::string& what) {
  CHECK_FALSE(r.comparable);
  CHECK_FALSE(r.equal);
  CHECK(r.details["comparable"] == false);
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0], Contains(what));
}

}  // namespace

TEST_CASE("identical images are equal", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-same");
  const auto a = write_png(dir / "a.png", gradient()), b = write_png(dir / "b.png", gradient());
  const auto r = compare_paths(a, b);
  CHECK(r.equal);
  CHECK(r.differences.empty());
  const auto& d = r.details["files"][a];
  CHECK(d["kind"] == "image");
  CHECK(d["equal"] == true);
  CHECK(d["width"] == 4);
  CHECK(d["height"] == 3);
  CHECK(d["differing_pixels"] == 0);
  CHECK(d["psnr_db"].is_null());  // infinite
  CHECK(d["max_abs_difference"] == nlohmann::ordered_json({{"R", 0.0}, {"G", 0.0}, {"B", 0.0}}));
  CHECK(r.details["equal"] == true);
}

TEST_CASE("one 8-bit step fails tolerance 0 and passes tolerance 1/255", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-lsb");
  auto changed = gradient();
  changed[(1 * 4 + 2) * 3 + 1] += 1;  // pixel x=2 y=1, green
  const auto a = write_png(dir / "a.png", gradient()), b = write_png(dir / "b.png", changed);

  const auto exact = compare_paths(a, b, tolerance(0));
  CHECK_FALSE(exact.equal);
  REQUIRE(exact.differences.size() == 1);
  CHECK_THAT(exact.differences[0], Contains(a + ": 1 of 12 pixels differ by more than 0 (max abs difference R 0, G 0.00392157, B 0; "
                                                "worst at x=2 y=1; PSNR"));
  const auto& d = exact.details["files"][a];
  CHECK(d["differing_pixels"] == 1);
  CHECK(d["pixels_over_tolerance"] == 1);
  CHECK(d["max_abs_difference"]["G"].get<double>() == Approx(1.0 / 255).epsilon(1e-5));
  CHECK(d["max_abs_difference"]["R"] == 0.0);
  CHECK(d["worst"] == nlohmann::ordered_json({{"x", 2}, {"y", 1}, {"channel", "G"}}));
  // One sample of 36 off by 1/255: MSE = (1/255)^2 / 36.
  CHECK(d["psnr_db"].get<double>() == Approx(10 * std::log10(36.0 * 255 * 255)).epsilon(1e-4));

  const auto within = compare_paths(a, b, tolerance(1.0 / 255));
  CHECK(within.equal);
  CHECK(within.differences.empty());
  CHECK(within.details["files"][a]["differing_pixels"] == 1);  // still counted
  CHECK(within.details["files"][a]["pixels_over_tolerance"] == 0);

  auto two_steps = gradient();
  two_steps[5] += 2;
  CHECK_FALSE(compare_paths(a, write_png(dir / "c.png", two_steps), tolerance(1.0 / 255)).equal);
}

TEST_CASE("min_psnr_db accepts one large difference in a close image and rejects a poor one", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-psnr");
  auto spike = gradient();
  spike[7] = std::uint8_t(spike[7] + 40);  // one sample off by 40 of 36: PSNR 10 log10(36 * 255^2 / 40^2) = 31.65 dB
  const auto a = write_png(dir / "a.png", gradient()), b = write_png(dir / "b.png", spike);
  CompareOptions o;
  o.min_psnr_db = 30;
  CHECK(compare_paths(a, b, o).equal);
  o.min_psnr_db = 33;
  const auto poor = compare_paths(a, b, o);
  CHECK_FALSE(poor.equal);
  REQUIRE(poor.differences.size() == 1);
  CHECK_THAT(poor.differences[0], Contains("PSNR 31.65 dB, below 33.00"));
  CHECK(poor.details["min_psnr_db"] == 33.0);
  o.min_psnr_db = -1;
  CHECK_THROWS_AS(compare_paths(a, b, o), gp::UsageError);
}

TEST_CASE("images compare across formats on normalised values", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-formats");
  std::vector<std::uint16_t> wide;
  for (auto v : gradient()) wide.push_back(std::uint16_t(v * 257));  // the same values in 16 bits
  const auto png = write_png(dir / "a.png", gradient());
  const auto tif = write_image(dir / "a.tif", wide, OIIO::TypeDesc::UINT16);
  CHECK(compare_paths(png, tif).equal);
}

TEST_CASE("float images compare raw values", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-float");
  std::vector<float> a(4 * 3 * 3, 100.f), b = a;
  b[0] = 100.5f;
  const auto fa = write_image(dir / "a.exr", a, OIIO::TypeDesc::FLOAT), fb = write_image(dir / "b.exr", b, OIIO::TypeDesc::FLOAT);
  CHECK_FALSE(compare_paths(fa, fb, tolerance(0.25)).equal);
  CHECK(compare_paths(fa, fb, tolerance(0.5)).equal);
}

TEST_CASE("images of different sizes or channel counts differ", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-size");
  const auto a = write_png(dir / "a.png", gradient());
  const auto wide = write_image(dir / "b.png", std::vector<std::uint8_t>(5 * 3 * 3), OIIO::TypeDesc::UINT8, 5, 3, 3);
  const auto rgba = write_image(dir / "c.png", std::vector<std::uint8_t>(4 * 3 * 4), OIIO::TypeDesc::UINT8, 4, 3, 4);
  auto r = compare_paths(a, wide, tolerance(1));
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": size 4x3 with 3 channel(s) differs from 5x3 with 3 in " + wide);
  r = compare_paths(a, rgba, tolerance(1));
  CHECK_FALSE(r.equal);
  CHECK_THAT(r.differences[0], Contains("differs from 4x3 with 4"));
}

TEST_CASE("an unreadable image cannot be compared (not a difference)", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-broken");
  const auto a = write_png(dir / "a.png", gradient());
  const auto broken = write_text(dir / "b.png", "not a png");
  const auto r = compare_paths(a, broken);
  check_cannot_compare(r, "cannot read " + broken);
  CHECK(r.differences.empty());
  CHECK(r.details["files"][a].contains("error"));
}

TEST_CASE("CSV numbers compare within tolerance, text exactly", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-csv");
  const auto a = write_text(dir / "a.csv", "file,psnr,ms\nx.png,40.0,12\ny.png,38.5,1000\n");
  const auto near = write_text(dir / "b.csv", "file,psnr,ms\r\nx.png,40.004,12\r\ny.png,38.5,1001\r\n");
  const auto renamed = write_text(dir / "c.csv", "file,psnr,ms\nx.png,40.0,12\nY.png,38.5,1000\n");

  auto r = compare_paths(a, near);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": row 1, column 2 \"psnr\" (line 2): \"40.0\" vs \"40.004\"; 2 cells differ");
  const auto& first = r.details["files"][a]["first_difference"];
  CHECK(first["row"] == 1);
  CHECK(first["column"] == 2);
  CHECK(first["column_name"] == "psnr");
  CHECK(r.details["files"][a]["differing_cells"] == 2);

  CHECK_FALSE(compare_paths(a, near, tolerance(0.01)).equal);  // 1000 vs 1001 is 1 off
  CHECK(compare_paths(a, near, tolerance(1)).equal);
  CHECK(compare_paths(a, near, tolerance(0, 1e-3)).equal);  // both within 0.1 %
  CHECK_FALSE(compare_paths(a, near, tolerance(0, 1e-5)).equal);

  r = compare_paths(a, renamed, tolerance(1));
  CHECK_FALSE(r.equal);
  CHECK(r.differences[0] == a + ": row 2, column 1 \"file\" (line 3): \"y.png\" vs \"Y.png\"");
}

TEST_CASE("CSV headers must match and row counts are reported", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-csv-shape");
  const auto a = write_text(dir / "a.csv", "file,psnr\nx,1\ny,2\n");
  const auto header = write_text(dir / "b.csv", "file,ssim\nx,1\ny,2\n");
  const auto shorter = write_text(dir / "c.csv", "file,psnr\nx,1\n");
  const auto extra_cell = write_text(dir / "d.csv", "file,psnr\nx,1,9\ny,2\n");

  auto r = compare_paths(a, header);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": header differs at column 2: \"psnr\" vs \"ssim\" in " + header);

  r = compare_paths(a, shorter);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": 2 data rows vs 1 in " + shorter);

  r = compare_paths(a, extra_cell);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": row 1, column 3 \"\" (line 2): (none) vs \"9\"");
}

TEST_CASE("CSV quoted cells may hold commas, quotes and line breaks", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-csv-quotes");
  const auto a = write_text(dir / "a.csv", "name,note\n\"a,b\",\"say \"\"hi\"\"\nthere\"\nc,1\n");
  const auto same = write_text(dir / "b.csv", "name,note\n\"a,b\",\"say \"\"hi\"\"\nthere\"\n\"c\",1.0\n");
  const auto other = write_text(dir / "c.csv", "name,note\n\"a,b\",\"say \"\"hi\"\"\nthere\"\nc,2\n");
  CHECK(compare_paths(a, same).equal);
  const auto r = compare_paths(a, other);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": row 2, column 2 \"note\" (line 4): \"1\" vs \"2\"");  // record 2 starts on line 4
}

TEST_CASE("JSON differences are located by JSON pointer", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-json");
  const auto a = write_text(dir / "a.json", R"({"items": [{"name": "x", "score": 0.5}, {"name": "y", "score": 0.7}], "n": 2})");
  const auto reordered = write_text(dir / "b.json", R"({"n": 2.0, "items": [{"score": 0.5, "name": "x"}, {"name": "y", "score": 0.7}]})");
  const auto changed = write_text(dir / "c.json", R"({"items": [{"name": "x", "score": 0.5}, {"name": "y", "score": 0.71}], "n": 2})");
  const auto missing = write_text(dir / "d.json", R"({"items": [{"name": "x", "score": 0.5}, {"name": "y"}], "n": 2})");
  const auto longer = write_text(dir / "e.json", R"({"items": [{"name": "x", "score": 0.5}, {"name": "y", "score": 0.7}, {}], "n": 2})");
  const auto retyped = write_text(dir / "f.json", R"({"items": [{"name": "x", "score": "0.5"}, {"name": "y", "score": 0.7}], "n": 2})");

  CHECK(compare_paths(a, reordered).equal);  // key order and 2 vs 2.0 do not matter
  auto r = compare_paths(a, changed);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": first difference at /items/1/score: 0.7 vs 0.71");
  CHECK(r.details["files"][a]["first_difference"]["pointer"] == "/items/1/score");
  CHECK(compare_paths(a, changed, tolerance(0.02)).equal);
  CHECK(compare_paths(a, changed, tolerance(0, 0.02)).equal);
  CHECK_FALSE(compare_paths(a, changed, tolerance(0.001)).equal);

  CHECK(compare_paths(a, missing).differences[0] == a + ": first difference at /items/1/score: missing in B");
  CHECK(compare_paths(missing, a).differences[0] == missing + ": first difference at /items/1/score: only in B");
  CHECK(compare_paths(a, longer).differences[0] == a + ": first difference at /items/2: only in B (2 items vs 3)");
  CHECK(compare_paths(a, retyped).differences[0] == a + ": first difference at /items/0/score: 0.5 vs \"0.5\"");

  // Members named in ignored_keys do not count, at any depth, missing or not.
  CompareOptions ignore_score;
  ignore_score.ignored_keys = {"score"};
  CHECK(compare_paths(a, changed, ignore_score).equal);
  CHECK(compare_paths(a, missing, ignore_score).equal);
  CHECK(compare_paths(missing, a, ignore_score).equal);
  CHECK_FALSE(compare_paths(a, longer, ignore_score).equal);
}

TEST_CASE("JSON edge cases: escaped keys, top level, JSON lines, invalid files", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-json-edges");
  const auto a = write_text(dir / "a.json", R"({"a/b": {"c~d": 1}})");
  const auto b = write_text(dir / "b.json", R"({"a/b": {"c~d": 2}})");
  CHECK(compare_paths(a, b).differences[0] == a + ": first difference at /a~1b/c~0d: 1 vs 2");
  const auto scalar = write_text(dir / "c.json", "3");
  const auto other_scalar = write_text(dir / "d.json", "4");
  CHECK(compare_paths(scalar, other_scalar).differences[0] == scalar + ": first difference at the top level: 3 vs 4");

  const auto lines_a = write_text(dir / "a.jsonl", "{\"i\": 0}\n{\"i\": 1}\n");
  const auto lines_b = write_text(dir / "b.jsonl", "{\"i\": 0}\n\n{\"i\": 2}\n");
  CHECK(compare_paths(lines_a, lines_b).differences[0] == lines_a + ": first difference at /1/i: 1 vs 2");

  const auto invalid = write_text(dir / "e.json", "{\"a\": ");
  check_cannot_compare(compare_paths(a, invalid), invalid + ": invalid JSON");
  const auto deep = write_text(dir / "f.json", std::string(5000, '[') + std::string(5000, ']'));
  check_cannot_compare(compare_paths(deep, deep), "nested more than 1000 levels");
}

TEST_CASE("folders compare files with the same relative names", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-folders");
  const fs::path a = dir / "expected", b = dir / "actual";
  for (const fs::path& side : {a, b}) {
    fs::create_directories(side / "sub");
    write_png(side / "sub/img.png", gradient());
    write_text(side / "report.json", R"({"ok": true})");
    write_text(side / ".hidden.png.part-1-2.png", "partial write");  // hidden: ignored
  }
  write_text(a / "stats.csv", "k,v\nx,1\n");
  write_text(b / "stats.csv", "k,v\nx,1\n");
  CHECK(compare_paths(a.string(), b.string()).equal);

  write_text(b / "stats.csv", "k,v\nx,2\n");
  write_text(a / "only_a.json", "{}");
  write_text(b / "sub/only_b.csv", "k\n");
  const auto r = compare_paths(a.string(), b.string());
  CHECK_FALSE(r.equal);
  CHECK(r.differences == std::vector<std::string>{"stats.csv: row 1, column 2 \"v\" (line 2): \"1\" vs \"2\"",
                                                  "only_a.json: only in " + a.string(),
                                                  "sub/only_b.csv: only in " + b.string()});
  CHECK(r.details["only_in_a"] == nlohmann::ordered_json({"only_a.json"}));
  CHECK(r.details["only_in_b"] == nlohmann::ordered_json({"sub/only_b.csv"}));
  CHECK(r.details["files"]["sub/img.png"]["equal"] == true);
  CHECK(r.details["files"]["stats.csv"]["equal"] == false);
  CHECK(r.details["equal"] == false);
}

TEST_CASE("text files compare token by token, numbers within the tolerances", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-text");
  const auto a = write_text(dir / "a/cameras.txt", "# COLMAP\n1 PINHOLE 1920 1920 960 960 959.5 959.5\n");
  const auto b = write_text(dir / "b/cameras.txt", "# COLMAP\r\n1  PINHOLE 1920 1920 960.0 960 959.5 959.5\r\n");
  CHECK(compare_paths(a, b).equal);  // blanks, line ends and 960 vs 960.0 do not matter
  const auto c = write_text(dir / "c/cameras.txt", "# COLMAP\n1 PINHOLE 1920 1920 961 960 959.5 959.25\n");
  const auto differ = compare_paths(a, c);
  CHECK_FALSE(differ.equal);
  REQUIRE(differ.differences.size() == 1);
  CHECK(differ.differences[0] == a + ": line 2, column 5: \"960\" vs \"961\"; 2 tokens differ");
  const auto& d = differ.details["files"][a];
  CHECK(d["kind"] == "text");
  CHECK(d["differing_tokens"] == 2);
  CHECK(d["first_difference"] == nlohmann::ordered_json({{"line", 2}, {"column", 5}, {"a", "960"}, {"b", "961"}}));
  CHECK(compare_paths(a, c, tolerance(1)).equal);
  const auto renamed = write_text(dir / "e/cameras.txt", "# COLMAP\n1 SIMPLE 1920 1920 960 960 959.5 959.5\n");
  CHECK(compare_paths(a, renamed, tolerance(1e9)).differences[0] == a + ": line 2, column 2: \"PINHOLE\" vs \"SIMPLE\"");
  const auto shorter = write_text(dir / "d/cameras.txt", "# COLMAP\n");
  CHECK(compare_paths(a, shorter).differences == std::vector<std::string>{a + ": 2 lines vs 1 in " + shorter});
  CHECK(compare_paths((dir / "a").string(), (dir / "b").string()).equal);  // in folders too
}

TEST_CASE("Statoil network files compare number by number", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-statoil");
  const std::string link1 = "2\n        1        1        2  1.00000000e-05  3.00000000e-02  4.00000000e-05\n"
                            "        2        2        0  5.00000000e-06  2.50000000e-02  1.00000000e-05\n";
  const auto a = write_text(dir / "a/network_link1.dat", link1);
  const auto same = write_text(dir / "b/network_link1.dat", link1);
  const auto changed = write_changed(dir / "c/network_link1.dat", link1, "2.50000000e-02", "2.50000000e-02", "2.50000100e-02");
  auto r = compare_paths(a, same);
  CHECK(r.equal);
  CHECK(r.details["files"][a]["kind"] == "statoil");
  CHECK(r.details["files"][a]["lines"] == 3);
  r = compare_paths(a, changed);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": line 3, column 5: \"2.50000000e-02\" vs \"2.50000100e-02\"");
  CHECK(compare_paths(a, changed, tolerance(0, 1e-4)).equal);
  CHECK(compare_paths(a, changed, tolerance(1e-8)).equal);
  CHECK_FALSE(compare_paths(a, changed, tolerance(5e-10)).equal);
}

TEST_CASE("compare rejects what it cannot compare", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-usage");
  const auto png = write_png(dir / "a.png", gradient());
  const auto csv = write_text(dir / "a.csv", "x\n1\n");
  const std::string missing = (dir / "missing.png").string();
  CHECK_THROWS_AS(compare_paths(png, missing), gp::UsageError);
  CHECK_THROWS_WITH(compare_paths(png, missing), missing + ": no such file or folder");
  CHECK_THROWS_WITH(compare_paths(png, dir.string()), Contains("must both be files or both be folders"));
  CHECK_THROWS_WITH(compare_paths(png, csv), Contains("is image and") && Contains("is csv"));
  CHECK_THROWS_WITH(compare_paths(png, png, tolerance(-1)), Contains("--tolerance must be 0 or more"));
  CHECK_THROWS_WITH(compare_paths(csv, csv, tolerance(0, -0.5)), Contains("--relative-tolerance must be 0 or more"));
  const std::string fifo = (dir / "fifo.csv").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(compare_paths(fifo, csv), fifo + ": not a regular file or folder");  // would never end
}

TEST_CASE("files of an unknown format cannot be compared, also inside folders", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-unknown");
  const auto a = write_text(dir / "a/notes.xyz", "same");
  const auto b = write_text(dir / "b/notes.xyz", "same");
  check_cannot_compare(compare_paths(a, b), "unknown format \".xyz\"");
  write_text(dir / "a/stats.csv", "k\n1\n");
  write_text(dir / "b/stats.csv", "k\n2\n");
  write_text(dir / "a/only_a.csv", "k\n");
  const auto r = compare_paths((dir / "a").string(), (dir / "b").string());
  check_cannot_compare(r, a + ": unknown format");
  CHECK(r.details["cannot_compare"] == nlohmann::ordered_json({"notes.xyz"}));
  CHECK(r.details["files"]["notes.xyz"]["kind"] == "unknown");
  CHECK_THAT(r.details["files"]["notes.xyz"]["error"].get<std::string>(), Contains("unknown format"));
  // The other files are still compared and their differences reported.
  CHECK(r.differences == std::vector<std::string>{"stats.csv: row 1, column 1 \"k\" (line 2): \"1\" vs \"2\"",
                                                  "only_a.csv: only in " + (dir / "a").string()});
}

// ---- float images, subimages and MIP levels -----------------------------------------------------

TEST_CASE("float images: relative tolerance, NaN and infinities", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-float-relative");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a(4 * 3 * 3, 100.f);
  a[3] = nan, a[4] = inf, a[5] = -inf;
  std::vector<float> b = a;
  b[0] = 100.5f;  // 0.5 % off
  const auto fa = write_image(dir / "a.exr", a, OIIO::TypeDesc::FLOAT), fb = write_image(dir / "b.exr", b, OIIO::TypeDesc::FLOAT);
  CHECK(compare_paths(fa, write_image(dir / "same.exr", a, OIIO::TypeDesc::FLOAT)).equal);  // NaN = NaN, inf = inf
  CHECK(compare_paths(fa, fb, tolerance(0, 0.01)).equal);
  const auto tight = compare_paths(fa, fb, tolerance(0, 0.001));
  CHECK_FALSE(tight.equal);
  CHECK_THAT(tight.differences[0], Contains("1 of 12 pixels differ by more than 0 and 0.001 relative"));

  auto flipped = a;
  flipped[4] = -inf;  // +inf vs -inf: as different as it gets
  const auto r = compare_paths(fa, write_image(dir / "c.exr", flipped, OIIO::TypeDesc::FLOAT), tolerance(1e30, 1));
  CHECK_FALSE(r.equal);
  CHECK(r.details["files"][fa]["max_abs_difference"]["G"].is_null());  // infinite
  auto number = a;
  number[3] = 1;  // NaN vs a number
  CHECK_FALSE(compare_paths(fa, write_image(dir / "d.exr", number, OIIO::TypeDesc::FLOAT), tolerance(1e30, 1)).equal);
}

TEST_CASE("the relative tolerance does not apply to 8-bit samples", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-int-relative");
  auto changed = gradient();
  changed[20] = std::uint8_t(changed[20] + 1);
  const auto a = write_png(dir / "a.png", gradient()), b = write_png(dir / "b.png", changed);
  CHECK_FALSE(compare_paths(a, b, tolerance(0, 0.5)).equal);
}

namespace {

// An 8x8 grey 16-bit image and its MIP levels down to 1x1, through the writer tonemap-exr uses.
std::string write_mip_levels(const fs::path& path, int changed_level = -1) {
  std::vector<std::vector<std::uint16_t>> pixels;
  std::vector<gp::ImageView> levels;
  for (int size = 8; size >= 1; size /= 2) {
    pixels.emplace_back(std::size_t(size * size));
    for (std::size_t i = 0; i < pixels.back().size(); ++i) pixels.back()[i] = std::uint16_t(1000 * size + 37 * i);
  }
  if (changed_level >= 0) pixels[std::size_t(changed_level)][1] += 1000;  // pixel x=1 y=0 (survives EXR's half)
  for (auto& p : pixels) {
    const int size = int(std::lround(std::sqrt(double(p.size()))));
    levels.push_back(gp::packed_view(p.data(), size, size, 1, gp::PixelType::u16));
  }
  gp::io::write_mip_image(path.string(), levels, gp::io::WriteOptions{});
  return path.string();
}

}  // namespace

TEST_CASE("tiled MIP-mapped TIFF and EXR compare every level", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-mip");
  for (const char* ext : {".tif", ".exr"}) {
    INFO(ext);
    const auto a = write_mip_levels(dir / (std::string("a") + ext));
    auto r = compare_paths(a, write_mip_levels(dir / (std::string("same") + ext)));
    CHECK(r.equal);
    const auto& levels = r.details["files"][a]["levels"];
    REQUIRE(levels.size() == 4);
    CHECK(levels[2]["width"] == 2);
    CHECK(levels[3]["miplevel"] == 3);

    r = compare_paths(a, write_mip_levels(dir / (std::string("b") + ext), 2));
    CHECK_FALSE(r.equal);
    REQUIRE(r.differences.size() == 1);
    CHECK_THAT(r.differences[0], Contains(a + ": subimage 0 MIP level 2: 1 of 4 pixels differ by more than 0"));
    CHECK_THAT(r.differences[0], Contains("worst at x=1 y=0"));
    const auto& d = r.details["files"][a];
    CHECK(d["equal"] == false);
    CHECK(d["width"] == 8);  // the first level's metrics at the top, as for one image
    CHECK(d["pixels_over_tolerance"] == 0);
    CHECK(d["levels"][2]["equal"] == false);
    CHECK(d["levels"][2]["pixels_over_tolerance"] == 1);
    CHECK(d["levels"][1]["equal"] == true);
  }
  // A file with fewer levels: the count differs, the levels both have are compared.
  const auto a = write_mip_levels(dir / "a.tif");
  const auto flat = write_image(dir / "flat.tif", std::vector<std::uint16_t>(64), OIIO::TypeDesc::UINT16, 8, 8, 1);
  const auto r = compare_paths(a, flat);
  CHECK_FALSE(r.equal);
  CHECK_THAT(r.differences[0], Contains("subimage 0: 4 MIP levels vs 1 in " + flat));
}

TEST_CASE("multi-page images compare every subimage", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-pages");
  const auto write_pages = [&](const std::string& name, int pages, int changed_page) {
    const std::string path = (dir / name).string();
    auto out = OIIO::ImageOutput::create(path);
    REQUIRE(out);
    for (int p = 0; p < pages; ++p) {
      auto pixels = gradient();
      if (p == changed_page) pixels[0] = std::uint8_t(pixels[0] + 3);
      REQUIRE(out->open(path, OIIO::ImageSpec(4, 3, 3, OIIO::TypeDesc::UINT8),
                        p == 0 ? OIIO::ImageOutput::Create : OIIO::ImageOutput::AppendSubimage));
      REQUIRE(out->write_image(OIIO::TypeDesc::UINT8, pixels.data()));
    }
    REQUIRE(out->close());
    return path;
  };
  const auto a = write_pages("a.tif", 2, -1);
  CHECK(compare_paths(a, write_pages("same.tif", 2, -1)).equal);
  auto r = compare_paths(a, write_pages("b.tif", 2, 1));
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK_THAT(r.differences[0], Contains("subimage 1 MIP level 0: 1 of 12 pixels differ"));
  const auto one = write_pages("one.tif", 1, -1);
  r = compare_paths(a, one);
  CHECK_FALSE(r.equal);
  CHECK(r.differences == std::vector<std::string>{a + ": 2 subimages vs 1 in " + one});
}

// ---- videos -------------------------------------------------------------------------------------

namespace {

// A 16x8 grey mask video (FFV1, lossless) of `frames` frames; `changed_frame` gets one pixel
// brighter at x=5 y=2.
std::string write_mask_video(const fs::path& path, int frames, int changed_frame = -1, int fps = 30) {
  gp::io::VideoWriterOptions options;
  options.input = gp::io::VideoPixels::gray8;
  options.codec = "ffv1";
  options.frame_rate = {fps, 1};
  options.bitexact = true;
  options.threads = 1;
  gp::io::VideoWriter writer(path.string(), 16, 8, options);
  std::vector<std::uint8_t> mask(16 * 8);
  for (int f = 0; f < frames; ++f) {
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = std::uint8_t((i * 9 + std::size_t(f) * 20) % 200);
    if (f == changed_frame) mask[2 * 16 + 5] += 40;
    writer.write(gp::packed_view(mask.data(), 16, 8, 1, gp::PixelType::u8));
  }
  writer.finish();
  return path.string();
}

}  // namespace

TEST_CASE("videos compare frame by frame", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-video");
  const auto a = write_mask_video(dir / "a.mkv", 6);
  auto r = compare_paths(a, write_mask_video(dir / "same.mkv", 6));
  CHECK(r.equal);
  const auto& d = r.details["files"][a];
  CHECK(d["kind"] == "video");
  CHECK(d["frames"] == 6);
  CHECK(d["width"] == 16);
  CHECK(d["channels"] == 1);  // grey masks compare as one channel
  CHECK(d["differing_frames"] == 0);

  const auto b = write_mask_video(dir / "b.mkv", 6, 3);
  r = compare_paths(a, b);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK_THAT(r.differences[0], Contains(a + ": frame 3: 1 of 128 pixels differ by more than 0 (max abs difference Y 0.156863; "
                                            "worst at x=5 y=2"));
  CHECK(r.details["files"][a]["first_differing_frame"]["frame"] == 3);
  CHECK(r.details["files"][a]["first_differing_frame"]["worst"]["x"] == 5);
  CHECK(compare_paths(a, b, tolerance(41.0 / 255)).equal);
  CompareOptions psnr;
  psnr.min_psnr_db = 20;
  CHECK(compare_paths(a, b, psnr).equal);  // PSNR 37 dB: above 20

  const auto shorter = write_mask_video(dir / "short.mkv", 4);
  r = compare_paths(a, shorter);
  CHECK_FALSE(r.equal);
  CHECK(r.differences == std::vector<std::string>{a + ": 6 frames vs 4 in " + shorter});
  CHECK_THAT(compare_paths(a, write_mask_video(dir / "slow.mkv", 6, -1, 24)).differences[0],
             Contains("frame rate 30 vs 24"));
  // A damaged or foreign file cannot be compared.
  const auto garbage = write_text(dir / "garbage.mkv", "not a video at all");
  check_cannot_compare(compare_paths(a, garbage), "garbage.mkv");
  const std::string bytes = read_file(a);
  const auto cut = write_text(dir / "cut.mkv", bytes.substr(0, bytes.size() / 2));
  CHECK_FALSE(compare_paths(a, cut).comparable);
}

// ---- NRRD volumes -------------------------------------------------------------------------------

namespace {

// A 4x3x2 uint32 label volume, as segment-pnm writes it (gzip) or as a raw NRRD of the same header.
std::vector<std::uint32_t> labels() {
  std::vector<std::uint32_t> v(4 * 3 * 2);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::uint32_t(i % 5);
  return v;
}

gp::pnm::LabelVolumeInfo label_info(double spacing_z = 0.5) {
  gp::pnm::LabelVolumeInfo info;
  info.dims = {4, 3, 2};
  info.spacing = {0.5, 0.5, spacing_z};
  info.origin = {1, 2, 3};
  return info;
}

std::string write_nrrd(const fs::path& path, const std::vector<std::uint32_t>& v, double spacing_z = 0.5) {
  gp::pnm::write_labels_nrrd(path.string(), v.data(), label_info(spacing_z), 4, gp::pnm::VolumeEncoding{true, 6},
                             gp::pnm::LabelsType::uint32);
  return path.string();
}

std::string write_raw_nrrd(const fs::path& path, const std::vector<std::uint32_t>& v) {
  std::string text = "NRRD0004\n# raw\ntype: unsigned int\ndimension: 3\nsizes: 4 3 2\n"
                     "space dimension: 3\nspace directions: (0.5,0,0) (0,0.5,0) (0,0,0.50)\n"
                     "kinds: domain domain domain\nendian: little\nencoding: raw\nspace origin: (1,2,3)\n\n";
  text.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  return write_text(path, text);
}

}  // namespace

TEST_CASE("NRRD volumes compare header and voxels, whatever the encoding", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-nrrd");
  const auto a = write_nrrd(dir / "a.nrrd", labels());
  auto r = compare_paths(a, write_raw_nrrd(dir / "raw.nrrd", labels()));  // gzip vs raw, uint32 vs "unsigned int"
  CHECK(r.equal);
  const auto& d = r.details["files"][a];
  CHECK(d["kind"] == "nrrd");
  CHECK(d["type"] == "uint32");
  CHECK(d["sizes"] == nlohmann::ordered_json({4, 3, 2}));
  CHECK(d["differing_voxels"] == 0);

  auto changed = labels();
  changed[1 * 12 + 2 * 4 + 3] = 9;  // x=3 y=2 z=1
  changed[1 * 12 + 2 * 4 + 2] = 8;
  const auto b = write_nrrd(dir / "b.nrrd", changed);
  r = compare_paths(a, b);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK(r.differences[0] == a + ": voxel (x, y, z) = (2, 2, 1): 2 vs 8; 2 of 24 voxels differ (max abs difference 6)");
  CHECK(r.details["files"][a]["first_difference"] ==
        nlohmann::ordered_json({{"x", 2}, {"y", 2}, {"z", 1}, {"a", 2.0}, {"b", 8.0}}));
  CHECK(r.details["files"][a]["differing_voxels"] == 2);
  CHECK(compare_paths(a, b, tolerance(6)).equal);
  CHECK_FALSE(compare_paths(a, b, tolerance(5)).equal);

  r = compare_paths(a, write_nrrd(dir / "c.nrrd", labels(), 0.75));
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK_THAT(r.differences[0], Contains("header field \"space directions\": \"(0.5,0,0) (0,0.5,0) (0,0,0.5)\" vs "
                                        "\"(0.5,0,0) (0,0.5,0) (0,0,0.75)\""));
  CHECK(compare_paths(a, write_nrrd(dir / "d.nrrd", labels(), 0.5000001), tolerance(1e-6)).equal);

  // labels.nrrd of the smallest type (uint8 here) against the uint32 of earlier versions: the
  // values decide; a float volume of the same values is of another type.
  const auto small = dir / "small.nrrd";
  gp::pnm::write_labels_nrrd(small.string(), labels().data(), label_info(), 4);
  r = compare_paths(a, small.string());
  CHECK(r.equal);
  CHECK(r.details["files"][a]["type_b"] == "uint8");
  r = compare_paths(write_nrrd(dir / "b8.nrrd", changed), small.string());
  CHECK_FALSE(r.equal);
  CHECK_THAT(r.differences.at(0), Contains("2 of 24 voxels differ"));
  const auto values = labels();
  const std::vector<float> as_float(values.begin(), values.end());
  const auto f = dir / "float.nrrd";
  gp::pnm::write_volume_nrrd(f.string(), as_float.data(), gp::pnm::nrrd_type<float>(), label_info(), "float");
  r = compare_paths(a, f.string());
  CHECK_FALSE(r.equal);
  CHECK_THAT(r.differences.at(0), Contains("header field \"type\": uint32 vs float"));
}

TEST_CASE("NRRD files that cannot be compared", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-nrrd-bad");
  const auto a = write_nrrd(dir / "a.nrrd", labels());
  const std::string gz = read_file(a);
  check_cannot_compare(compare_paths(a, write_text(dir / "cut.nrrd", gz.substr(0, gz.size() - 9))), "cut.nrrd: corrupt gzip");
  check_cannot_compare(compare_paths(a, write_text(dir / "text.nrrd", "hello\n")), "not an NRRD file");
  const std::string raw = read_file(write_raw_nrrd(dir / "raw.nrrd", labels()));
  check_cannot_compare(compare_paths(a, write_text(dir / "short.nrrd", raw.substr(0, raw.size() - 4))),
                       "92 bytes of raw data, the header's sizes need 96");
  // A header that claims far more than the gzip data can hold is refused before allocating it.
  check_cannot_compare(compare_paths(a, write_changed(dir / "huge.nrrd", gz, "sizes", "sizes: 4 3 2", "sizes: 4000 3000 2000")),
                       "more than");
  check_cannot_compare(compare_paths(a, write_changed(dir / "ascii.nrrd", raw, "encoding", "encoding: raw", "encoding: ascii")),
                       "NRRD encoding \"ascii\" is not supported");
}

// ---- VTK PolyData -------------------------------------------------------------------------------

namespace {

// Two pores joined by one throat, as segment-pnm's network.vtp lays it out.
const std::string network_vtp = R"(<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="2" NumberOfVerts="2" NumberOfLines="1" NumberOfStrips="0" NumberOfPolys="0">
      <PointData>
        <DataArray type="Float64" Name="pore.volume" NumberOfComponents="1" format="ascii">
1.5 2.25 
        </DataArray>
      </PointData>
      <CellData>
        <DataArray type="Int64" Name="is_throat" NumberOfComponents="1" format="ascii">
0 0 
1 
        </DataArray>
        <DataArray type="Float64" Name="throat.length" NumberOfComponents="1" format="ascii">
0 0 
0.75 
        </DataArray>
      </CellData>
      <Points>
        <DataArray type="Float64" Name="pore.coords" NumberOfComponents="3" format="ascii">
0.5 0.5 0.5 2.5 0.5 0.5 
        </DataArray>
      </Points>
      <Verts>
        <DataArray type="Int64" Name="connectivity" format="ascii">
0 1
        </DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">
1 2
        </DataArray>
      </Verts>
      <Lines>
        <DataArray type="Int64" Name="connectivity" format="ascii">
0 1
        </DataArray>
        <DataArray type="Int64" Name="offsets" format="ascii">
2
        </DataArray>
      </Lines>
    </Piece>
  </PolyData>
</VTKFile>
)";

}  // namespace

TEST_CASE("VTP files compare every array by name", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-vtp");
  const auto a = write_text(dir / "a.vtp", network_vtp);
  auto r = compare_paths(a, write_changed(dir / "same.vtp", network_vtp, "pore.coords", "2.5", "2.50"));
  CHECK(r.equal);
  const auto& d = r.details["files"][a];
  CHECK(d["kind"] == "vtp");
  CHECK(d["points"] == 2);
  CHECK(d["cells"] == 3);
  CHECK(d["arrays"] == 8);

  const auto coords = write_changed(dir / "coords.vtp", network_vtp, "pore.coords", "2.5 0.5 0.5", "2.5 0.625 0.5");
  r = compare_paths(a, coords);
  CHECK_FALSE(r.equal);
  CHECK(r.differences == std::vector<std::string>{a + ": Points/pore.coords: tuple 1, component 1: 0.5 vs 0.625"});
  CHECK(r.details["files"][a]["first_difference"] ==
        nlohmann::ordered_json({{"array", "Points/pore.coords"}, {"tuple", 1}, {"component", 1}, {"a", 0.5}, {"b", 0.625}}));
  CHECK(compare_paths(a, coords, tolerance(0.2)).equal);

  // The line's connectivity (same name as the vertices') is told apart by its section.
  const auto lines = write_changed(dir / "lines.vtp", network_vtp, "<Lines>", "0 1", "1 0");
  CHECK(compare_paths(a, lines).differences ==
        std::vector<std::string>{a + ": Lines/connectivity: tuple 0, component 0: 0 vs 1; 2 values differ"});
  const auto renamed = write_changed(dir / "renamed.vtp", network_vtp, "throat.length", "throat.length", "throat.size");
  CHECK(compare_paths(a, renamed).differences ==
        std::vector<std::string>{a + ": CellData/throat.length: only in " + a, a + ": CellData/throat.size: only in " + renamed});
  const auto fewer = write_changed(dir / "fewer.vtp", network_vtp, "<Piece", "NumberOfLines=\"1\"", "NumberOfLines=\"0\"");
  CHECK(compare_paths(a, fewer).differences == std::vector<std::string>{a + ": NumberOfLines: \"1\" vs \"0\" in " + fewer});
}

TEST_CASE("VTP files that cannot be compared", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-vtp-bad");
  const auto a = write_text(dir / "a.vtp", network_vtp);
  check_cannot_compare(compare_paths(a, write_text(dir / "cut.vtp", network_vtp.substr(0, 300))), "cut.vtp: invalid XML");
  check_cannot_compare(compare_paths(a, write_changed(dir / "binary.vtp", network_vtp, "pore.volume", "ascii", "binary")),
                       "DataArray format \"binary\" is not supported");
  check_cannot_compare(compare_paths(a, write_changed(dir / "word.vtp", network_vtp, "pore.volume", "2.25", "two")),
                       "PointData/pore.volume: \"two\" is not a number");
  check_cannot_compare(compare_paths(a, write_text(dir / "other.vtp", "<root/>")), "not <VTKFile>");
}
