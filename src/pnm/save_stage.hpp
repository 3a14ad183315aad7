#pragma once
#include <cstdint>

#include "pnm/pnm_item.hpp"
#include "pnm/pnm_settings.hpp"

namespace gp::pnm {

// Builds the pore network from the item's statistics and writes every configured file into the
// item's output folder (each atomically), summary.json last. Fills item.summary and item.written.
void save_stage(PnmItem& item, const Settings& settings);

// The least disk the labels (and the intermediates, when asked for) of a volume can take: a raw
// NRRD at the smallest type its labels can have (uint32 when asked for, else a byte a voxel);
// gzip a tenth of a byte a voxel (the sample foam's labels took 0.16). What segment-pnm checks
// the output folder's free space against before any work.
std::uint64_t least_output_bytes(const Settings& settings, std::uint64_t voxels);

}  // namespace gp::pnm
