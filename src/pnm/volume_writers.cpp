// labels.nrrd and the PNG quick-look (see network_writers.hpp).
#include <libdeflate.h>

#include <algorithm>
#include <optional>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/outputs.hpp"
#include "core/trace.hpp"
#include "io/png_encoder.hpp"
#include "pnm/network_writers.hpp"
#include "pnm/output_file.hpp"

namespace gp::pnm {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "NRRD volumes are written from memory as little-endian");

std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::unique_ptr<std::uint8_t[]> uninitialised(std::size_t bytes) {
  return std::unique_ptr<std::uint8_t[]>(new std::uint8_t[bytes]);  // pages stay untouched until used
}

// The volume's data after the header, slab by slab: slab k is produced (source) and, for gzip,
// compressed into a gzip member of its own, on all cores; members are appended in order. At most
// `window` slabs are in flight, so memory stays a few slabs per core whatever the volume's size.
// A multi-member file is one valid gzip stream to zlib, teem/ITK (3D Slicer, ParaView), pynrrd
// and Python's gzip module. Raw slabs go straight to their place in the file.
void write_slabs(OutputFile& file, std::uint64_t header_bytes, const io::Dims3& d, std::size_t sample_bytes,
                 const VolumeEncoding& encoding, const SlabSource& source, const std::string& path) {
  const std::size_t slice_bytes = std::size_t(d.nx) * std::size_t(d.ny) * sample_bytes;
  // Slabs of 16 MiB (the default) make many members per core for a large volume, so all cores
  // stay busy to the end.
  const int depth = int(std::clamp<std::size_t>(encoding.slab_bytes / slice_bytes, 1, std::size_t(d.nz)));
  const long count = (d.nz + depth - 1) / depth;
  const long workers = std::min<long>(long(cpu_thread_count()), count);
  const long window = 2 * workers;
  const std::size_t slab_bytes = slice_bytes * std::size_t(depth);

  struct Member {
    std::unique_ptr<std::uint8_t[]> data;
    std::size_t capacity = 0, size = 0;
    bool ready = false;
  };
  std::vector<Member> members(encoding.gzip ? std::size_t(window) : 0);
  std::mutex mutex;
  std::condition_variable slot_free;
  long next_slab = 0, next_append = 0;
  bool appending = false, failed = false;
  std::uint64_t end_offset = header_bytes;

  parallel_for(workers, [&](long, long) {
    try {
      std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> compressor(
          encoding.gzip ? libdeflate_alloc_compressor(encoding.gzip_level) : nullptr, libdeflate_free_compressor);
      if (encoding.gzip && !compressor)
        throw ItemError(path, "write", "cannot create a gzip compressor at level " + std::to_string(encoding.gzip_level));
      std::unique_ptr<std::uint8_t[]> scratch;
      for (;;) {
        long k;
        {
          std::unique_lock<std::mutex> lock(mutex);
          slot_free.wait(lock, [&] { return failed || next_slab >= count || !encoding.gzip || next_slab < next_append + window; });
          if (failed || next_slab >= count) return;
          k = next_slab++;
        }
        const int z = int(k) * depth, slices = std::min(depth, d.nz - z);
        const std::size_t bytes = slice_bytes * std::size_t(slices);
        if (!scratch) scratch = uninitialised(slab_bytes);
        const void* data = source(z, slices, scratch.get());
        if (!encoding.gzip) {
          file.write_at(data, bytes, header_bytes + std::uint64_t(z) * slice_bytes);
          continue;
        }
        Member& m = members[std::size_t(k % window)];
        const std::size_t bound = libdeflate_gzip_compress_bound(compressor.get(), bytes);
        if (m.capacity < bound) m.data = uninitialised(m.capacity = bound);
        m.size = libdeflate_gzip_compress(compressor.get(), data, bytes, m.data.get(), m.capacity);
        if (m.size == 0) throw ItemError(path, "write", "gzip compression failed");
        // Append every finished member that is next in line; one thread appends at a time.
        std::unique_lock<std::mutex> lock(mutex);
        m.ready = true;
        while (!appending && next_append < count && members[std::size_t(next_append % window)].ready) {
          Member& next = members[std::size_t(next_append % window)];
          appending = true;
          lock.unlock();
          try {
            file.write_at(next.data.get(), next.size, end_offset);
          } catch (...) {
            lock.lock();
            appending = false;
            throw;
          }
          lock.lock();
          end_offset += next.size;
          next.ready = false;
          appending = false;
          ++next_append;
          slot_free.notify_all();
        }
      }
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        failed = true;
      }
      slot_free.notify_all();
      throw;
    }
  }, 1);
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

std::string nrrd_header(const NrrdType& type, const LabelVolumeInfo& info, const std::string& comment,
                        const VolumeEncoding& encoding) {
  const io::Dims3& d = info.dims;
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
  header += std::string("kinds: domain domain domain\nendian: little\nencoding: ") + (encoding.gzip ? "gzip" : "raw") + "\n";
  header += "space origin: (" + shortest(info.origin[0]) + "," + shortest(info.origin[1]) + "," + shortest(info.origin[2]) + ")\n\n";
  return header;
}

}  // namespace

void write_volume_nrrd(const std::string& path, const NrrdType& type, const LabelVolumeInfo& info, const std::string& comment,
                       const VolumeEncoding& encoding, const SlabSource& source) {
  const io::Dims3& d = info.dims;
  if (d.nx <= 0 || d.ny <= 0 || d.nz <= 0 || !source) throw ItemError(path, "write", "empty volume");
  if (encoding.gzip && (encoding.gzip_level < 1 || encoding.gzip_level > 12))
    throw ItemError(path, "write", "gzip level " + std::to_string(encoding.gzip_level) + " is not in 1..12");
  const std::string header = nrrd_header(type, info, comment, encoding);
  write_atomically(path, [&](const std::string& temp) {
    OutputFile file(temp, path);
    file.write_at(header.data(), header.size(), 0);
    write_slabs(file, header.size(), d, type.bytes, encoding, source, path);
    file.close();
  });
}

void write_volume_nrrd(const std::string& path, const void* data, const NrrdType& type, const LabelVolumeInfo& info,
                       const std::string& comment, const VolumeEncoding& encoding) {
  if (data == nullptr) throw ItemError(path, "write", "empty volume");
  const std::size_t slice_bytes = std::size_t(info.dims.nx) * std::size_t(info.dims.ny) * type.bytes;
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  write_volume_nrrd(path, type, info, comment, encoding,
                    [&](int z, int, void*) -> const void* { return bytes + std::size_t(z) * slice_bytes; });
}

NrrdType labels_nrrd_type(std::uint64_t max_label, LabelsType type) {
  if (type == LabelsType::uint32 || max_label > 0xffff) return nrrd_type<std::uint32_t>();
  return max_label > 0xff ? nrrd_type<std::uint16_t>() : nrrd_type<std::uint8_t>();
}

namespace {

// The uint32 labels of `slices` slices from z: where they already are, or `room` (space for
// them) after reading them there.
using LabelSlabs = std::function<const std::uint32_t*(int z, int slices, std::uint32_t* room)>;

// Labels narrowed to T slab by slab; a label that does not fit T is an error, not a wrap.
// `read_into_room`: the labels are read into the room rather than found in memory.
template <class T>
SlabSource narrowed_labels(LabelSlabs labels, std::size_t slice_voxels, const std::string& path, bool read_into_room) {
  return [=](int z, int slices, void* scratch) -> const void* {
    if constexpr (sizeof(T) == sizeof(std::uint32_t)) {
      return labels(z, slices, static_cast<std::uint32_t*>(scratch));  // the scratch has room for the slab
    } else {
      const std::size_t n = std::size_t(slices) * slice_voxels;
      std::vector<std::uint32_t> room(read_into_room ? n : 0);
      const std::uint32_t* in = labels(z, slices, room.data());
      T* out = static_cast<T*>(scratch);
      std::uint32_t high = 0;
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = T(in[i]);
        high |= in[i];
      }
      if (high >> (8 * sizeof(T)) != 0)
        throw ItemError(path, "write", "a label does not fit the " + std::to_string(8 * sizeof(T)) + "-bit labels");
      return out;
    }
  };
}

void write_labels(const std::string& path, const LabelSlabs& labels, bool read_into_room, const LabelVolumeInfo& info,
                  std::uint64_t max_label, const VolumeEncoding& encoding, LabelsType type) {
  const NrrdType t = labels_nrrd_type(max_label, type);
  const std::size_t slice_voxels = std::size_t(info.dims.nx) * std::size_t(info.dims.ny);
  const SlabSource source = t.bytes == 1   ? narrowed_labels<std::uint8_t>(labels, slice_voxels, path, read_into_room)
                            : t.bytes == 2 ? narrowed_labels<std::uint16_t>(labels, slice_voxels, path, read_into_room)
                                           : narrowed_labels<std::uint32_t>(labels, slice_voxels, path, read_into_room);
  write_volume_nrrd(path, t, info, "gpuproc segment-pnm pore labels: 0 = solid or unassigned, 1..N = pores", encoding,
                    source);
}

}  // namespace

void write_labels_nrrd(const std::string& path, const std::uint32_t* labels, const LabelVolumeInfo& info,
                       std::uint64_t max_label, const VolumeEncoding& encoding, LabelsType type) {
  if (labels == nullptr) throw ItemError(path, "write", "empty volume");
  const std::size_t slice_voxels = std::size_t(info.dims.nx) * std::size_t(info.dims.ny);
  write_labels(path, [=](int z, int, std::uint32_t*) { return labels + std::size_t(z) * slice_voxels; }, false, info,
               max_label, encoding, type);
}

void write_labels_nrrd(const std::string& path, const VolumeStore<std::uint32_t>& labels, const LabelVolumeInfo& info,
                       std::uint64_t max_label, const VolumeEncoding& encoding, LabelsType type,
                       MidSlices<std::uint32_t>* mid_slices) {
  if (labels.empty()) throw ItemError(path, "write", "empty volume");
  if (const std::uint32_t* resident = labels.resident()) {
    if (mid_slices) *mid_slices = MidSlices<std::uint32_t>::gather(labels);  // from memory: no second pass to save
    return write_labels_nrrd(path, resident, info, max_label, encoding, type);
  }
  if (mid_slices) *mid_slices = MidSlices<std::uint32_t>::sized(labels.dims());
  const std::size_t plane = labels.dims().slice_voxels();
  write_labels(path, [&](int z, int slices, std::uint32_t* room) -> const std::uint32_t* {
    labels.read_slices(z, z + slices, room);
    if (mid_slices)
      for (int k = 0; k < slices; ++k) mid_slices->take(z + k, room + std::size_t(k) * plane);
    return room;
  }, true, info, max_label, encoding, type);
}

template <class T>
MidSlices<T> MidSlices<T>::sized(const io::Dims3& d) {
  MidSlices<T> m;
  m.dims = d;
  m.planes[0].resize(d.slice_voxels());
  m.planes[1].resize(std::size_t(d.nx) * d.nz);
  m.planes[2].resize(std::size_t(d.ny) * d.nz);
  return m;
}

template <class T>
void MidSlices<T>::take(int z, const T* slice) {
  const io::Dims3& d = dims;
  if (z == d.nz / 2) std::copy_n(slice, d.slice_voxels(), planes[0].data());
  std::copy_n(slice + std::size_t(d.ny / 2) * d.nx, d.nx, planes[1].data() + std::size_t(z) * d.nx);
  for (int y = 0; y < d.ny; ++y) planes[2][std::size_t(z) * d.ny + y] = slice[std::size_t(y) * d.nx + d.nx / 2];
}

template <class T>
MidSlices<T> MidSlices<T>::gather(const VolumeStore<T>& volume) {
  const io::Dims3& d = volume.dims();
  MidSlices<T> m = sized(d);
  const std::size_t plane = d.slice_voxels();
  if (const T* data = volume.resident()) {
    for (int z = 0; z < d.nz; ++z) m.take(z, data + std::size_t(z) * plane);
    return m;
  }
  // A pass over the whole volume a few slices at a time (a scratch file or the input file). An
  // input file's reads spread each call's slices over the reading threads: a slice for each of
  // them per call (up to 256 MiB), else most would wait.
  const std::size_t slice_bytes = plane * sizeof(T);
  const std::size_t chunk_bytes = std::clamp<std::size_t>(cpu_thread_count() * slice_bytes, std::size_t(64) << 20,
                                                          std::size_t(256) << 20);
  const int chunk = int(std::max<std::size_t>(1, chunk_bytes / slice_bytes));
  std::vector<T> slices(std::size_t(std::min(chunk, d.nz)) * plane);
  for (int z0 = 0; z0 < d.nz; z0 += chunk) {
    const int z1 = std::min(d.nz, z0 + chunk);
    volume.read_slices(z0, z1, slices.data());
    for (int z = z0; z < z1; ++z) m.take(z, slices.data() + std::size_t(z - z0) * plane);
  }
  return m;
}
template struct MidSlices<float>;
template struct MidSlices<std::uint32_t>;

RgbImage render_quicklook(const io::Volume& grey, const std::uint32_t* labels) {
  const io::Dims3& d = grey.dims;
  if (d.nx <= 0 || d.ny <= 0 || d.nz <= 0 || grey.values.size() != d.voxels() || labels == nullptr)
    throw Error("render_quicklook: empty or inconsistent volume");
  return render_quicklook(MidSlices<float>::gather(VolumeStore<float>::borrow(grey.values.data(), d)),
                          MidSlices<std::uint32_t>::gather(VolumeStore<std::uint32_t>::borrow(labels, d)), grey.spacing);
}

RgbImage render_quicklook(const MidSlices<float>& grey, const MidSlices<std::uint32_t>& labels, const io::Spacing3& spacing) {
  const io::Dims3& d = grey.dims;
  if (d.nx <= 0 || d.ny <= 0 || d.nz <= 0 || !(labels.dims == d)) throw Error("render_quicklook: empty or inconsistent volume");
  const int n[3] = {d.nx, d.ny, d.nz};
  const double s[3] = {spacing.x, spacing.y, spacing.z};
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
    return std::size_t(c[p.axis_v]) * std::size_t(n[p.axis_u]) + std::size_t(c[p.axis_u]);  // in the panel's plane
  };

  // Window: 0.5 and 99.5 percentiles of the three slices' voxels.
  std::vector<float> sample;
  for (const auto& plane : grey.planes)
    for (const float g : plane)
      if (std::isfinite(g)) sample.push_back(g);
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
  for (int k = 0; k < 3; ++k) {
    const Panel& p = panels[k];
    const std::uint32_t* plane_labels = labels.planes[k].data();
    const float* plane_grey = grey.planes[k].data();
    // Rows on all cores: the slices' voxels are far apart in memory (cache misses, not arithmetic).
    parallel_for(p.height, [&](long first, long last) {
      for (int v = int(first); v < int(last); ++v)
        for (int u = 0; u < p.width; ++u) {
          const std::size_t i = voxel_of(p, u, v);
          const std::uint32_t label = plane_labels[i];
          const bool edge = (u + 1 < p.width && plane_labels[voxel_of(p, u + 1, v)] != label) ||
                            (v + 1 < p.height && plane_labels[voxel_of(p, u, v + 1)] != label);
          std::uint8_t* px = &img.rgb[(std::size_t(v) * std::size_t(img.width) + std::size_t(left + u)) * 3];
          if (edge) continue;  // black
          const float g = plane_grey[i];
          const float level = std::isfinite(g) ? 255.0f * std::clamp((g - lo) / (hi - lo), 0.0f, 1.0f) : 0.0f;
          float colour[3] = {level, level, level};
          if (label != 0) {
            float tint[3];
            label_colour(label, tint);
            for (int c = 0; c < 3; ++c) colour[c] = (1 - kAlpha) * level + kAlpha * tint[c];
          }
          for (int c = 0; c < 3; ++c) px[c] = std::uint8_t(std::lround(std::clamp(colour[c], 0.0f, 255.0f)));
        }
    }, 16);
    left += p.width + kGap;
  }
  return img;
}

void write_quicklook_png(const std::string& path, const VolumeStore<float>& grey, const VolumeStore<std::uint32_t>& labels,
                         const io::Spacing3& spacing) {
  std::optional<ScopedStage> span(std::in_place, "save.quicklook.read");
  const MidSlices<float> grey_planes = MidSlices<float>::gather(grey);
  const MidSlices<std::uint32_t> label_planes = MidSlices<std::uint32_t>::gather(labels);
  span.reset();
  write_quicklook_png(path, grey_planes, label_planes, spacing);
}

void write_quicklook_png(const std::string& path, const MidSlices<float>& grey, const MidSlices<std::uint32_t>& labels,
                         const io::Spacing3& spacing) {
  RgbImage img = [&] {
    ScopedStage span("save.quicklook.render");
    return render_quicklook(grey, labels, spacing);
  }();
  const ImageView view = packed_view(img.rgb.data(), img.width, img.height, 3, PixelType::u8);
  ScopedStage span("save.quicklook.encode");
  write_atomically(path, [&](const std::string& temp) { io::write_png(temp, view, 6); });
}

}  // namespace gp::pnm
