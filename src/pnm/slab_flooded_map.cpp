#include "pnm/slab_stages.hpp"

namespace gp::pnm {

FloodedMap::FloodedMap(const VolumeStore<float>& distance, GaussianSigma sigma, bool smooth)
    : distance_(distance), sigma_(sigma), smooth_(smooth), halo_(smooth ? gaussian_halo(sigma.z) : 0) {}

void FloodedMap::fill(SlabLane& lane, VolumeView<float> out) const {
  if (!smooth_) return lane.upload_into(distance_, out);
  const SlabRange held{out.z_first, out.z_first + out.z_count};
  const auto in = lane.upload(distance_, with_halo(held, halo_, dims().nz), "segment-pnm distance slab");
  gaussian_filter_gpu(in, out, sigma_, lane.scratch(), lane.stream());
}

VolumeView<float> FloodedMap::upload(SlabLane& lane, SlabRange held, const char* what) const {
  if (!smooth_) return lane.upload(distance_, held, what);
  const auto out = lane.allocate<float>(held, what);
  fill(lane, out);
  return out;
}

}  // namespace gp::pnm
