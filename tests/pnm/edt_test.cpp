// The distance transform's CPU reference against brute force, and the GPU's split of the work
// (step 1 from bit words, lines split among the lanes of a warp, the envelope kernel's blocks)
// emulated on the CPU against the reference's sequential scans, bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/edt_block.hpp"
#include "cuda/pnm/edt_line.hpp"
#include "pnm/segment_volumes.hpp"

using namespace gp::pnm;

namespace {

// Exact reference: the distance from every pore voxel to every solid voxel, in double.
std::vector<double> brute_force(const std::vector<std::uint8_t>& mask, int nx, int ny, int nz, Spacing s) {
  std::vector<double> out(mask.size(), std::numeric_limits<double>::infinity());
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t i = (std::size_t(z) * ny + y) * nx + x;
        if (!mask[i]) {
          out[i] = 0;
          continue;
        }
        for (int zz = 0; zz < nz; ++zz)
          for (int yy = 0; yy < ny; ++yy)
            for (int xx = 0; xx < nx; ++xx) {
              if (mask[(std::size_t(zz) * ny + yy) * nx + xx]) continue;
              const double dx = (x - xx) * double(s.x), dy = (y - yy) * double(s.y), dz = (z - zz) * double(s.z);
              out[i] = std::min(out[i], std::sqrt(dx * dx + dy * dy + dz * dz));
            }
      }
  return out;
}

void check_against_brute_force(int nx, int ny, int nz, Spacing s, std::uint64_t seed) {
  const auto mask = gp::test::porous_mask(nx, ny, nz, 6, 2.0, 6.0, seed);
  std::vector<float> distance(mask.size());
  distance_transform_cpu(whole_volume(mask.data(), nx, ny, nz), whole_volume(distance.data(), nx, ny, nz), s);
  const auto exact = brute_force(mask, nx, ny, nz, s);
  for (std::size_t i = 0; i < mask.size(); ++i) {
    INFO("voxel " << i << " of " << nx << "x" << ny << "x" << nz);
    if (std::isinf(exact[i])) {
      REQUIRE(std::isinf(distance[i]));
    } else {
      REQUIRE(distance[i] == Approx(exact[i]).epsilon(1e-6).margin(1e-6));
    }
  }
}

}  // namespace

TEST_CASE("distance transform equals brute force, isotropic", "[pnm][edt]") {
  check_against_brute_force(17, 13, 11, {1, 1, 1}, 1);
  check_against_brute_force(9, 20, 7, {1, 1, 1}, 2);
}

TEST_CASE("distance transform equals brute force, anisotropic spacing", "[pnm][edt]") {
  check_against_brute_force(15, 12, 10, {0.02f, 0.02f, 0.035f}, 3);
  check_against_brute_force(11, 16, 13, {1.5f, 0.7f, 1.0f}, 4);
}

TEST_CASE("distance transform: no solid gives infinity, all solid gives zero", "[pnm][edt]") {
  std::vector<std::uint8_t> pore(4 * 5 * 6, 1), solid(4 * 5 * 6, 0);
  std::vector<float> d(pore.size());
  distance_transform_cpu(whole_volume(pore.data(), 4, 5, 6), whole_volume(d.data(), 4, 5, 6), {1, 1, 1});
  for (float v : d) REQUIRE(std::isinf(v));
  distance_transform_cpu(whole_volume(solid.data(), 4, 5, 6), whole_volume(d.data(), 4, 5, 6), {1, 1, 1});
  for (float v : d) REQUIRE(v == 0.f);
}

TEST_CASE("distance transform: a single solid voxel", "[pnm][edt]") {
  const int n = 9;
  std::vector<std::uint8_t> mask(n * n * n, 1);
  mask[(4 * n + 4) * n + 4] = 0;
  std::vector<float> d(mask.size());
  distance_transform_cpu(whole_volume(mask.data(), n, n, n), whole_volume(d.data(), n, n, n), {1, 2, 3});
  REQUIRE(d[(4 * n + 4) * n + 5] == 1.f);          // one step in x
  REQUIRE(d[(4 * n + 5) * n + 4] == 2.f);          // one step in y
  REQUIRE(d[(5 * n + 4) * n + 4] == 3.f);          // one step in z
  REQUIRE(d[0] == Approx(std::sqrt(16.0 + 64.0 + 144.0)));  // the corner
}

// ---------------------------------------------------------------------------------------------
// The per-line code (edt_line.hpp) as the GPU runs it: step 1 from bit words, and each line split
// among the 32 lanes of a warp (envelope_kernel in edt.cu), emulated here lane by lane.

namespace {

using namespace gp::pnm::edt_detail;

// Slots that record which lane wrote what: lanes of a warp run at once on the GPU, so a slot two
// lanes write must get the same value from both, and a lane may read only slots it wrote itself.
struct LaneSlots {
  std::uint32_t* slot;
  std::vector<std::vector<std::pair<int, unsigned>>>* writes;
  int lane;
  bool* race;
  static constexpr unsigned none = 0xFFFFFFFFu;
  unsigned get(int i) const {
    bool own = false;
    for (const auto& w : (*writes)[i]) own = own || w.first == lane;
    if (!own) *race = true;
    return slot[i];
  }
  void set(int i, unsigned v) const {
    slot[i] = v;
    (*writes)[i].push_back({lane, v});
  }
};

// The walk reads slots only after every lane has built its segments.
struct ReadSlots {
  const std::uint32_t* slot;
  static constexpr unsigned none = 0xFFFFFFFFu;
  unsigned get(int i) const { return slot[i]; }
};

std::vector<float> split_among_lanes(const std::vector<float>& f, float s, bool lanes_backwards) {
  const int n = int(f.size());
  const PlainLine line{f.data()};
  std::vector<std::uint32_t> slots(std::size_t(n) + 1, 0xDEADBEEFu);
  std::vector<std::vector<std::pair<int, unsigned>>> writes(slots.size());
  bool race = false;
  std::vector<int> first(32), last(32);
  for (int lane = 0; lane < 32; ++lane) chunk_barriers(line, lane_chunk(n, lane), first[lane], last[lane]);
  for (int k = 0; k < 32; ++k) {
    const int lane = lanes_backwards ? 31 - k : k;
    LaneSlots lane_slots{slots.data(), &writes, lane, &race};
    build_lane(line, lane_slots, n, s, lane, lane_chunk(n, lane), first[lane]);
  }
  REQUIRE_FALSE(race);
  for (const auto& w : writes)
    for (const auto& other : w)
      if (other.first != w.front().first) REQUIRE(other.second == w.front().second);
  std::vector<float> out(n, -1.f);
  for (int lane = 0; lane < 32; ++lane) {
    int start = -1;  // the kernel's scan: the last barrier of an earlier chunk
    for (int l = 0; l < lane; ++l) start = std::max(start, last[l]);
    Walker<PlainLine, ReadSlots> walk(line, ReadSlots{slots.data()}, s);
    walk.enter(start);
    const LaneChunk c = lane_chunk(n, lane);
    for (int x = c.begin; x < c.end; ++x) out[x] = envelope_value(line, s, x, walk.at(x));
  }
  return out;
}

std::vector<float> whole_line(const std::vector<float>& f, float s) {
  std::vector<std::uint32_t> slots(f.size() + 1);
  Slots32 stacks{slots.data()};
  std::vector<float> out(f.size());
  envelope_line(PlainLine{f.data()}, stacks, int(f.size()), s, [&](int x, float v) { out[x] = v; });
  return out;
}

// Brute force over the same parabolas: the envelope may differ from the minimum by rounding only.
void require_near_minimum(const std::vector<float>& f, float s, const std::vector<float>& out) {
  for (std::size_t x = 0; x < f.size(); ++x) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < f.size(); ++j)
      if (f[j] < infinity) {
        const double d = (double(x) - double(j)) * s;
        best = std::min(best, double(f[j]) + d * d);
      }
    if (std::isinf(best)) {
      REQUIRE(std::isinf(out[x]));
    } else {
      REQUIRE(out[x] == Approx(best).epsilon(1e-6));
    }
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("step 1 from bit words equals the column sweeps", "[pnm][edt]") {
  std::mt19937 rng(5);
  for (int n : {1, 2, 31, 32, 33, 63, 64, 65, 100, 200, 1000})
    for (double solid : {0.0, 0.01, 0.1, 0.5, 0.9, 1.0})
      for (float s : {1.f, 0.035f, 2.5f}) {
        INFO("n " << n << " solid fraction " << solid << " spacing " << s);
        std::bernoulli_distribution is_solid(solid);
        std::vector<unsigned char> mask(n);
        for (auto& m : mask) m = is_solid(rng) ? 0 : 1;
        if (solid == 0.01 && n > 64) mask[n / 2] = 0;  // one solid voxel far from both ends
        std::vector<float> sweeps(n), words(n);
        column(mask.data(), sweeps.data(), 1, n, s);
        column_from_bits(mask.data(), words.data(), 1, n, s);
        REQUIRE(same_bits(sweeps, words));
      }
}

TEST_CASE("a line split among the lanes of a warp gives the sequential scan's values", "[pnm][edt]") {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> value(0.f, 60.f);
  const std::vector<int> lengths{1, 2, 3, 31, 32, 33, 64, 65, 100, 257, 511, 512, 513, 1000, 1024, 1025, 3001};
  for (int n : lengths)
    for (double zeros : {0.0, 0.005, 0.05, 0.3, 0.8, 1.0})
      for (double infs : {0.0, 0.1, 0.9, 1.0})
        for (float s : {1.f, 0.7f, 0.035f, 3.3f}) {
          INFO("n " << n << " zeros " << zeros << " infinities " << infs << " spacing " << s);
          std::bernoulli_distribution is_zero(zeros), is_inf(infs);
          std::vector<float> f(n);
          for (float& v : f) v = is_zero(rng) ? 0.f : is_inf(rng) ? infinity : value(rng) * s * s;
          const auto sequential = whole_line(f, s);
          REQUIRE(same_bits(split_among_lanes(f, s, false), sequential));
          REQUIRE(same_bits(split_among_lanes(f, s, true), sequential));
          if (n <= 1025) require_near_minimum(f, s, sequential);
        }
}

TEST_CASE("a line split among lanes: squared column distances (step 2's input)", "[pnm][edt]") {
  std::mt19937 rng(7);
  for (int n : {40, 300, 1024, 2500})
    for (double solid : {0.02, 0.2, 0.5})
      for (float s : {1.f, 0.02f}) {
        INFO("n " << n << " solid " << solid << " spacing " << s);
        std::bernoulli_distribution is_solid(solid);
        std::uniform_int_distribution<int> run(0, 40);
        std::vector<float> f(n);
        for (float& v : f) {
          const float d = is_solid(rng) ? 0.f : float(run(rng)) * s;
          v = d * d;
        }
        const auto sequential = whole_line(f, s);
        REQUIRE(same_bits(split_among_lanes(f, s, false), sequential));
        require_near_minimum(f, s, sequential);
      }
}

TEST_CASE("distance transform equals brute force on thin volumes", "[pnm][edt]") {
  check_against_brute_force(1, 1, 70, {1, 1, 1}, 8);
  check_against_brute_force(70, 1, 1, {0.5f, 1, 1}, 9);
  check_against_brute_force(1, 70, 1, {1, 0.3f, 1}, 10);
  check_against_brute_force(40, 35, 2, {0.9f, 1.1f, 2.f}, 11);
}

namespace {

// envelope_kernel (edt.cu) on the CPU: each block's steps in the kernel's order, the threads of a
// step one after the other (the lanes of a warp forwards or backwards), over the same lines and
// block layouts as its launches, on buffers that start out as garbage.
template <class Half>
void envelope_by_blocks(const Lines& lines, float s, bool take_sqrt, int per_block, bool lanes_backwards) {
  const BlockLayout layout = block_layout(lines.n, per_block, 2 * sizeof(Half));
  std::vector<float> buffers(layout.bytes / sizeof(float));
  const long long blocks = (lines.lines + per_block - 1) / per_block * lines.slices;
  for (long long b = 0; b < blocks; ++b) {
    std::fill(buffers.begin(), buffers.end(), std::numeric_limits<float>::quiet_NaN());
    const BlockLines<Half> block(lines, layout, b, reinterpret_cast<unsigned char*>(buffers.data()));
    const int threads = per_block * 32;
    for (int t = 0; t < threads; ++t) block.load(t, threads);
    for (int w = 0; w < block.count; ++w) {
      const auto lane_at = [&](int k) { return lanes_backwards ? 31 - k : k; };
      int last[32];
      for (int k = 0; k < 32; ++k) last[lane_at(k)] = block.build(w, lane_at(k), s);
      int start[32];
      for (int lane = 0; lane < 32; ++lane) {
        start[lane] = -1;
        for (int l = 0; l < lane; ++l) start[lane] = std::max(start[lane], last[l]);
      }
      for (int k = 0; k < 32; ++k) block.walk(w, lane_at(k), start[lane_at(k)], s);
      for (int k = 0; k < 32; ++k) block.finish(w, lane_at(k), s);
    }
    for (int t = 0; t < threads; ++t) block.store(t, threads, take_sqrt);
  }
}

// edt_planes_gpu's two passes (lines along y, then along x), emulated.
template <class Half>
void planes_by_blocks(VolumeView<float> field, Spacing s, bool take_sqrt, int per_block, bool lanes_backwards) {
  const std::size_t plane = field.slice_voxels();
  const Lines along_y{field.data, field.ny, field.nx, field.z_count, plane, 1, std::size_t(field.nx)};
  const Lines along_x{field.data, field.nx, field.ny, field.z_count, plane, std::size_t(field.nx), 1};
  envelope_by_blocks<Half>(along_y, s.y, false, per_block, lanes_backwards);
  envelope_by_blocks<Half>(along_x, s.x, take_sqrt, per_block, lanes_backwards);
}

}  // namespace

TEST_CASE("the envelope kernel's blocks, run thread by thread, give the CPU reference's planes", "[pnm][edt]") {
  struct Case {
    int nx, ny, nz, first, count;
    Spacing s;
  };
  const Case cases[] = {
      {37, 19, 5, 0, 5, {0.7f, 1.3f, 0.45f}},  // partial strips, short lines
      {70, 45, 3, 1, 2, {1, 1, 1}},            // a Z-slab view (z_first 1)
      {1, 40, 2, 0, 2, {1, 0.9f, 1}},          // one y-line per slice, rows of one sample
      {40, 1, 2, 0, 2, {0.9f, 1, 1}},
      {1100, 3, 2, 0, 2, {0.5f, 1.1f, 1}},     // x-lines over 32 x 32 samples
      {3, 1100, 2, 0, 2, {1.1f, 0.5f, 1}},     // y-lines over 32 x 32 samples
  };
  for (const Case& c : cases) {
    const auto mask = gp::test::porous_mask(c.nx, c.ny, c.nz, std::max(4, c.nx * c.ny * c.nz / 400), 2.0, 9.0, 21);
    std::vector<float> squared(mask.size());
    edt_columns_cpu(whole_volume(mask.data(), c.nx, c.ny, c.nz), whole_volume(squared.data(), c.nx, c.ny, c.nz), c.s.z);
    const std::size_t slice = std::size_t(c.nx) * c.ny;
    const std::vector<float> part(squared.begin() + std::ptrdiff_t(slice * c.first),
                                  squared.begin() + std::ptrdiff_t(slice * (c.first + c.count)));
    for (bool take_sqrt : {false, true}) {
      auto expected = part;
      edt_planes_cpu({expected.data(), c.nx, c.ny, c.nz, c.first, c.count}, c.s, take_sqrt);
      for (int per_block : {8, 4, 1})
        for (bool backwards : {false, true})
          for (bool wide : {false, true}) {
            INFO(c.nx << "x" << c.ny << "x" << c.nz << " slab " << c.first << "+" << c.count << " sqrt " << take_sqrt
                      << " lines per block " << per_block << " lanes backwards " << backwards << " 32-bit words " << wide);
            auto field = part;
            const VolumeView<float> view{field.data(), c.nx, c.ny, c.nz, c.first, c.count};
            if (wide)
              planes_by_blocks<std::uint32_t>(view, c.s, take_sqrt, per_block, backwards);
            else
              planes_by_blocks<std::uint16_t>(view, c.s, take_sqrt, per_block, backwards);
            REQUIRE(same_bits(field, expected));
          }
    }
  }
}
