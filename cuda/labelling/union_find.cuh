#pragma once
// Lock-free union-find on the GPU over 32-bit indices, shared by the connected components
// (components.cu) and segment-pnm's marker clusters (cuda/pnm/markers.cu). Linking always hangs the
// larger root under the smaller with atomicMin, so the final root of a set is its smallest index
// whatever the scheduling: the result is canonical. A failed atomicMin (the root was linked
// meanwhile) retries from the new parent. find_root() splits paths with stores of an ancestor,
// which cannot undo a link: a store only lands on a non-root, and a link made by an atomicMin on
// a non-root is never relied on (its caller retries). In global memory the accesses are volatile,
// so none is served from a register copy; in shared memory (SharedParents) every access is an
// atomic, so that racecheck (which sees shared memory only) checks the rest of a kernel.
#include <cstdint>

namespace gp::labelling::union_find {

// A parent read that is never served from a register copy.
__device__ __forceinline__ std::uint32_t load_parent(const std::uint32_t* p) {
  return *static_cast<const volatile std::uint32_t*>(p);
}

// How find_root() and unite() read and write parents: in global memory.
struct GlobalParents {
  __device__ static std::uint32_t load(std::uint32_t* p) { return load_parent(p); }
  __device__ static void store(std::uint32_t* p, std::uint32_t v) { *static_cast<volatile std::uint32_t*>(p) = v; }
};
// In shared memory: atomics.
struct SharedParents {
  __device__ static std::uint32_t load(std::uint32_t* p) { return atomicOr(p, 0u); }
  __device__ static void store(std::uint32_t* p, std::uint32_t v) { atomicExch(p, v); }
};

// Root of i. Path splitting: each visited entry is pointed at its grandparent.
template <class Parents = GlobalParents>
__device__ std::uint32_t find_root(std::uint32_t* parent, std::uint32_t i) {
  while (true) {
    const std::uint32_t p = Parents::load(&parent[i]);
    if (p == i) return i;
    const std::uint32_t g = Parents::load(&parent[p]);
    if (g == p) return p;
    Parents::store(&parent[i], g);
    i = p;
  }
}

// Joins the sets of a and b.
template <class Parents = GlobalParents>
__device__ void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  a = find_root<Parents>(parent, a);
  b = find_root<Parents>(parent, b);
  while (a != b) {
    if (a > b) {
      const std::uint32_t t = a;
      a = b;
      b = t;
    }
    const std::uint32_t old = atomicMin(&parent[b], a);
    if (old == b) return;  // b was a root: it now hangs under a
    b = find_root<Parents>(parent, old);
    a = find_root<Parents>(parent, a);
  }
}

// Root of i, read only: for the pass that points every entry at its root, which cannot split
// paths (a splitting store into an entry whose own thread has already written its root there
// would leave that entry at a non-root). Each thread then writes its own entry only; others read
// it as its old parent or its root, both ancestors, so every chase ends at the true root.
__device__ __forceinline__ std::uint32_t chase_root(const std::uint32_t* parent, std::uint32_t i) {
  for (std::uint32_t p = load_parent(&parent[i]); p != i; p = load_parent(&parent[i])) i = p;
  return i;
}

}  // namespace gp::labelling::union_find
