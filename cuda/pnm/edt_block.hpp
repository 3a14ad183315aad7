#pragma once
// Steps 2-3 on the GPU (envelope_kernel in edt.cu): how a block stages its lines and how the 32
// lanes of a warp share one line, as host-device functions so that the CPU tests can run them
// thread by thread (edt_test.cpp).
//
// A block stages `per_block` lines (coalesced: rows of a strip of neighbouring y-lines, or whole
// x-rows), one warp per line. Each lane builds the segments starting in its chunk of the line
// (edt_line.hpp), then walks its chunk and notes the apex chosen at each sample in the word beside
// the sample's slot; once the whole warp is done walking, each lane turns its choices into values
// in those same words, and the block writes the lines back in place, coalesced. No transposes, no
// global scratch: 8 bytes of shared memory per sample.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/views.hpp"  // GP_VIEW_HD
#include "cuda/pnm/edt_line.hpp"

namespace gp::pnm::edt_detail {

// One padding word per 32 samples: lanes at sample begin + i of chunks 16 or 32 apart hit
// different banks.
GP_VIEW_HD constexpr int padded(int i) { return i + (i >> 5); }

struct PaddedLine {
  const float* p;
  GP_VIEW_HD float operator()(int i) const { return p[padded(i)]; }
};

// Typed access to the words below: direct on the GPU, through memcpy on the CPU (the tests'
// emulation), where a word seen as two halves and then as a float would break aliasing rules.
template <class T>
GP_VIEW_HD T load_as(const unsigned char* p) {
#ifdef __CUDA_ARCH__
  return *reinterpret_cast<const T*>(p);
#else
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}
template <class T>
GP_VIEW_HD void store_as(unsigned char* p, T v) {
#ifdef __CUDA_ARCH__
  *reinterpret_cast<T*>(p) = v;
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// A line's words (padded like the line): slot i (its stacks) in one half of word i, the choice at
// sample i in the other, and at the end the value at sample i over both. 16-bit halves in shared
// memory (lines shorter than 0xFFFE samples), 32-bit ones in global memory for longer lines.
template <class Half>
struct Words {
  unsigned char* base;
  static constexpr unsigned none = Half(~Half(0));  // ends a stack

  GP_VIEW_HD unsigned char* half(int i, int which) const {
    return base + (2 * std::size_t(padded(i)) + which) * sizeof(Half);
  }
  GP_VIEW_HD unsigned get(int i) const { return load_as<Half>(half(i, 0)); }
  GP_VIEW_HD void set(int i, unsigned v) const { store_as<Half>(half(i, 0), Half(v)); }
  // no_parabola and on_barrier as the two largest values of Half.
  GP_VIEW_HD void set_choice(int i, int apex) const {
    store_as<Half>(half(i, 1), apex == no_parabola ? Half(none) : apex == on_barrier ? Half(none - 1) : Half(apex));
  }
  GP_VIEW_HD int choice(int i) const {
    const unsigned c = load_as<Half>(half(i, 1));
    return c == none ? no_parabola : c == none - 1 ? on_barrier : int(c);
  }
  GP_VIEW_HD float value(int i) const { return load_as<float>(half(i, 0)); }
  GP_VIEW_HD void set_value(int i, float v) const { store_as<float>(half(i, 0), v); }
};

// Lines of a run of slices: line l of slice z starts at z * slice_step + l * line_step, sample i
// lies i * pos_step further.
struct Lines {
  float* data;
  int n, lines;
  long long slices;
  std::size_t slice_step, line_step, pos_step;
};

// A block's buffers: `per_block` (a power of two, at most 32) padded line buffers of `stride`
// floats, then as many word arrays of `word_stride` words. Both strides are 32 / per_block
// (mod 32) words, so a warp staging a strip of y-lines (per_block samples of each of
// 32 / per_block rows) hits 32 different banks.
struct BlockLayout {
  int per_block, log_per_block, stride, word_stride;
  std::size_t bytes;
};

inline BlockLayout block_layout(int n, int per_block, std::size_t word_bytes) {
  BlockLayout l{};
  l.per_block = per_block;
  while ((1 << l.log_per_block) < per_block) ++l.log_per_block;
  const auto with_skew = [per_block](int words) { return (words + 31) / 32 * 32 + 32 / per_block; };
  l.stride = with_skew(padded(n - 1) + 1);
  l.word_stride = with_skew(padded(n) + 1);  // slot n ends the last stack
  const std::size_t bytes =
      std::size_t(per_block) * (std::size_t(l.stride) * sizeof(float) + std::size_t(l.word_stride) * word_bytes);
  l.bytes = (bytes + 15) / 16 * 16;
  return l;
}

// Block `block` of a launch over `lines`: strips of per_block lines, slice after slice.
template <class Half>
struct BlockLines {
  Lines lines;
  BlockLayout layout;
  float* buffers;  // the line buffers, then the word arrays
  float* data;     // the block's first line in global memory
  int count;       // lines of the block (the last strip of a slice may hold fewer)
  bool strip;      // neighbouring lines are neighbours in memory (lines along y)

  GP_VIEW_HD BlockLines(const Lines& all, const BlockLayout& l, long long block, unsigned char* buffers_at)
      : lines(all), layout(l), buffers(reinterpret_cast<float*>(buffers_at)) {
    const int strips = (lines.lines + l.per_block - 1) / l.per_block;
    const long long slice = block / strips;
    const int first_line = int(block % strips) * l.per_block;
    count = lines.lines - first_line < l.per_block ? lines.lines - first_line : l.per_block;
    data = lines.data + std::size_t(slice) * lines.slice_step + std::size_t(first_line) * lines.line_step;
    strip = lines.line_step < lines.pos_step;
  }

  GP_VIEW_HD PaddedLine line(int w) const { return {buffers + std::size_t(w) * layout.stride}; }
  GP_VIEW_HD Words<Half> words(int w) const {
    auto* first = reinterpret_cast<unsigned char*>(buffers + std::size_t(layout.per_block) * layout.stride);
    return {first + std::size_t(w) * layout.word_stride * 2 * sizeof(Half)};
  }

  // Thread `thread` of `threads` stages its share of the lines; then the block synchronises.
  GP_VIEW_HD void load(int thread, int threads) const {
    const int n = lines.n;
    if (strip) {
      for (int e = thread; e < layout.per_block * n; e += threads) {
        const int w = e & (layout.per_block - 1), i = e >> layout.log_per_block;
        if (w < count) buffers[std::size_t(w) * layout.stride + padded(i)] = data[std::size_t(w) + std::size_t(i) * lines.pos_step];
      }
    } else {
      for (int w = 0; w < count; ++w)
        for (int i = thread; i < n; i += threads)
          buffers[std::size_t(w) * layout.stride + padded(i)] =
              data[std::size_t(w) * lines.line_step + std::size_t(i) * lines.pos_step];
    }
  }

  // After every warp's finish(): thread `thread` writes its share of the values back.
  GP_VIEW_HD void store(int thread, int threads, bool take_sqrt) const {
    const int n = lines.n;
    if (strip) {
      for (int e = thread; e < layout.per_block * n; e += threads) {
        const int w = e & (layout.per_block - 1), i = e >> layout.log_per_block;
        if (w < count) {
          const float v = words(w).value(i);
          data[std::size_t(w) + std::size_t(i) * lines.pos_step] = take_sqrt ? sqrtf(v) : v;
        }
      }
    } else {
      for (int w = 0; w < count; ++w) {
        const Words<Half> wd = words(w);
        for (int i = thread; i < n; i += threads) {
          const float v = wd.value(i);
          data[std::size_t(w) * lines.line_step + std::size_t(i) * lines.pos_step] = take_sqrt ? sqrtf(v) : v;
        }
      }
    }
  }

  // Line w (< count), lane `lane`: builds the segments starting in the lane's chunk and returns the
  // chunk's last barrier (-1: none). Then the warp synchronises.
  GP_VIEW_HD int build(int w, int lane, float s) const {
    const PaddedLine f = line(w);
    Words<Half> slots = words(w);
    const LaneChunk chunk = lane_chunk(lines.n, lane);
    int first = -1, last = -1;
    chunk_barriers(f, chunk, first, last);
    build_lane(f, slots, lines.n, s, lane, chunk, first);
    return last;
  }

  // Walks the lane's chunk from the segment starting at `start` (the last barrier of the earlier
  // chunks, -1: none), noting the choices. Then the warp synchronises.
  GP_VIEW_HD void walk(int w, int lane, int start, float s) const {
    const Words<Half> slots = words(w);
    Walker<PaddedLine, Words<Half>> walker(line(w), slots, s);
    walker.enter(start);
    const LaneChunk chunk = lane_chunk(lines.n, lane);
    for (int x = chunk.begin; x < chunk.end; ++x) slots.set_choice(x, walker.at(x));
  }

  // The lane's choices into values, in the same words (nobody reads the stacks any more).
  GP_VIEW_HD void finish(int w, int lane, float s) const {
    const PaddedLine f = line(w);
    const Words<Half> slots = words(w);
    const LaneChunk chunk = lane_chunk(lines.n, lane);
    for (int x = chunk.begin; x < chunk.end; ++x) slots.set_value(x, envelope_value(f, s, x, slots.choice(x)));
  }
};

}  // namespace gp::pnm::edt_detail
