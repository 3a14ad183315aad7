// CPU reference of the region and throat statistics (see region_stats.hpp), multithreaded over
// rows. Pass 1 adds each row's runs of equal labels into the regions with atomic operations and
// takes the regions' maximum distances; pass 2 finds where the maxima are and collects the throat
// records, which each thread sorts and combines before they are merged. Every step is an integer
// sum or a maximum with a tie rule, so the thread count and order do not change the result.
#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/region_stats_voxel.hpp"

namespace gp::pnm {
namespace {

using Side = std::pair<std::uint64_t, InterfaceStat>;  // (throat key, reduced side)

void atomic_add(std::uint64_t* p, std::uint64_t v) {
  if (v != 0) __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
void atomic_max(float* p, float v) {
  float cur;
  __atomic_load(p, &cur, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange(p, &cur, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
void atomic_min(std::uint64_t* p, std::uint64_t v) {
  std::uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

// A run of voxels of one label along a row, added into its region when the label changes.
struct Run {
  std::uint32_t label = 0;
  RegionStat sums;
};

void flush(Run& run, std::vector<RegionStat>& regions) {
  if (run.label != 0 && run.sums.voxels != 0) {
    RegionStat& r = regions[run.label - 1];
    atomic_add(&r.voxels, run.sums.voxels);
    atomic_add(&r.sum_x, run.sums.sum_x);
    atomic_add(&r.sum_y, run.sums.sum_y);
    atomic_add(&r.sum_z, run.sums.sum_z);
    for (int a = 0; a < 3; ++a) atomic_add(&r.solid_faces[a], run.sums.solid_faces[a]);
    for (int f = 0; f < 6; ++f) atomic_add(&r.border_voxels[f], run.sums.border_voxels[f]);
    atomic_max(&r.max_distance, run.sums.max_distance);
  }
  run = Run{};
}

// Sorts the threads' sides by key and combines those of the same throat side.
std::vector<Side> reduce_sides(std::vector<Side> sides) {
  std::sort(sides.begin(), sides.end(), [](const Side& l, const Side& r) { return l.first < r.first; });
  std::vector<Side> out;
  for (const Side& s : sides) {
    if (!out.empty() && out.back().first == s.first)
      stats::combine(out.back().second, s.second);
    else
      out.push_back(s);
  }
  return out;
}

}  // namespace

namespace detail {

void check_region_stats_args(const VolumeView<const std::uint32_t>& labels, const VolumeView<const float>& distance,
                             std::uint32_t region_count, int z_begin, int z_end, const char* function) {
  auto fail = [&](const std::string& what) { throw Error(std::string(function) + ": " + what); };
  if (labels.nx != distance.nx || labels.ny != distance.ny || labels.nz != distance.nz)
    fail("labels and distance map have different sizes");
  if (labels.nx < 0 || labels.ny < 0 || labels.nz < 0) fail("negative volume size");
  if (z_begin < 0 || z_end < z_begin || z_end > labels.nz)
    fail("z range [" + std::to_string(z_begin) + ", " + std::to_string(z_end) + ") outside the volume's " +
         std::to_string(labels.nz) + " slices");
  if (region_count >= (1u << 31)) fail("too many regions (" + std::to_string(region_count) + ")");
  if (std::uint64_t(labels.nx) * std::uint64_t(labels.ny) * std::uint64_t(labels.nz) > stats::kIndexMask)
    fail("volume over 2^44 voxels");
  if (z_begin == z_end || labels.nx == 0 || labels.ny == 0) return;
  const int need_first = std::max(0, z_begin - 1), need_end = std::min(labels.nz, z_end + 1);
  auto check_holds = [&](const char* name, int first, int count) {
    if (need_first < first || need_end > first + count)
      fail(std::string(name) + " view holds slices [" + std::to_string(first) + ", " + std::to_string(first + count) +
           "), needs [" + std::to_string(need_first) + ", " + std::to_string(need_end) +
           ") (the range and one halo slice each side)");
  };
  check_holds("labels", labels.z_first, labels.z_count);
  check_holds("distance map", distance.z_first, distance.z_count);
  if (labels.data == nullptr || distance.data == nullptr) fail("null volume data");
}

std::vector<ThroatStat> throats_from_sides(const std::uint64_t* keys, const InterfaceStat* sides, std::size_t n,
                                           std::uint32_t region_count) {
  std::vector<ThroatStat> throats;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t lo, hi;
    int side;
    stats::decode_throat_key(keys[i], region_count, lo, hi, side);
    if (throats.empty() || throats.back().a != lo || throats.back().b != hi) {
      throats.emplace_back();
      throats.back().a = lo;
      throats.back().b = hi;
    }
    stats::combine(side == 0 ? throats.back().on_a : throats.back().on_b, sides[i]);
  }
  return throats;
}

}  // namespace detail

RegionStats region_stats_cpu(VolumeView<const std::uint32_t> labels, VolumeView<const float> distance,
                             std::uint32_t region_count, int z_begin, int z_end, Connectivity connectivity) {
  detail::check_region_stats_args(labels, distance, region_count, z_begin, z_end, "region_stats_cpu");
  RegionStats out;
  out.regions.assign(region_count, RegionStat{});
  const int nx = labels.nx, ny = labels.ny, nz = labels.nz;
  const long rows = long(z_end - z_begin) * ny;
  if (rows == 0 || nx == 0) return out;
  const stats::Neighbourhood nb{labels, distance};
  const bool c26 = connectivity == Connectivity::c26;
  std::vector<RegionStat>& regions = out.regions;

  // Pass 1: sums and maximum distances.
  parallel_for(rows, [&](long begin, long end) {
    for (long r = begin; r < end; ++r) {
      const int z = z_begin + int(r / ny), y = int(r % ny);
      Run run;
      for (int x = 0; x < nx; ++x) {
        const std::uint32_t L = labels.at(x, y, z);
        if (L != run.label) {
          flush(run, regions);
          run.label = L;
        }
        if (L == 0) continue;
        if (L > region_count)
          throw Error("region_stats_cpu: label " + std::to_string(L) + " at (" + std::to_string(x) + ", " +
                      std::to_string(y) + ", " + std::to_string(z) + ") above the region count " +
                      std::to_string(region_count));
        RegionStat& s = run.sums;
        ++s.voxels;
        s.sum_x += std::uint64_t(x);
        s.sum_y += std::uint64_t(y);
        s.sum_z += std::uint64_t(z);
        unsigned faces[3];
        nb.solid_faces(x, y, z, faces);
        for (int a = 0; a < 3; ++a) s.solid_faces[a] += faces[a];
        s.border_voxels[0] += x == 0;
        s.border_voxels[1] += x == nx - 1;
        s.border_voxels[2] += y == 0;
        s.border_voxels[3] += y == ny - 1;
        s.border_voxels[4] += z == 0;
        s.border_voxels[5] += z == nz - 1;
        s.max_distance = std::max(s.max_distance, stats::canonical_distance(distance.at(x, y, z)));
      }
      flush(run, regions);
    }
  });

  // Pass 2: where the maxima are, and the throat records.
  std::mutex merge_mutex;
  std::vector<Side> all_sides;
  parallel_for(rows, [&](long begin, long end) {
    // Records (key, payload) are combined into sides whenever the buffer fills.
    constexpr std::size_t kRecordBuffer = 1 << 16;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> records;
    records.reserve(kRecordBuffer);
    std::vector<Side> sides;
    auto combine_records = [&] {
      std::sort(records.begin(), records.end());
      for (std::size_t i = 0; i < records.size(); ++i) {
        const InterfaceStat one = stats::RecordToSide{distance}(records[i].second);
        if (i > 0 && records[i - 1].first == records[i].first)
          stats::combine(sides.back().second, one);
        else
          sides.emplace_back(records[i].first, one);
      }
      records.clear();
    };
    for (long r = begin; r < end; ++r) {
      const int z = z_begin + int(r / ny), y = int(r % ny);
      for (int x = 0; x < nx; ++x) {
        const std::uint32_t L = labels.at(x, y, z);
        if (L == 0) continue;
        const std::uint64_t index = stats::voxel_index(x, y, z, nx, ny);
        RegionStat& region = regions[L - 1];
        if (stats::canonical_distance(distance.at(x, y, z)) == region.max_distance) atomic_min(&region.max_index, index);
        stats::for_each_contact(nb, x, y, z, L, c26, [&](std::uint32_t m, unsigned fx, unsigned fy, unsigned fz, bool rim) {
          records.emplace_back(stats::throat_key(L, m, region_count), stats::record_payload(index, rim, fx, fy, fz));
        });
        if (records.size() + 26 > kRecordBuffer) combine_records();
      }
    }
    combine_records();
    const std::vector<Side> reduced = reduce_sides(std::move(sides));
    std::lock_guard<std::mutex> lock(merge_mutex);
    all_sides.insert(all_sides.end(), reduced.begin(), reduced.end());
  });

  const std::vector<Side> sides = reduce_sides(std::move(all_sides));
  std::vector<std::uint64_t> keys(sides.size());
  std::vector<InterfaceStat> stats_of_sides(sides.size());
  for (std::size_t i = 0; i < sides.size(); ++i) {
    keys[i] = sides[i].first;
    stats_of_sides[i] = sides[i].second;
  }
  out.throats = detail::throats_from_sides(keys.data(), stats_of_sides.data(), keys.size(), region_count);
  return out;
}

void merge_region_stats(RegionStats& into, const RegionStats& part) {
  if (into.regions.size() != part.regions.size())
    throw Error("merge_region_stats: region counts differ (" + std::to_string(into.regions.size()) + " and " +
                std::to_string(part.regions.size()) + ")");
  std::vector<RegionStats> both;
  both.push_back(std::move(into));
  both.push_back(part);
  into = merge_region_stats(std::move(both));
}

RegionStats merge_region_stats(std::vector<RegionStats>&& parts) {
  if (parts.empty()) return {};
  for (const RegionStats& part : parts)
    if (part.regions.size() != parts[0].regions.size())
      throw Error("merge_region_stats: region counts differ (" + std::to_string(parts[0].regions.size()) + " and " +
                  std::to_string(part.regions.size()) + ")");
  RegionStats out;
  out.regions = std::move(parts[0].regions);
  parallel_for(long(out.regions.size()), [&](long first, long last) {
    for (std::size_t k = 1; k < parts.size(); ++k)
      for (long i = first; i < last; ++i) stats::combine(out.regions[std::size_t(i)], parts[k].regions[std::size_t(i)]);
  }, 4096);
  // Throats: the key space cut into ranges of the first label, each range's records of every part
  // gathered, sorted (stably: the parts' order kept) and combined on a thread of its own, the
  // ranges then laid end to end.
  const std::uint64_t labels = out.regions.size() + 1;
  const std::size_t ranges = std::size_t(std::min<std::uint64_t>(labels, 8ull * cpu_thread_count()));
  std::vector<std::vector<ThroatStat>> merged(ranges);
  auto before = [](const ThroatStat& l, const ThroatStat& r) { return l.a != r.a ? l.a < r.a : l.b < r.b; };
  parallel_for(long(ranges), [&](long first, long last) {
    for (long k = first; k < last; ++k) {
      const std::uint64_t lo = labels * std::uint64_t(k) / ranges, hi = labels * std::uint64_t(k + 1) / ranges;
      std::vector<ThroatStat> gathered;
      for (const RegionStats& part : parts) {
        auto by_a = [](const ThroatStat& t, std::uint64_t a) { return t.a < a; };
        const auto b = std::lower_bound(part.throats.begin(), part.throats.end(), lo, by_a);
        const auto e = std::lower_bound(b, part.throats.end(), hi, by_a);
        gathered.insert(gathered.end(), b, e);
      }
      std::stable_sort(gathered.begin(), gathered.end(), before);
      std::vector<ThroatStat>& into = merged[std::size_t(k)];
      for (const ThroatStat& t : gathered) {
        if (!into.empty() && into.back().a == t.a && into.back().b == t.b) {
          stats::combine(into.back().on_a, t.on_a);
          stats::combine(into.back().on_b, t.on_b);
        } else {
          into.push_back(t);
        }
      }
    }
  }, 1);
  std::size_t total = 0;
  for (const auto& m : merged) total += m.size();
  out.throats.reserve(total);
  for (auto& m : merged) {
    out.throats.insert(out.throats.end(), m.begin(), m.end());
    m = {};
  }
  return out;
}

bool operator==(const InterfaceStat& l, const InterfaceStat& r) {
  return l.voxels == r.voxels && l.sum_x == r.sum_x && l.sum_y == r.sum_y && l.sum_z == r.sum_z &&
         l.faces[0] == r.faces[0] && l.faces[1] == r.faces[1] && l.faces[2] == r.faces[2] &&
         l.rim_voxels == r.rim_voxels && l.max_distance == r.max_distance && l.max_index == r.max_index;
}

bool operator==(const RegionStat& l, const RegionStat& r) {
  return l.voxels == r.voxels && l.sum_x == r.sum_x && l.sum_y == r.sum_y && l.sum_z == r.sum_z &&
         std::equal(l.solid_faces, l.solid_faces + 3, r.solid_faces) &&
         std::equal(l.border_voxels, l.border_voxels + 6, r.border_voxels) && l.max_distance == r.max_distance &&
         l.max_index == r.max_index;
}

bool operator==(const ThroatStat& l, const ThroatStat& r) {
  return l.a == r.a && l.b == r.b && l.on_a == r.on_a && l.on_b == r.on_b;
}

}  // namespace gp::pnm
