// Issue 23, 64-bit voxel indices: segment-pnm out of core on a volume of more than 2^32 voxels,
// checked against known truth and against the in-core run of a crop.
//
// The phantom is a uint8 raw file of non-overlapping pore balls (40) in solid (200), one ball per
// cell of a jittered grid, at least 2 solid voxels between balls and from the volume's faces, so
// each ball is one closed pore of exactly known voxels. Centres are integer voxels: the distance
// map of a digital ball then has its single, strict maximum at the centre, so each ball gives one
// marker and one region whose distance maximum (RegionStat::max_index) is the centre. That is how
// regions are matched to balls, without reading the labels; the labels are then checked voxel by
// voxel (the store may be a scratch file: read by slices, never by operator[]).
//
// "[large]": 1700^3 = 4.91e9 voxels (> 2^32, the last ~210 slices past index 2^32). Minutes on an
// H100; runs only with GPUPROC_LARGE_TESTS=1, else it says so (WARN) and passes. By default the
// host budget is 12 GiB (the mask and part of the distance map in memory, the rest of the map in a
// plain scratch file, components and labels in compressed scratch: about 20 GB of free disk in the
// temp folder, $TMPDIR else /tmp, with the raw file) and the GPU budget 40 GiB (many slabs; the
// markers selected on the GPU). GPUPROC_LARGE_TEST_HOST_GB=N sets another host budget (N GiB).
// A small version of the same check, with every store partly or wholly in scratch and the markers
// selected on the host, runs with the other GPU tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/host_memory.hpp"
#include "core/parallel_for.hpp"
#include "core/scratch_space.hpp"
#include "core/text.hpp"
#include "io/volume_reader.hpp"
#include "pnm/segmentation.hpp"
#include "support/test_data.hpp"

using namespace gp;
namespace fs = std::filesystem;

namespace {

constexpr std::uint8_t kSolid = 200, kPore = 40;
constexpr std::uint64_t kTwoTo32 = std::uint64_t(1) << 32;

// A temporary folder under the system temp dir, removed with everything in it when the test
// ends, REQUIRE failures and exceptions included (they unwind through the destructor).
class TempFolder {
 public:
  explicit TempFolder(const std::string& name) : path_(test::scratch_dir(name)) {}
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

long isqrt(long v) {
  long s = long(std::sqrt(double(v)));
  while (s * s > v) --s;
  while ((s + 1) * (s + 1) <= v) ++s;
  return s;
}

struct Ball {
  int x = 0, y = 0, z = 0, r = 0;
};

// Exact properties of the digital ball {|p - centre|^2 <= r^2} in solid, by radius.
struct BallTruth {
  std::uint64_t voxels = 0;
  std::uint64_t rows = 0;  // lines along an axis through the ball: each has 2 faces with solid
  double centre_distance = 0;  // distance from the centre to the nearest voxel outside the ball
};

BallTruth ball_truth(int r) {
  BallTruth t;
  const long rr = long(r) * r;
  for (long dz = -r; dz <= r; ++dz)
    for (long dy = -r; dy <= r; ++dy)
      if (dz * dz + dy * dy <= rr) {
        t.voxels += std::uint64_t(2 * isqrt(rr - dz * dz - dy * dy) + 1);
        ++t.rows;
      }
  long nearest = -1;  // smallest |p|^2 over integer p outside the ball (within one voxel of it)
  for (long dz = -r - 1; dz <= r + 1; ++dz)
    for (long dy = -r - 1; dy <= r + 1; ++dy)
      for (long dx = -r - 1; dx <= r + 1; ++dx) {
        const long d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > rr && (nearest < 0 || d2 < nearest)) nearest = d2;
      }
  t.centre_distance = std::sqrt(double(nearest));
  return t;
}

// One ball per cell of a grid of about `cell` voxels, radius in [r_min, r_max], centre jittered
// so that the ball keeps 1 solid voxel to its cell's low faces and 2 to its high faces: 2 or more
// solid voxels between any two balls (no 26-neighbours across) and between a ball and the
// volume's faces.
struct BallPhantom {
  io::Dims3 dims;
  std::vector<Ball> balls;
  std::vector<BallTruth> truth_by_radius;
  std::vector<int> layer_of_z;                    // the cell layer holding slice z
  std::vector<std::vector<std::size_t>> layer_balls;  // balls of each layer (they stay in it)

  BallPhantom(const io::Dims3& d, int cell, int r_min, int r_max, std::uint64_t seed) : dims(d) {
    const auto bounds = [cell](int n) {
      const int cells = std::max(1, n / cell);
      std::vector<int> b(std::size_t(cells) + 1);
      for (int i = 0; i <= cells; ++i) b[std::size_t(i)] = int(std::int64_t(i) * n / cells);
      return b;
    };
    const std::vector<int> bx = bounds(d.nx), by = bounds(d.ny), bz = bounds(d.nz);
    int narrowest = d.nx;
    for (const auto* b : {&bx, &by, &bz})
      for (std::size_t i = 0; i + 1 < b->size(); ++i) narrowest = std::min(narrowest, (*b)[i + 1] - (*b)[i]);
    REQUIRE(narrowest >= 2 * r_max + 3);  // room for the largest ball and its solid margins
    // mt19937_64's sequence is fixed by the standard; the distributions are not, so plain modulo.
    std::mt19937_64 rng(seed);
    const auto draw = [&rng](int lo, int hi) { return lo + int(rng() % std::uint64_t(hi - lo + 1)); };
    const auto centre = [&draw](const std::vector<int>& b, std::size_t i, int r) {
      return draw(b[i] + 1 + r, b[i + 1] - 2 - r);
    };
    layer_balls.resize(bz.size() - 1);
    for (std::size_t k = 0; k + 1 < bz.size(); ++k)
      for (std::size_t j = 0; j + 1 < by.size(); ++j)
        for (std::size_t i = 0; i + 1 < bx.size(); ++i) {
          Ball b;
          b.r = draw(r_min, r_max);
          b.x = centre(bx, i, b.r);
          b.y = centre(by, j, b.r);
          b.z = centre(bz, k, b.r);
          layer_balls[k].push_back(balls.size());
          balls.push_back(b);
        }
    layer_of_z.resize(std::size_t(d.nz));
    for (std::size_t k = 0; k + 1 < bz.size(); ++k)
      for (int z = bz[k]; z < bz[k + 1]; ++z) layer_of_z[std::size_t(z)] = int(k);
    for (int r = 0; r <= r_max; ++r) truth_by_radius.push_back(ball_truth(r));
  }

  const BallTruth& truth(const Ball& b) const { return truth_by_radius[std::size_t(b.r)]; }
  std::uint64_t pore_voxels() const {
    std::uint64_t n = 0;
    for (const Ball& b : balls) n += truth(b).voxels;
    return n;
  }
  std::uint64_t index(int x, int y, int z) const {
    return (std::uint64_t(z) * std::uint64_t(dims.ny) + std::uint64_t(y)) * std::uint64_t(dims.nx) + std::uint64_t(x);
  }
  std::uint64_t centre_index(const Ball& b) const { return index(b.x, b.y, b.z); }

  // row(ball, y, x_first, x_last) for every row of voxels of slice z inside a ball.
  template <class Row>
  void for_each_row(int z, Row&& row) const {
    for (const std::size_t i : layer_balls[std::size_t(layer_of_z[std::size_t(z)])]) {
      const Ball& b = balls[i];
      const long rr = long(b.r) * b.r - long(z - b.z) * (z - b.z);
      if (rr < 0) continue;
      for (long dy = -isqrt(rr); dy * dy <= rr; ++dy) {
        const int half = int(isqrt(rr - dy * dy));
        row(i, b.y + int(dy), b.x - half, b.x + half);
      }
    }
  }
};

// The phantom as a raw uint8 file, a batch of slices at a time (computed on all cores, written in
// order; never the whole volume in memory). Returns the pore voxels counted in what was written.
std::uint64_t write_phantom(const BallPhantom& p, const fs::path& path) {
  const io::Dims3& d = p.dims;
  const std::size_t plane = d.slice_voxels();
  const int batch = 64;  // 185 MB of 1700^2 slices
  std::vector<std::uint8_t> slices(std::size_t(batch) * plane);
  std::vector<std::uint64_t> pores(std::size_t(d.nz), 0);
  std::ofstream out(path, std::ios::binary);
  REQUIRE(out);
  for (int z0 = 0; z0 < d.nz; z0 += batch) {
    const int z1 = std::min(d.nz, z0 + batch);
    parallel_for(long(z1 - z0), [&](long a, long b) {
      for (long i = a; i < b; ++i) {
        const int z = z0 + int(i);
        std::uint8_t* slice = slices.data() + std::size_t(i) * plane;
        std::memset(slice, kSolid, plane);
        p.for_each_row(z, [&](std::size_t, int y, int x0, int x1) {
          std::memset(slice + std::size_t(y) * std::size_t(d.nx) + std::size_t(x0), kPore, std::size_t(x1 - x0 + 1));
        });
        pores[std::size_t(z)] = std::uint64_t(std::count(slice, slice + plane, kPore));
      }
    }, 1);
    out.write(reinterpret_cast<const char*>(slices.data()), std::streamsize(std::size_t(z1 - z0) * plane));
    REQUIRE(out);  // a full disk shows here
  }
  out.close();
  REQUIRE(out);
  return std::accumulate(pores.begin(), pores.end(), std::uint64_t(0));
}

pnm::Settings ball_settings() {
  pnm::Settings s;
  s.denoise = "none";
  s.otsu = false;
  s.threshold = 120;  // between pore 40 and solid 200
  s.pore_is_dark = true;
  s.fill_closed_pores = false;  // every ball is a closed pore and must stay one
  return s;                     // remove_floating_solid, connectivity, sigma, r_max: defaults
}

// The region of each ball (its label; 0 = none), matched by the region's distance maximum, which
// must be the ball's centre; each such region must have the ball's exact voxels, centroid (the
// centre: the ball is symmetric about it), solid faces, distance maximum, and no border voxels.
std::vector<std::uint32_t> regions_of_balls(const pnm::RegionStats& stats, const BallPhantom& p) {
  std::unordered_map<std::uint64_t, std::size_t> ball_at;
  for (std::size_t b = 0; b < p.balls.size(); ++b) ball_at.emplace(p.centre_index(p.balls[b]), b);
  std::vector<std::uint32_t> label(p.balls.size(), 0);
  std::size_t stray = 0, twice = 0, different = 0;
  std::ostringstream first;  // the first problem, for the message
  for (std::size_t i = 0; i < stats.regions.size(); ++i) {
    const pnm::RegionStat& r = stats.regions[i];
    const auto at = ball_at.find(r.max_index);
    if (at == ball_at.end()) {
      if (stray++ == 0) first << "region " << i + 1 << " (" << r.voxels << " voxels) has its maximum at voxel "
                              << r.max_index << ", no ball's centre; ";
      continue;
    }
    const Ball& b = p.balls[at->second];
    const BallTruth& t = p.truth(b);
    if (label[at->second] != 0) ++twice;
    label[at->second] = std::uint32_t(i + 1);
    const bool same = r.voxels == t.voxels && r.sum_x == t.voxels * std::uint64_t(b.x) &&
                      r.sum_y == t.voxels * std::uint64_t(b.y) && r.sum_z == t.voxels * std::uint64_t(b.z) &&
                      r.solid_faces[0] == 2 * t.rows && r.solid_faces[1] == 2 * t.rows &&
                      r.solid_faces[2] == 2 * t.rows &&
                      std::all_of(std::begin(r.border_voxels), std::end(r.border_voxels), [](std::uint64_t v) { return v == 0; }) &&
                      std::abs(double(r.max_distance) - t.centre_distance) <= 1e-5 * t.centre_distance;
    if (!same && different++ == 0)
      first << "region " << i + 1 << " of the ball at (" << b.x << ", " << b.y << ", " << b.z << ") r " << b.r << ": "
            << r.voxels << " voxels (truth " << t.voxels << "), max distance " << r.max_distance << " (truth "
            << t.centre_distance << "); ";
  }
  const auto missing = std::size_t(std::count(label.begin(), label.end(), 0u));
  INFO(first.str());
  CHECK(stray == 0);
  CHECK(twice == 0);
  CHECK(different == 0);
  CHECK(missing == 0);
  return label;
}

// Every voxel's label: the ball's region inside each ball, 0 elsewhere (solid). Read a batch of
// slices at a time (the labels may be in a scratch file). Returns the balls whose centre has a
// linear index of 2^32 or more and whose whole cross-section there was checked.
std::size_t check_labels(const pnm::VolumeStore<std::uint32_t>& labels, const BallPhantom& p,
                         const std::vector<std::uint32_t>& label_of_ball) {
  const io::Dims3& d = p.dims;
  REQUIRE(labels.dims() == d);
  const std::size_t plane = d.slice_voxels();
  const int batch = 16;  // 185 MB of 1700^2 slices
  std::vector<std::uint32_t> slices(std::size_t(batch) * plane);
  std::atomic<std::uint64_t> wrong_in_balls{0}, labelled_outside{0}, centres_above{0};
  for (int z0 = 0; z0 < d.nz; z0 += batch) {
    const int z1 = std::min(d.nz, z0 + batch);
    labels.read_slices(z0, z1, slices.data());
    parallel_for(long(z1 - z0), [&](long a, long b) {
      for (long i = a; i < b; ++i) {
        const int z = z0 + int(i);
        const std::uint32_t* slice = slices.data() + std::size_t(i) * plane;
        std::uint64_t wrong = 0, in_balls = 0, above = 0;
        p.for_each_row(z, [&](std::size_t ball, int y, int x0, int x1) {
          const std::uint32_t* row = slice + std::size_t(y) * std::size_t(d.nx);
          std::uint64_t wrong_here = 0;
          for (int x = x0; x <= x1; ++x) {
            wrong_here += row[x] != label_of_ball[ball];
            in_balls += row[x] != 0;
          }
          wrong += wrong_here;
          const Ball& c = p.balls[ball];
          if (z == c.z && y == c.y && wrong_here == 0 && p.centre_index(c) >= kTwoTo32) ++above;
        });
        const auto labelled = std::uint64_t(plane - std::size_t(std::count(slice, slice + plane, 0u)));
        wrong_in_balls += wrong;
        labelled_outside += labelled - in_balls;
        centres_above += above;
      }
    }, 1);
  }
  CHECK(wrong_in_balls.load() == 0);
  CHECK(labelled_outside.load() == 0);
  return std::size_t(centres_above.load());
}

// The balls that lie inside the crop with the voxel around them (all the distance map of a ball
// depends on): one region in the crop's in-core run, with the same statistics as the whole
// volume's region, coordinates shifted by the crop's offset. Returns how many were compared.
std::size_t compare_crop(const pnm::RegionStats& whole, const std::vector<std::uint32_t>& label_of_ball,
                         const pnm::RegionStats& cropped, const BallPhantom& p, const std::array<int, 3>& begin,
                         const io::Dims3& crop) {
  std::unordered_map<std::uint64_t, std::size_t> region_at;  // crop-local maximum -> crop region
  for (std::size_t i = 0; i < cropped.regions.size(); ++i) region_at.emplace(cropped.regions[i].max_index, i);
  const auto inside = [](int c, int r, int lo, int n) { return c - r - 1 >= lo && c + r + 1 < lo + n; };
  const auto local = [&](std::uint64_t whole_index) {
    const std::uint64_t x = whole_index % std::uint64_t(p.dims.nx), rest = whole_index / std::uint64_t(p.dims.nx);
    const std::uint64_t y = rest % std::uint64_t(p.dims.ny), z = rest / std::uint64_t(p.dims.ny);
    return ((z - std::uint64_t(begin[2])) * std::uint64_t(crop.ny) + (y - std::uint64_t(begin[1]))) * std::uint64_t(crop.nx) +
           (x - std::uint64_t(begin[0]));
  };
  std::size_t inside_balls = 0, compared = 0, unmatched = 0, different = 0;
  std::ostringstream first;
  for (std::size_t b = 0; b < p.balls.size(); ++b) {
    const Ball& ball = p.balls[b];
    if (!inside(ball.x, ball.r, begin[0], crop.nx) || !inside(ball.y, ball.r, begin[1], crop.ny) ||
        !inside(ball.z, ball.r, begin[2], crop.nz))
      continue;
    ++inside_balls;
    if (label_of_ball[b] == 0) continue;  // already reported by regions_of_balls
    const pnm::RegionStat& w = whole.regions[label_of_ball[b] - 1];
    const auto at = region_at.find(local(w.max_index));
    if (at == region_at.end()) {
      if (unmatched++ == 0) first << "no crop region has its maximum at the centre of the ball at (" << ball.x << ", "
                                  << ball.y << ", " << ball.z << "); ";
      continue;
    }
    const pnm::RegionStat& c = cropped.regions[at->second];
    ++compared;
    bool same = c.voxels == w.voxels && c.sum_x + c.voxels * std::uint64_t(begin[0]) == w.sum_x &&
                c.sum_y + c.voxels * std::uint64_t(begin[1]) == w.sum_y &&
                c.sum_z + c.voxels * std::uint64_t(begin[2]) == w.sum_z && c.max_distance == w.max_distance;
    for (int a = 0; a < 3; ++a) same = same && c.solid_faces[a] == w.solid_faces[a];
    for (int f = 0; f < 6; ++f) same = same && c.border_voxels[f] == w.border_voxels[f];
    if (!same && different++ == 0)
      first << "the ball at (" << ball.x << ", " << ball.y << ", " << ball.z << "): crop region " << at->second + 1
            << " has " << c.voxels << " voxels, max distance " << c.max_distance << "; whole volume's region "
            << label_of_ball[b] << " " << w.voxels << ", " << w.max_distance << "; ";
  }
  INFO(first.str());
  CHECK(unmatched == 0);
  CHECK(different == 0);
  CHECK(compared == inside_balls);
  return compared;
}

struct PhantomCase {
  io::Dims3 dims;
  std::uint64_t seed = 1;
  std::uint64_t host_budget = 0;  // bytes for the out-of-core run's whole volumes
  std::size_t gpu_budget = 0;     // bytes for its slabs
  int crop_size = 0;              // a cube at the volume's far corner (the highest indices)
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The whole check: write the phantom, segment it out of core from the file, compare with the truth,
// then segment a crop in one piece and compare the balls inside it.
void check_ball_phantom(const PhantomCase& pc, const std::string& name) {
  using clock = std::chrono::steady_clock;
  const auto t_start = clock::now();
  const io::Dims3& d = pc.dims;
  const bool large = d.voxels() > kTwoTo32;  // the small case runs quietly
  const BallPhantom phantom(d, 60, 8, 22, pc.seed);
  TempFolder folder(name);  // first, so it is removed last (after the scratch files are closed)
  if (large)
    WARN(name << ": " << d.nx << "x" << d.ny << "x" << d.nz << " = " << d.voxels() << " voxels, " << phantom.balls.size()
            << " balls; temp folder " << folder.path().string() << " (" << gib_text(fs::space(folder.path()).available)
            << " free), host budget " << gib_text(pc.host_budget) << ", GPU budget " << gib_text(pc.gpu_budget));

  const fs::path raw = folder.path() / "balls.raw";
  const std::uint64_t pore_voxels = write_phantom(phantom, raw);
  REQUIRE(pore_voxels == phantom.pore_voxels());  // what was written is the ball list's truth
  const double truth_porosity = double(pore_voxels) / double(d.voxels());
  const double seconds_write = seconds_since(t_start);

  io::VolumeReadOptions o;
  o.format = "raw";
  o.raw.dims = d;
  o.raw.dtype = "uint8";
  o.spacing = {1, 1, 1};  // distances in voxels, as the truth's
  o.spacing_given = true;
  const auto stream = io::open_volume({raw.string()}, o);
  REQUIRE(stream->header().dims == d);
  const pnm::Settings s = ball_settings();
  Runtime rt{RuntimeOptions{}};

  // Out of core, the input read slab by slab from the file; the whole volumes beyond the host
  // budget in scratch files of the temp folder.
  HostMemoryBudget budget(pc.host_budget);
  ScratchSpace scratch((folder.path() / "scratch").string(), "run.scratch_dir");
  pnm::VolumeStorage storage{budget, scratch};
  const auto t_segment = clock::now();
  const pnm::Segmentation seg =
      pnm::segment_gpu_slabs(stream->header(), pnm::VolumeStore<float>::from_stream(*stream), s, {&rt}, pc.gpu_budget, storage);
  const double seconds_segment = seconds_since(t_segment);
  if (pc.host_budget < std::uint64_t(d.voxels()) * 13) {  // all the stores do not fit: the labels at least in part
    CHECK(seg.labels.in_scratch());
    CHECK(scratch.bytes_written() > 0);
  }

  // Truth: the balls are the pore space (nothing filled), one region each.
  CHECK(seg.porosity_binarized == truth_porosity);
  CHECK(std::abs(seg.porosity - truth_porosity) <= 1e-12);
  CHECK(seg.closed_pore_voxels == 0);
  CHECK(seg.floating_solid_voxels == 0);
  CHECK(seg.markers.count == phantom.balls.size());
  REQUIRE(seg.regions == phantom.balls.size());
  REQUIRE(seg.stats.regions.size() == phantom.balls.size());
  const auto t_check = clock::now();
  const std::vector<std::uint32_t> label_of_ball = regions_of_balls(seg.stats, phantom);
  const std::size_t centres_above = check_labels(seg.labels, phantom, label_of_ball);
  const double seconds_check = seconds_since(t_check);
  if (large) CHECK(centres_above > 100);

  // A crop at the far corner (the largest indices) read into memory and segmented in one piece.
  const auto t_crop = clock::now();
  io::VolumeReadOptions oc = o;
  oc.crop_begin = {d.nx - pc.crop_size, d.ny - pc.crop_size, d.nz - pc.crop_size};
  oc.crop_size = {pc.crop_size, pc.crop_size, pc.crop_size};
  const io::Volume crop = io::read_volume({raw.string()}, oc);
  REQUIRE(crop.dims == (io::Dims3{pc.crop_size, pc.crop_size, pc.crop_size}));
  const pnm::Segmentation in_core = pnm::segment_gpu(crop, s, rt);
  const std::size_t compared = compare_crop(seg.stats, label_of_ball, in_core.stats, phantom, oc.crop_begin, crop.dims);
  CHECK(compared > 10);
  const double seconds_crop = seconds_since(t_crop);

  if (!large) return;
  std::ostringstream stages;
  for (const auto& [stage, sec] : seg.stage_seconds) stages << " " << stage << " " << sec;
  std::ostringstream rss;
  for (const auto& [stage, bytes] : seg.stage_peak_rss_bytes) rss << " " << stage << " " << gib_text(bytes);
  WARN(name << ": write " << seconds_write << " s, out-of-core " << seconds_segment << " s (" << stages.str()
            << "), " << seg.watershed_slab_runs << " watershed slab runs, checks " << seconds_check << " s, crop "
            << seconds_crop << " s (" << compared << " balls compared), total " << seconds_since(t_start) << " s; "
            << centres_above << " ball centres past index 2^32; host budget peak " << gib_text(budget.peak_reserved())
            << ", scratch peak " << gib_text(scratch.peak_bytes_allocated()) << " + raw file "
            << gib_text(d.voxels()) << ", peak RSS by stage:" << rss.str());
}

// GPUPROC_LARGE_TEST_HOST_GB, else 12 GiB (see the top of the file).
std::uint64_t large_host_budget() {
  const char* gb = std::getenv("GPUPROC_LARGE_TEST_HOST_GB");
  return std::uint64_t((gb && *gb ? std::strtod(gb, nullptr) : 12.0) * double(std::uint64_t(1) << 30));
}

}  // namespace

TEST_CASE("segment-pnm out of core on a ball phantom equals its truth and the in-core run of a crop",
          "[pnm][slabs][gpu]") {
  // The large test's check at a size that runs in seconds: several slabs, every store partly or
  // wholly in scratch files (6 bytes a voxel of host budget), so the large run tests only the size.
  PhantomCase pc;
  pc.dims = {310, 290, 330};  // 5 x 4 x 5 cells
  pc.seed = 7;
  pc.host_budget = std::uint64_t(pc.dims.voxels()) * 6;
  pc.gpu_budget = std::size_t(64) << 20;
  pc.crop_size = 200;
  check_ball_phantom(pc, "balls-small");
}

TEST_CASE("segment-pnm out of core on a 1700^3 volume (over 2^32 voxels) equals its truth and the in-core run of a crop",
          "[pnm][large]") {
  const char* enabled = std::getenv("GPUPROC_LARGE_TESTS");
  if (!enabled || std::string(enabled) != "1") {
    WARN("skipped: the 1700^3 volume test (minutes, ~15 GB RAM, ~20 GB free disk in $TMPDIR) runs only with "
         "GPUPROC_LARGE_TESTS=1 (in the build folder: GPUPROC_LARGE_TESTS=1 tests/gpuproc_gpu_tests \"[large]\")");
    return;
  }
  PhantomCase pc;
  pc.dims = {1700, 1700, 1700};  // 4.91e9 voxels: indices past 2^32 from slice 1487 on
  pc.seed = 23;
  pc.host_budget = large_host_budget();
  pc.gpu_budget = std::size_t(40) << 30;  // many slabs; room for the GPU marker selection
  pc.crop_size = 320;                     // slices 1380..1699, most of them past index 2^32
  REQUIRE(pc.dims.voxels() > kTwoTo32);
  check_ball_phantom(pc, "balls-1700");
}
