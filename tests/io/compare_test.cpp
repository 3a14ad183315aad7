// gp::io::compare_paths: images, CSV and JSON files, folders, and what is reported.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "io/compare.hpp"
#include "support/test_data.hpp"

namespace {

namespace fs = std::filesystem;
using gp::io::CompareOptions;
using gp::io::compare_paths;
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

CompareOptions tolerance(double absolute, double relative = 0) { return CompareOptions{absolute, relative}; }

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

TEST_CASE("an unreadable image is a difference, not an error", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-broken");
  const auto a = write_png(dir / "a.png", gradient());
  const auto broken = write_text(dir / "b.png", "not a png");
  const auto r = compare_paths(a, broken);
  CHECK_FALSE(r.equal);
  REQUIRE(r.differences.size() == 1);
  CHECK_THAT(r.differences[0], Contains("cannot read " + broken));
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
  const auto r = compare_paths(a, invalid);
  CHECK_FALSE(r.equal);
  CHECK_THAT(r.differences[0], Contains(invalid + ": invalid JSON"));
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

TEST_CASE("text files compare exactly, line by line", "[compare]") {
  const fs::path dir = gp::test::scratch_dir("compare-text");
  const auto a = write_text(dir / "a/cameras.txt", "# COLMAP\n1 PINHOLE 1920 1920 960 960 959.5 959.5\n");
  const auto b = write_text(dir / "b/cameras.txt", "# COLMAP\n1 PINHOLE 1920 1920 960 960 959.5 959.5\n");
  CHECK(compare_paths(a, b).equal);
  const auto c = write_text(dir / "c/cameras.txt", "# COLMAP\n1 PINHOLE 1920 1920 961 960 959.5 959.5\n");
  const auto differ = compare_paths(a, c);
  CHECK_FALSE(differ.equal);
  REQUIRE(differ.differences.size() == 1);
  CHECK_THAT(differ.differences[0], Contains("line 2 differs"));
  CHECK(differ.details["files"][a]["kind"] == "text");
  const auto shorter = write_text(dir / "d/cameras.txt", "# COLMAP\n");
  CHECK_THAT(compare_paths(a, shorter).differences[0], Contains("(end of file)"));
  CHECK(compare_paths((dir / "a").string(), (dir / "b").string()).equal);  // in folders too
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
}
