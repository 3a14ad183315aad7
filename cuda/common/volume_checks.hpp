#pragma once
// Argument checks of the volume kernels (GPU and CPU sides alike). A bad view is the caller's bug:
// it is reported as a gp::Error naming the operation and the views.
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "cuda/common/volume_view.hpp"

namespace gp::volume_checks {

using kernel_checks::require;

template <class T>
std::string describe(const VolumeView<T>& v) {
  return std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz) + " volume, slices [" +
         std::to_string(v.z_first) + ", " + std::to_string(v.z_first + v.z_count) + ")";
}

// Positive whole-volume size, held slices inside it, memory behind them.
template <class T>
void require_view(const VolumeView<T>& v, const char* op, const char* name) {
  const bool ok = v.nx > 0 && v.ny > 0 && v.nz > 0 && v.z_first >= 0 && v.z_count >= 0 &&
                  v.z_first + v.z_count <= v.nz && (v.z_count == 0 || v.data != nullptr);
  require(ok, op, std::string("invalid ") + name + " view: " + describe(v));
}

template <class A, class B>
void require_same_volume(const VolumeView<A>& a, const VolumeView<B>& b, const char* op) {
  require(a.nx == b.nx && a.ny == b.ny && a.nz == b.nz, op,
          "views of different volumes: " + describe(a) + " and " + describe(b));
}

template <class A, class B>
void require_same_slices(const VolumeView<A>& a, const VolumeView<B>& b, const char* op) {
  require_same_volume(a, b, op);
  require(a.z_first == b.z_first && a.z_count == b.z_count, op,
          "views must hold the same slices: " + describe(a) + " and " + describe(b));
}

// `in` holds out's slices plus `halo` slices each side, as far as the volume goes.
template <class A, class B>
void require_halo(const VolumeView<A>& in, const VolumeView<B>& out, int halo, const char* op) {
  require_same_volume(in, out, op);
  if (out.z_count == 0) return;
  const int first = std::max(0, out.z_first - halo);
  const int last = std::min(out.nz, out.z_first + out.z_count + halo);
  require(in.z_first <= first && in.z_first + in.z_count >= last, op,
          "input " + describe(in) + " must hold slices [" + std::to_string(first) + ", " + std::to_string(last) +
              ") for output " + describe(out) + " (halo " + std::to_string(halo) + ")");
}

template <class A, class B>
bool overlap(const VolumeView<A>& a, const VolumeView<B>& b) {
  const char* a0 = reinterpret_cast<const char*>(a.data);
  const char* b0 = reinterpret_cast<const char*>(b.data);
  const char* a1 = a0 + a.held_voxels() * sizeof(A);
  const char* b1 = b0 + b.held_voxels() * sizeof(B);
  return a.held_voxels() > 0 && b.held_voxels() > 0 && a0 < b1 && b0 < a1;
}

}  // namespace gp::volume_checks
