// labels.nrrd and the PNG quick-look (see network_writers.hpp).
#include <libdeflate.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/outputs.hpp"
#include "io/png_encoder.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/text_output.hpp"

namespace gp::pnm {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "NRRD volumes are written from memory as little-endian");

std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// gzip of one chunk. Labels compress well: a first try with an eighth of the input's size saves
// allocating libdeflate's full bound (larger than the input).
std::vector<std::uint8_t> gzip_member(const std::uint8_t* data, std::size_t bytes, int level, const std::string& path) {
  std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> compressor(libdeflate_alloc_compressor(level),
                                                                                      libdeflate_free_compressor);
  if (!compressor) throw ItemError(path, "write", "cannot create a gzip compressor at level " + std::to_string(level));
  std::vector<std::uint8_t> out;
  const std::size_t bound = libdeflate_gzip_compress_bound(compressor.get(), bytes);
  for (std::size_t capacity : {std::min(bound, bytes / 8 + 65536), bound}) {
    out.resize(capacity);
    const std::size_t n = libdeflate_gzip_compress(compressor.get(), data, bytes, out.data(), out.size());
    if (n > 0) {
      out.resize(n);
      return out;
    }
  }
  throw ItemError(path, "write", "gzip compression failed");
}

// gzip of a volume as consecutive gzip members of 16 MiB of input each, compressed on all cores
// (one stream took 30 s for a 1024^3 label volume). A multi-member file is one valid gzip stream
// to zlib, teem/ITK (3D Slicer, ParaView) and Python's gzip module.
std::vector<std::vector<std::uint8_t>> gzip_members(const void* data, std::size_t bytes, int level,
                                                    const std::string& path) {
  constexpr std::size_t member_bytes = std::size_t(16) << 20;
  const std::size_t count = std::max<std::size_t>(1, (bytes + member_bytes - 1) / member_bytes);
  std::vector<std::vector<std::uint8_t>> members(count);
  const auto* bytes_in = static_cast<const std::uint8_t*>(data);
  parallel_for(long(count), [&](long first, long last) {
    for (long m = first; m < last; ++m) {
      const std::size_t begin = std::size_t(m) * member_bytes;
      members[m] = gzip_member(bytes_in + begin, std::min(member_bytes, bytes - begin), level, path);
    }
  }, 1);
  return members;
}

// Colour of a label: a hue from a hash of the label, saturated and bright.
void label_colour(std::uint32_t label, float rgb[3]) {
  const std::uint32_t h = label * 2654435761u;
  const float hue = float((h >> 8) % 3600u) / 600.0f;  // 0..6
  const float s = 0.8f, v = 1.0f;
  const int sector = int(hue);
  const float f = hue - float(sector), p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const float table[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  for (int c = 0; c < 3; ++c) rgb[c] = 255.0f * table[sector % 6][c];
}

// One mid slice: panel pixel (u, v) shows voxel (x, y, z) of the slice.
struct Panel {
  int axis_u, axis_v;  // volume axes along the panel's columns and rows
  int fixed_axis, fixed;
  int width = 0, height = 0;
};

}  // namespace

void write_volume_nrrd(const std::string& path, const void* data, const NrrdType& type, const LabelVolumeInfo& info,
                       const std::string& comment, int level) {
  const io::Dims3& d = info.dims;
  if (d.nx <= 0 || d.ny <= 0 || d.nz <= 0 || data == nullptr) throw ItemError(path, "write", "empty volume");
  const auto members = gzip_members(data, d.voxels() * type.bytes, level, path);
  const io::Spacing3& s = info.spacing;
  std::string header = "NRRD0004\n# " + comment + "\n";
  header += std::string("type: ") + type.name + "\ndimension: 3\n";
  header += info.lps ? "space: left-posterior-superior\n" : "space dimension: 3\n";
  header += "sizes: " + std::to_string(d.nx) + " " + std::to_string(d.ny) + " " + std::to_string(d.nz) + "\n";
  header += "space directions:";
  const double steps[3] = {s.x, s.y, s.z};
  for (int a = 0; a < 3; ++a) {
    header += " (";
    for (int c = 0; c < 3; ++c) {
      const double v = steps[a] * info.direction[a][c];
      header += (c ? "," : "") + shortest(v == 0 ? 0.0 : v);  // no "-0"
    }
    header += ")";
  }
  header += "\n";
  header += "kinds: domain domain domain\nendian: little\nencoding: gzip\n";
  header += "space origin: (" + shortest(info.origin[0]) + "," + shortest(info.origin[1]) + "," + shortest(info.origin[2]) + ")\n\n";
  write_atomically(path, [&](const std::string& temp) {
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (f == nullptr) throw ItemError(path, "write", "cannot create");
    bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
    for (const auto& m : members) ok = ok && std::fwrite(m.data(), 1, m.size(), f) == m.size();
    if (std::fclose(f) != 0 || !ok) throw ItemError(path, "write", "cannot write");
  });
}

void write_labels_nrrd(const std::string& path, const std::uint32_t* labels, const LabelVolumeInfo& info, int level) {
  write_volume_nrrd(path, labels, nrrd_type<std::uint32_t>(), info,
                    "gpuproc segment-pnm pore labels: 0 = solid or unassigned, 1..N = pores", level);
}

RgbImage render_quicklook(const io::Volume& grey, const std::uint32_t* labels) {
  const io::Dims3& d = grey.dims;
  if (d.nx <= 0 || d.ny <= 0 || d.nz <= 0 || grey.values.size() != d.voxels() || labels == nullptr)
    throw Error("render_quicklook: empty or inconsistent volume");
  const int n[3] = {d.nx, d.ny, d.nz};
  const double s[3] = {grey.spacing.x, grey.spacing.y, grey.spacing.z};
  Panel panels[3] = {{0, 1, 2, d.nz / 2}, {0, 2, 1, d.ny / 2}, {1, 2, 0, d.nx / 2}};

  // One physical pixel size for all panels; longest side 256..1024 pixels.
  const double s_min = std::min({s[0], s[1], s[2]});
  const double longest = std::max({n[0] * s[0], n[1] * s[1], n[2] * s[2]});
  const double longest_px = longest / s_min;
  const double pixel = longest / std::clamp(longest_px, 256.0, 1024.0);
  for (Panel& p : panels) {
    p.width = std::max(1, int(std::lround(n[p.axis_u] * s[p.axis_u] / pixel)));
    p.height = std::max(1, int(std::lround(n[p.axis_v] * s[p.axis_v] / pixel)));
  }
  auto voxel_of = [&](const Panel& p, int u, int v) {
    int c[3];
    c[p.fixed_axis] = p.fixed;
    c[p.axis_u] = std::min(n[p.axis_u] - 1, int((u + 0.5) * pixel / s[p.axis_u]));
    c[p.axis_v] = std::min(n[p.axis_v] - 1, int((v + 0.5) * pixel / s[p.axis_v]));
    return grey.index(c[0], c[1], c[2]);
  };

  // Window: 0.5 and 99.5 percentiles of the three slices' voxels.
  std::vector<float> sample;
  for (const Panel& p : panels)
    for (int b = 0; b < n[p.axis_v]; ++b)
      for (int a = 0; a < n[p.axis_u]; ++a) {
        int c[3];
        c[p.fixed_axis] = p.fixed;
        c[p.axis_u] = a;
        c[p.axis_v] = b;
        const float g = grey.at(c[0], c[1], c[2]);
        if (std::isfinite(g)) sample.push_back(g);
      }
  float lo = 0, hi = 1;
  if (!sample.empty()) {
    auto at_fraction = [&](double q) {
      auto it = sample.begin() + std::ptrdiff_t(q * double(sample.size() - 1));
      std::nth_element(sample.begin(), it, sample.end());
      return *it;
    };
    lo = at_fraction(0.005);
    hi = at_fraction(0.995);
    if (!(hi > lo)) hi = lo + 1;
  }

  constexpr int kGap = 4;
  constexpr float kAlpha = 0.4f;
  RgbImage img;
  img.width = panels[0].width + panels[1].width + panels[2].width + 2 * kGap;
  img.height = std::max({panels[0].height, panels[1].height, panels[2].height});
  img.rgb.assign(std::size_t(img.width) * std::size_t(img.height) * 3, 0);
  int left = 0;
  for (const Panel& p : panels) {
    for (int v = 0; v < p.height; ++v)
      for (int u = 0; u < p.width; ++u) {
        const std::size_t i = voxel_of(p, u, v);
        const std::uint32_t label = labels[i];
        const bool edge = (u + 1 < p.width && labels[voxel_of(p, u + 1, v)] != label) ||
                          (v + 1 < p.height && labels[voxel_of(p, u, v + 1)] != label);
        std::uint8_t* px = &img.rgb[(std::size_t(v) * std::size_t(img.width) + std::size_t(left + u)) * 3];
        if (edge) continue;  // black
        const float g = grey.values[i];
        const float level = std::isfinite(g) ? 255.0f * std::clamp((g - lo) / (hi - lo), 0.0f, 1.0f) : 0.0f;
        float colour[3] = {level, level, level};
        if (label != 0) {
          float tint[3];
          label_colour(label, tint);
          for (int c = 0; c < 3; ++c) colour[c] = (1 - kAlpha) * level + kAlpha * tint[c];
        }
        for (int c = 0; c < 3; ++c) px[c] = std::uint8_t(std::lround(std::clamp(colour[c], 0.0f, 255.0f)));
      }
    left += p.width + kGap;
  }
  return img;
}

void write_quicklook_png(const std::string& path, const io::Volume& grey, const std::uint32_t* labels) {
  RgbImage img = render_quicklook(grey, labels);
  const ImageView view = packed_view(img.rgb.data(), img.width, img.height, 3, PixelType::u8);
  write_atomically(path, [&](const std::string& temp) { io::write_png(temp, view, 6); });
}

}  // namespace gp::pnm
