#pragma once
// The per-line steps of the distance transform, shared by the GPU kernels and the CPU reference
// so both make the same float decisions (cuda/pnm builds without fused multiply-add, the CPU side
// with -ffp-contract=off).
//
// Lines along y and x: lower envelope of the parabolas f(j) + (x - x_j)^2, x_j = j s
// (Felzenszwalb & Huttenlocher), cut at the zeros of f. A zero ("barrier": a solid voxel) is the
// lowest parabola at its own sample and everything beyond it is higher on its other side, so the
// samples between two barriers depend only on the parabolas between them: a segment. Each segment
// keeps its own stack, built by one sequential scan that never pops the segment's bottom barrier,
// and stored in the slots from the segment's start on (a stack never holds more entries than its
// segment has samples, so two segments share at most the slot of the barrier between them, which
// both set to that barrier). The GPU builds the segments of a line in
// parallel, one lane per chunk of the line, and evaluates each chunk by walking its segment's
// stack from the bottom; the CPU scans the whole line in one go. Both compute the same stacks and
// the same walks: a walk started anywhere before sample x stops at the same entry for x, because
// each crossing test is monotone in x.
#include <cstddef>
#include <cstdint>

#include "core/views.hpp"  // GP_VIEW_HD

namespace gp::pnm::edt_detail {

constexpr float infinity = __builtin_huge_valf();

// Squared distance along a column of n voxels to the nearest solid one (mask 0), from the
// distances in voxels: forward sweep into out, then backward sweep. (The GPU finds the same
// integer distances from bit masks; the float expression at the end is the same.)
GP_VIEW_HD inline void column(const unsigned char* mask, float* out, std::size_t stride, int n, float spacing) {
  float run = infinity;  // voxels since the last solid one
  for (int i = 0; i < n; ++i) {
    run = mask[i * stride] == 0 ? 0.f : run + 1.f;
    out[i * stride] = run;
  }
  run = infinity;
  for (int i = n - 1; i >= 0; --i) {
    run = mask[i * stride] == 0 ? 0.f : run + 1.f;
    const float d = out[i * stride] < run ? out[i * stride] : run;
    const float physical = d * spacing;
    out[i * stride] = physical * physical;
  }
}

// The same distances from bit words (the GPU's step 1: the mask read once, 32 voxels at a time,
// each output written once): the nearest solid voxel at or before z is the highest set bit at or
// below z (or the last solid voxel of an earlier word), the nearest at or after z the lowest set
// bit at or above z (or the first solid voxel of a later word, looked up once and kept while it
// lies ahead). Same integer distances, same float expression as column(). n < 2^28.
GP_VIEW_HD inline int highest_bit(unsigned v) {  // v != 0
#ifdef __CUDA_ARCH__
  return 31 - __clz(v);
#else
  return 31 - __builtin_clz(v);
#endif
}
GP_VIEW_HD inline int lowest_bit(unsigned v) {  // v != 0
#ifdef __CUDA_ARCH__
  return __ffs(v) - 1;
#else
  return __builtin_ctz(v);
#endif
}

// Bit i: voxel z0 + i of the column is solid.
GP_VIEW_HD inline unsigned solid_bits(const unsigned char* mask, std::size_t stride, int z0, int n) {
  const int count = n - z0 < 32 ? n - z0 : 32;
  unsigned bits = 0;
  for (int i = 0; i < count; ++i) bits |= unsigned(mask[std::size_t(z0 + i) * stride] == 0) << i;
  return bits;
}

GP_VIEW_HD inline void column_from_bits(const unsigned char* mask, float* out, std::size_t stride, int n, float spacing) {
  constexpr int none = 1 << 29;  // further than any real distance
  int before = -none;            // last solid voxel before the current word
  int after = -1;                // first solid voxel at or after the next word (none: no more), once looked up
  unsigned word = solid_bits(mask, stride, 0, n);
  for (int z0 = 0; z0 < n; z0 += 32) {
    const int z1 = z0 + 32;
    const unsigned next_word = z1 < n ? solid_bits(mask, stride, z1, n) : 0u;
    if (after < z1) {
      after = none;
      for (int w0 = z1; w0 < n; w0 += 32) {
        const unsigned bits = w0 == z1 ? next_word : solid_bits(mask, stride, w0, n);
        if (bits != 0) {
          after = w0 + lowest_bit(bits);
          break;
        }
      }
    }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < 32; ++i) {
      const int z = z0 + i;
      if (z >= n) break;
      const unsigned upto = word & (0xFFFFFFFFu >> (31 - i));  // bits 0 .. i
      const unsigned from = word >> i;                          // bits i .. 31
      const int p = upto != 0 ? z0 + highest_bit(upto) : before;
      const int q = from != 0 ? z + lowest_bit(from) : after;
      const int d = (z - p) < (q - z) ? z - p : q - z;
      const float run = d < (1 << 28) ? float(d) : infinity;  // column()'s run of voxels
      const float physical = run * spacing;
      out[std::size_t(z) * stride] = physical * physical;
    }
    if (word != 0) before = z0 + highest_bit(word);
    word = next_word;
  }
}

// Parabola of sample `apex`: f(apex) + ((x - apex) s)^2 at sample x.
struct Parabola {
  int apex;
  float f;
};

// Length of the run from sample i to sample j: one rounding, whatever the line's length.
GP_VIEW_HD inline float span(int i, int j, float s) { return float(j - i) * s; }

// The crossing of parabolas a < b lies at (f_b - f_a) / 2X_ab + (x_a + x_b) / 2, X_ab = span(a, b).
// Written with spans only (no absolute positions, whose squares would round at the scale of the
// line's length), every test below is exact up to the rounding of local quantities.

// Parabola b (between a and c) is nowhere strictly lowest once c is in: crossing(b, c) <=
// crossing(a, b), multiplied by 2 X_ab X_bc > 0: ((f_c - f_b) + X_ac X_bc) X_ab <= (f_b - f_a) X_bc.
GP_VIEW_HD inline bool hidden(const Parabola& a, const Parabola& b, const Parabola& c, float s) {
  const float ab = span(a.apex, b.apex, s), bc = span(b.apex, c.apex, s), ac = span(a.apex, c.apex, s);
  return ((c.f - b.f) + ac * bc) * ab <= (b.f - a.f) * bc;
}

// Parabola b (right of a) is below a at sample x: crossing(a, b) < x, multiplied by 2 X_ab:
// f_b - f_a < X_ab (2x - a - b) s. Monotone in x, which makes walks from different starts agree.
GP_VIEW_HD inline bool past_crossing(const Parabola& a, const Parabola& b, int x, float s) {
  return b.f - a.f < span(a.apex, b.apex, s) * (float(2 * x - a.apex - b.apex) * s);
}

// Builds the stacks of the segment starting at `start` (a barrier, or -1: the line's start) and
// of the ones after it, up to the first segment closed by a barrier at or after `stop`, or the
// line's end. Line: f(i) -> float. Slots: get(i), set(i, apex) over n + 1 slots, and a `none`
// value that ends the line's last stack. The segment starting at b keeps its stack in slots b,
// b+1, ... (the line's start: 0, 1, ...).
template <class Line, class Slots>
GP_VIEW_HD void build_segments(const Line& f, Slots& slots, int n, float s, int start, int stop) {
  int base = 0, k = 0, q = 0;  // the stack's first slot, its entries, next sample
  Parabola below{0, 0.f}, top{0, 0.f};  // entries k-2 and k-1
  if (start >= 0) {
    base = start;
    top = {start, 0.f};
    slots.set(start, unsigned(start));
    k = 1;
    q = start + 1;
  }
  for (; q < n; ++q) {
    const float fq = f(q);
    if (!(fq < infinity)) continue;  // no solid on this sample's column: no parabola
    const Parabola p{q, fq};
    while (k >= 2 && hidden(below, top, p, s)) {  // the bottom entry is never popped
      top = below;
      --k;
      if (k >= 2) {
        const int a = int(slots.get(base + k - 2));
        below = {a, f(a)};
      }
    }
    below = top;
    top = p;
    // A barrier past `stop` opens the segment another lane builds, which writes slot q itself:
    // writing it here too (the same value) would race with that lane's reads of it.
    if (fq == 0.f && q >= stop && base + k == q) return;
    slots.set(base + k, unsigned(q));
    ++k;
    if (fq == 0.f) {  // a barrier closes this segment and opens the next
      if (q >= stop) return;
      base = q;
      top = {q, 0.f};
      k = 1;
      slots.set(q, unsigned(q));
    }
  }
  slots.set(base + k, Slots::none);
}

// What the envelope is at a sample: the apex of its lowest parabola there, or one of these.
constexpr int no_parabola = -1;  // the line has no solid anywhere: +inf
constexpr int on_barrier = -2;   // the sample itself is a zero: 0

// The envelope's value at sample x, from what at() chose there.
template <class Line>
GP_VIEW_HD float envelope_value(const Line& f, float s, int x, int apex) {
  if (apex == on_barrier) return 0.f;
  if (apex == no_parabola) return infinity;
  const float d = span(apex, x, s);
  return f(apex) + d * d;
}

// Walks the envelope at increasing samples, from the segment starting at `start` on (see
// build_segments): at(x) is the apex of the lowest parabola at x (or on_barrier, no_parabola).
template <class Line, class Slots>
struct Walker {
  Line f;
  Slots slots;
  float s;
  int start = -1, next_slot = 0;  // the segment's start; slot of the entry after `next`
  bool has_current = false, has_next = false;
  Parabola current{0, 0.f}, next{0, 0.f};

  GP_VIEW_HD Walker(const Line& line, const Slots& stacks, float spacing) : f(line), slots(stacks), s(spacing) {}

  GP_VIEW_HD void enter(int segment_start) {
    start = segment_start;
    const int slot = start < 0 ? 0 : start;
    has_current = load(slot, current);
    next_slot = slot + 1;
    has_next = has_current && !closes(current) && load(next_slot++, next);
  }

  GP_VIEW_HD int at(int x) {
    if (f(x) == 0.f) {
      enter(x);
      return on_barrier;
    }
    while (has_next && past_crossing(current, next, x, s)) {
      current = next;
      has_next = !closes(current) && load(next_slot++, next);
    }
    return has_current ? current.apex : no_parabola;
  }

 private:
  GP_VIEW_HD bool load(int slot, Parabola& p) const {
    const unsigned a = slots.get(slot);
    if (a == Slots::none) return false;
    p = {int(a), f(int(a))};
    return true;
  }
  // The barrier that closes the segment (its bottom barrier does not).
  GP_VIEW_HD bool closes(const Parabola& p) const { return p.f == 0.f && p.apex != start; }
};

// The sequential scan of a whole line (the CPU reference): out(x, value) for x = 0 .. n-1.
template <class Line, class Slots, class Out>
GP_VIEW_HD void envelope_line(const Line& f, Slots& slots, int n, float s, Out&& out) {
  build_segments(f, slots, n, s, -1, n);
  Walker<Line, Slots> walk(f, slots, s);
  walk.enter(-1);
  for (int x = 0; x < n; ++x) out(x, envelope_value(f, s, x, walk.at(x)));
}

// The GPU's split of a line among the 32 lanes of a warp: lane `lane` owns samples [begin, end).
struct LaneChunk {
  int begin, end;
};

GP_VIEW_HD inline LaneChunk lane_chunk(int n, int lane) {
  const int size = (n + 31) / 32;
  const int begin = lane * size < n ? lane * size : n;
  return {begin, begin + size < n ? begin + size : n};
}

// First and last barrier of a chunk (-1: none).
template <class Line>
GP_VIEW_HD void chunk_barriers(const Line& f, LaneChunk c, int& first, int& last) {
  first = last = -1;
  for (int x = c.begin; x < c.end; ++x)
    if (f(x) == 0.f) {
      if (first < 0) first = x;
      last = x;
    }
}

// A lane's part of building a line's stacks: lane 0 from the line's start, every other lane from
// the first barrier of its chunk; each up to the first barrier past its chunk.
template <class Line, class Slots>
GP_VIEW_HD void build_lane(const Line& f, Slots& slots, int n, float s, int lane, LaneChunk c, int first_barrier) {
  if (lane == 0)
    build_segments(f, slots, n, s, -1, c.end);
  else if (first_barrier >= 0)
    build_segments(f, slots, n, s, first_barrier, c.end);
}

// Slots as a plain array (the CPU's).
struct Slots32 {
  std::uint32_t* p;
  static constexpr unsigned none = 0xFFFFFFFFu;
  GP_VIEW_HD unsigned get(int i) const { return p[i]; }
  GP_VIEW_HD void set(int i, unsigned v) const { p[i] = v; }
};

// A line of samples one after the other.
struct PlainLine {
  const float* p;
  GP_VIEW_HD float operator()(int i) const { return p[i]; }
};

}  // namespace gp::pnm::edt_detail
