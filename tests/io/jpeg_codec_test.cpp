// JPEG codec on the CPU (TurboJPEG) and the Exif writer: encode/decode round trips on textured
// images (PSNR at q95 for 4:2:0, 4:4:4 and grey, padded pitches), header parsing, truncated and
// corrupt files as ItemErrors that name the file, and Exif read back by our own TIFF walk and by
// OpenImageIO.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/exif.hpp"
#include "io/jpeg_codec.hpp"
#include "io/jpeg_test_images.hpp"
#include "support/test_data.hpp"

namespace {

using gp::ImageView;
using gp::PixelType;
using gp::io::ChromaSubsampling;

using gp::test::Canvas;
using gp::test::psnr;
using gp::test::TestImage;

double round_trip_psnr(const TestImage& image, const gp::io::JpegEncodeOptions& options, std::size_t* jpeg_bytes = nullptr) {
  const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(image.view, options, "round-trip.jpg");
  if (jpeg_bytes) *jpeg_bytes = jpeg.size();
  Canvas decoded(image.view.width, image.view.height, image.view.channels, 13);
  gp::io::decode_jpeg(jpeg.data(), jpeg.size(), decoded.view, "round-trip.jpg");
  CHECK(gp::test::padding_untouched(decoded, 0x5A));
  return psnr(image.view, decoded.view);
}

template <class F>
gp::ItemError item_error_of(F&& f) {
  try {
    f();
  } catch (const gp::ItemError& e) {
    return e;
  }
  FAIL("no gp::ItemError thrown");
  throw std::logic_error("unreachable");
}

std::string temp_file(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const auto path = gp::test::scratch_dir("jpeg") / name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path.string();
}

}  // namespace

TEST_CASE("JPEG round trip keeps a textured image at q95", "[io][jpeg]") {
  const TestImage rgb(517, 389, 3, 7);  // odd size: partial MCUs; padded rows
  gp::io::JpegEncodeOptions options;
  options.quality = 95;

  options.subsampling = ChromaSubsampling::s444;
  std::size_t bytes444 = 0;
  const double psnr444 = round_trip_psnr(rgb, options, &bytes444);
  options.subsampling = ChromaSubsampling::s420;
  std::size_t bytes420 = 0;
  const double psnr420 = round_trip_psnr(rgb, options, &bytes420);
  options.quality = 50;
  std::size_t bytes420_q50 = 0;
  const double psnr420_q50 = round_trip_psnr(rgb, options, &bytes420_q50);
  INFO("PSNR q95 4:4:4 " << psnr444 << " dB (" << bytes444 << " B), q95 4:2:0 " << psnr420 << " dB (" << bytes420
                         << " B), q50 4:2:0 " << psnr420_q50 << " dB (" << bytes420_q50 << " B)");
  CHECK(psnr444 > 38.5);  // 39.7 dB here: the fine texture and grain cost at q95
  CHECK(psnr420 > 36.0);  // 37.9 dB here
  CHECK(psnr444 > psnr420);      // the chroma edges lose detail at 4:2:0
  CHECK(psnr420 > psnr420_q50 + 3.0);  // quality is honoured
  CHECK(bytes444 > bytes420);
  CHECK(bytes420 > bytes420_q50);

  const TestImage grey(300, 211, 1, 3);
  options.quality = 95;
  const double psnr_grey = round_trip_psnr(grey, options);
  INFO("PSNR q95 grey " << psnr_grey << " dB");
  CHECK(psnr_grey > 40.0);

  // A grey file into an RGB image: R = G = B = the grey decode; a colour file into a grey one: luma.
  const std::vector<std::uint8_t> grey_jpeg = gp::io::encode_jpeg(grey.view, options, "grey.jpg");
  Canvas as_grey(300, 211, 1), as_rgb(300, 211, 3, 5);
  gp::io::decode_jpeg(grey_jpeg.data(), grey_jpeg.size(), as_grey.view, "grey.jpg");
  gp::io::decode_jpeg(grey_jpeg.data(), grey_jpeg.size(), as_rgb.view, "grey.jpg");
  bool replicated = true;
  for (int y = 0; y < 211; ++y)
    for (int x = 0; x < 300; ++x)
      for (int c = 0; c < 3; ++c)
        replicated &= as_rgb.view.row<std::uint8_t>(y)[3 * x + c] == as_grey.view.row<std::uint8_t>(y)[x];
  CHECK(replicated);
  const std::vector<std::uint8_t> colour_jpeg = gp::io::encode_jpeg(rgb.view, options, "colour.jpg");
  Canvas luma(517, 389, 1);
  gp::io::decode_jpeg(colour_jpeg.data(), colour_jpeg.size(), luma.view, "colour.jpg");
  const std::uint8_t* p = static_cast<const std::uint8_t*>(rgb.view.data) + rgb.view.pitch * 100 + 3 * 200;
  CHECK(std::abs(luma.view.row<std::uint8_t>(100)[200] - (0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2])) < 8);
}

TEST_CASE("JPEG fast DCT and fast upsampling stay close to the accurate decode", "[io][jpeg]") {
  const TestImage rgb(256, 192, 3);
  gp::io::JpegEncodeOptions encode;
  encode.fast_dct = true;
  const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(rgb.view, encode, "fast.jpg");
  Canvas accurate(256, 192, 3), fast(256, 192, 3);
  gp::io::decode_jpeg(jpeg.data(), jpeg.size(), accurate.view, "fast.jpg");
  gp::io::JpegDecodeOptions decode;
  decode.fast_dct = decode.fast_upsample = true;
  gp::io::decode_jpeg(jpeg.data(), jpeg.size(), fast.view, "fast.jpg", decode);
  CHECK(psnr(accurate.view, fast.view) > 35.0);
  CHECK(psnr(accurate.view, fast.view) < 99.0);  // the options do change the result
  CHECK(psnr(rgb.view, accurate.view) > 34.0);
}

TEST_CASE("JPEG header parsing gives size, components and subsampling", "[io][jpeg]") {
  const TestImage rgb(333, 217, 3), grey(64, 40, 1);
  struct Case {
    const TestImage* image;
    ChromaSubsampling encode_as, expected;
    int channels;
  };
  for (const Case& c : {Case{&rgb, ChromaSubsampling::s420, ChromaSubsampling::s420, 3},
                        Case{&rgb, ChromaSubsampling::s422, ChromaSubsampling::s422, 3},
                        Case{&rgb, ChromaSubsampling::s444, ChromaSubsampling::s444, 3},
                        Case{&rgb, ChromaSubsampling::gray, ChromaSubsampling::gray, 1},
                        Case{&grey, ChromaSubsampling::s420, ChromaSubsampling::gray, 1}}) {
    gp::io::JpegEncodeOptions options;
    options.subsampling = c.encode_as;
    const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(c.image->view, options, "info.jpg");
    const gp::io::JpegInfo info = gp::io::jpeg_info(jpeg, "info.jpg");
    INFO(gp::io::chroma_subsampling_name(c.expected));
    CHECK(info.width == c.image->view.width);
    CHECK(info.height == c.image->view.height);
    CHECK(info.channels == c.channels);
    CHECK(info.precision == 8);
    CHECK(info.subsampling == c.expected);
    CHECK_FALSE(info.progressive);
    CHECK_FALSE(info.arithmetic);
    CHECK(info.has_end_marker);
    CHECK(gp::io::jpeg_decoded_bytes(info, 3) == std::size_t(info.width) * info.height * 3);
  }
}

TEST_CASE("Progressive JPEG: flagged by the header parse, decoded like baseline", "[io][jpeg]") {
  const TestImage rgb(250, 170, 3);
  gp::io::JpegEncodeOptions options;
  const std::vector<std::uint8_t> baseline = gp::io::encode_jpeg(rgb.view, options, "baseline.jpg");
  options.progressive = true;
  const std::vector<std::uint8_t> progressive = gp::io::encode_jpeg(rgb.view, options, "progressive.jpg");
  CHECK_FALSE(gp::io::jpeg_info(baseline, "baseline.jpg").progressive);
  const gp::io::JpegInfo info = gp::io::jpeg_info(progressive, "progressive.jpg");
  CHECK(info.progressive);
  CHECK(info.has_end_marker);
  Canvas a(250, 170, 3), b(250, 170, 3);
  gp::io::decode_jpeg(baseline.data(), baseline.size(), a.view, "baseline.jpg");
  gp::io::decode_jpeg(progressive.data(), progressive.size(), b.view, "progressive.jpg");
  CHECK(a.bytes == b.bytes);  // same coefficients, only ordered differently in the file
  // The codec that wrote a progressive file writes baseline ones again (libjpeg-turbo 2.1 did not).
  CHECK(gp::io::encode_jpeg(rgb.view, {}, "again.jpg") == baseline);
}

TEST_CASE("JPEG subsampling names from the config", "[io][jpeg]") {
  CHECK(gp::io::parse_chroma_subsampling("420") == ChromaSubsampling::s420);
  CHECK(gp::io::parse_chroma_subsampling("4:4:4") == ChromaSubsampling::s444);
  CHECK(gp::io::parse_chroma_subsampling("422") == ChromaSubsampling::s422);
  CHECK_THROWS_AS(gp::io::parse_chroma_subsampling("411"), gp::UsageError);
}

TEST_CASE("Truncated and corrupt JPEGs are item errors naming the file", "[io][jpeg]") {
  const TestImage rgb(320, 240, 3);
  const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(rgb.view, {}, "good.jpg");
  Canvas out(320, 240, 3);

  SECTION("cut in the image data") {
    const std::vector<std::uint8_t> cut(jpeg.begin(), jpeg.begin() + std::ptrdiff_t(jpeg.size() * 2 / 3));
    const gp::io::JpegInfo info = gp::io::jpeg_info(cut, "cut.jpg");  // the header is whole
    CHECK(info.width == 320);
    CHECK_FALSE(info.has_end_marker);
    const gp::ItemError e = item_error_of([&] { gp::io::decode_jpeg(cut.data(), cut.size(), out.view, "cut.jpg"); });
    CHECK(e.file() == "cut.jpg");
    CHECK(e.stage() == "decode");
    CHECK_THAT(e.what(), Catch::Contains("cut.jpg") && Catch::Contains("Premature end"));
    // Not strict: libjpeg-turbo's recovery (the missing part grey) is accepted.
    gp::io::JpegDecodeOptions lenient;
    lenient.strict = false;
    CHECK_NOTHROW(gp::io::decode_jpeg(cut.data(), cut.size(), out.view, "cut.jpg", lenient));
  }
  SECTION("only the end-of-image marker missing") {
    const std::vector<std::uint8_t> cut(jpeg.begin(), jpeg.end() - 2);
    CHECK_FALSE(gp::io::jpeg_info(cut, "no-eoi.jpg").has_end_marker);
    const gp::ItemError e = item_error_of([&] { gp::io::decode_jpeg(cut.data(), cut.size(), out.view, "no-eoi.jpg"); });
    CHECK(e.file() == "no-eoi.jpg");
  }
  SECTION("cut in the header") {
    const std::vector<std::uint8_t> cut(jpeg.begin(), jpeg.begin() + 100);
    const gp::ItemError info_error = item_error_of([&] { gp::io::jpeg_info(cut, "header.jpg"); });
    CHECK(info_error.file() == "header.jpg");
    CHECK_THAT(info_error.what(), Catch::Contains("truncated"));
    const gp::ItemError e = item_error_of([&] { gp::io::decode_jpeg(cut.data(), cut.size(), out.view, "header.jpg"); });
    CHECK(e.file() == "header.jpg");
  }
  SECTION("not a JPEG") {
    const std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13};
    CHECK_THAT(item_error_of([&] { gp::io::jpeg_info(png, "image.png"); }).what(),
               Catch::Contains("image.png") && Catch::Contains("not a JPEG"));
    CHECK(item_error_of([&] { gp::io::decode_jpeg(png.data(), png.size(), out.view, "image.png"); }).file() ==
          "image.png");
    CHECK(item_error_of([&] { gp::io::decode_jpeg(png.data(), 0, out.view, "empty.jpg"); }).file() == "empty.jpg");
  }
  SECTION("a broken marker in the header") {
    std::vector<std::uint8_t> bad = jpeg;
    bad[2] = 0x12;  // where APP0's marker starts
    CHECK_THAT(item_error_of([&] { gp::io::jpeg_info(bad, "marker.jpg"); }).what(), Catch::Contains("corrupt"));
    CHECK(item_error_of([&] { gp::io::decode_jpeg(bad.data(), bad.size(), out.view, "marker.jpg"); }).file() ==
          "marker.jpg");
  }
  SECTION("garbage in the image data") {
    std::vector<std::uint8_t> bad = jpeg;
    const gp::io::JpegInfo info = gp::io::jpeg_info(bad, "garbage.jpg");
    CHECK(info.has_end_marker);
    for (std::size_t i = bad.size() / 2; i < bad.size() / 2 + 64; ++i) bad[i] = 0xFF;  // invalid byte stuffing
    const gp::ItemError e = item_error_of([&] { gp::io::decode_jpeg(bad.data(), bad.size(), out.view, "garbage.jpg"); });
    CHECK(e.file() == "garbage.jpg");
    CHECK(e.stage() == "decode");
  }
  SECTION("a size other than the output's") {
    Canvas wrong(240, 320, 3);
    CHECK_THAT(item_error_of([&] { gp::io::decode_jpeg(jpeg.data(), jpeg.size(), wrong.view, "size.jpg"); }).what(),
               Catch::Contains("320x240") && Catch::Contains("240x320"));
  }
}

TEST_CASE("JPEG codecs on several threads give the same bytes", "[io][jpeg]") {
  const TestImage rgb(200, 150, 3);
  const std::vector<std::uint8_t> reference = gp::io::encode_jpeg(rgb.view, {}, "ref.jpg");
  std::vector<std::vector<std::uint8_t>> encoded(4);
  std::vector<double> decoded_psnr(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) encoded[t] = gp::io::encode_jpeg(rgb.view, {}, "t.jpg");
      Canvas out(200, 150, 3);
      gp::io::decode_jpeg(encoded[t].data(), encoded[t].size(), out.view, "t.jpg");
      decoded_psnr[t] = psnr(rgb.view, out.view);
    });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    CHECK(encoded[t] == reference);
    CHECK(decoded_psnr[t] > 34.0);
  }
}

namespace {

// A reader for what exif_app1_segment writes: the tags of IFD0 and of the Exif IFD.
struct TiffTag {
  std::uint16_t type = 0;
  std::uint32_t count = 0;
  std::vector<std::uint8_t> value;
};
using TiffTags = std::map<std::uint16_t, TiffTag>;

std::uint32_t le16(const std::uint8_t* p) { return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8; }
std::uint32_t le32(const std::uint8_t* p) { return le16(p) | le16(p + 2) << 16; }

TiffTags read_ifd(const std::vector<std::uint8_t>& tiff, std::uint32_t offset) {
  static const std::map<std::uint16_t, std::uint32_t> type_bytes = {{2, 1}, {3, 2}, {4, 4}, {5, 8}, {7, 1}};
  REQUIRE(offset % 2 == 0);
  REQUIRE(offset + 2 <= tiff.size());
  const std::uint32_t n = le16(&tiff[offset]);
  REQUIRE(offset + 2 + 12 * n + 4 <= tiff.size());
  CHECK(le32(&tiff[offset + 2 + 12 * n]) == 0);  // no next IFD
  TiffTags tags;
  std::uint16_t previous = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint8_t* e = &tiff[offset + 2 + 12 * i];
    const std::uint16_t tag = std::uint16_t(le16(e));
    CHECK(tag > previous);  // sorted, as TIFF requires
    previous = tag;
    TiffTag t;
    t.type = std::uint16_t(le16(e + 2));
    t.count = le32(e + 4);
    REQUIRE(type_bytes.count(t.type));
    const std::uint32_t bytes = type_bytes.at(t.type) * t.count;
    std::uint32_t at = offset + 2 + 12 * i + 8;
    if (bytes > 4) {
      at = le32(e + 8);
      CHECK(at % 2 == 0);
    }
    REQUIRE(at + bytes <= tiff.size());
    t.value.assign(tiff.begin() + at, tiff.begin() + at + bytes);
    tags[tag] = t;
  }
  return tags;
}

// IFD0 and Exif IFD tags of the first APP1 Exif segment of a JPEG.
std::pair<TiffTags, TiffTags> read_exif(const std::vector<std::uint8_t>& jpeg) {
  std::size_t pos = 2;
  while (pos + 4 <= jpeg.size() && !(jpeg[pos] == 0xFF && jpeg[pos + 1] == 0xE1)) pos += 2 + (std::size_t(jpeg[pos + 2]) << 8 | jpeg[pos + 3]);
  REQUIRE(pos + 10 <= jpeg.size());
  const std::size_t length = std::size_t(jpeg[pos + 2]) << 8 | jpeg[pos + 3];
  REQUIRE(std::memcmp(&jpeg[pos + 4], "Exif\0\0", 6) == 0);
  const std::vector<std::uint8_t> tiff(jpeg.begin() + std::ptrdiff_t(pos + 10), jpeg.begin() + std::ptrdiff_t(pos + 2 + length));
  REQUIRE(tiff.size() >= 8);
  REQUIRE(std::memcmp(tiff.data(), "II*\0", 4) == 0);
  TiffTags ifd0 = read_ifd(tiff, le32(&tiff[4]));
  REQUIRE(ifd0.count(0x8769));
  TiffTags exif = read_ifd(tiff, le32(ifd0.at(0x8769).value.data()));
  return {ifd0, exif};
}

}  // namespace

TEST_CASE("Exif block with the focal lengths reads back", "[io][jpeg][exif]") {
  gp::io::ExifFields fields;
  fields.focal_length_mm = 12.345;
  fields.focal_length_35mm = 18;
  fields.pixel_width = 320;
  fields.pixel_height = 240;
  fields.image_description = "view 3 of 8: yaw 135 pitch 0";
  fields.software = "gpuproc stitch-360";

  const TestImage rgb(320, 240, 3);
  std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(rgb.view, {}, "view.jpg");
  const std::vector<std::uint8_t> plain = jpeg;
  gp::io::insert_exif(jpeg, fields);
  CHECK(jpeg.size() == plain.size() + gp::io::exif_app1_segment(fields).size());
  // TurboJPEG writes JFIF APP0; the Exif block follows it.
  REQUIRE(jpeg[2] == 0xFF);
  REQUIRE(jpeg[3] == 0xE0);
  const std::size_t after_app0 = 4 + (std::size_t(jpeg[4]) << 8 | jpeg[5]);
  CHECK(jpeg[after_app0] == 0xFF);
  CHECK(jpeg[after_app0 + 1] == 0xE1);

  SECTION("our TIFF walk") {
    const auto [ifd0, exif] = read_exif(jpeg);
    CHECK(std::string(ifd0.at(0x010E).value.begin(), ifd0.at(0x010E).value.end() - 1) == fields.image_description);
    CHECK(ifd0.at(0x010E).value.back() == 0);
    CHECK(std::string(ifd0.at(0x0131).value.begin(), ifd0.at(0x0131).value.end() - 1) == fields.software);
    CHECK(ifd0.at(0x0128).type == 3);
    CHECK(le16(ifd0.at(0x0213).value.data()) == 1);
    const TiffTag& focal = exif.at(0x920A);
    CHECK(focal.type == 5);
    CHECK(double(le32(focal.value.data())) / le32(focal.value.data() + 4) == Approx(12.345).epsilon(1e-9));
    CHECK(exif.at(0xA405).type == 3);
    CHECK(le16(exif.at(0xA405).value.data()) == 18);
    CHECK(exif.at(0xA002).type == 4);
    CHECK(le32(exif.at(0xA002).value.data()) == 320);
    CHECK(le32(exif.at(0xA003).value.data()) == 240);
    CHECK(std::string(exif.at(0x9000).value.begin(), exif.at(0x9000).value.end()) == "0232");
    CHECK(le16(exif.at(0xA001).value.data()) == 1);
  }
  SECTION("OpenImageIO") {
    const std::string path = temp_file("view.jpg", jpeg);
    auto in = OIIO::ImageInput::open(path);
    REQUIRE(in);
    const OIIO::ImageSpec& spec = in->spec();
    CHECK(spec.width == 320);
    CHECK(spec.get_float_attribute("Exif:FocalLength") == Approx(12.345f));
    CHECK(spec.get_int_attribute("Exif:FocalLengthIn35mmFilm") == 18);
    CHECK(spec.get_int_attribute("Exif:PixelXDimension") == 320);
    CHECK(spec.get_int_attribute("Exif:PixelYDimension") == 240);
    CHECK(spec.get_string_attribute("ImageDescription") == fields.image_description);
    CHECK(spec.get_string_attribute("Software") == fields.software);
  }
  SECTION("the image is untouched") {
    Canvas a(320, 240, 3), b(320, 240, 3);
    gp::io::decode_jpeg(plain.data(), plain.size(), a.view, "plain.jpg");
    gp::io::decode_jpeg(jpeg.data(), jpeg.size(), b.view, "view.jpg");
    CHECK(a.bytes == b.bytes);
    CHECK(gp::io::jpeg_info(jpeg, "view.jpg").width == 320);
  }
  SECTION("one Exif block only") {
    CHECK_THROWS_AS(gp::io::insert_exif(jpeg, fields), gp::Error);
  }
}

TEST_CASE("Exif block without optional fields, and limits", "[io][jpeg][exif]") {
  gp::io::ExifFields fields;
  fields.focal_length_mm = 4.5;  // nothing else
  const std::vector<std::uint8_t> segment = gp::io::exif_app1_segment(fields);
  std::vector<std::uint8_t> jpeg = {0xFF, 0xD8, 0xFF, 0xD9};  // no JFIF: right after SOI
  gp::io::insert_jpeg_segment(jpeg, segment);
  CHECK(jpeg[2] == 0xFF);
  CHECK(jpeg[3] == 0xE1);
  const auto [ifd0, exif] = read_exif(jpeg);
  CHECK_FALSE(ifd0.count(0x010E));
  CHECK_FALSE(ifd0.count(0x0131));
  CHECK_FALSE(exif.count(0xA405));
  CHECK_FALSE(exif.count(0xA002));
  CHECK(double(le32(exif.at(0x920A).value.data())) / le32(exif.at(0x920A).value.data() + 4) == 4.5);

  fields.image_description.assign(70000, 'x');
  CHECK_THROWS_AS(gp::io::exif_app1_segment(fields), gp::Error);
  std::vector<std::uint8_t> not_jpeg = {1, 2, 3, 4};
  CHECK_THROWS_AS(gp::io::insert_jpeg_segment(not_jpeg, segment), gp::Error);
}
