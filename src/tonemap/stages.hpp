#pragma once
// The three stages of tonemap-exr, one file each.
#include "core/gpu_runtime.hpp"
#include "core/host_pool.hpp"
#include "tonemap/compute_backend.hpp"
#include "tonemap/tonemap_item.hpp"
#include "tonemap/tonemap_settings.hpp"

namespace gp::tonemap {

// Opens the source, resolves channels, plans outputs and decodes into host memory, the blocks of
// the file on `threads_per_file` threads.
void load_stage(TonemapItem& item, const Settings& s, HostPool& memory, int threads_per_file);

// Convert -> exposure -> tone curve -> MIP levels / thumbnail -> quantise (-> fast PNG streams),
// leaving the outputs in item.images. Working memory is released before returning.
void compute_stage(TonemapItem& item, const Settings& s, HostPool& memory, ComputeBackend& backend);

// Writes every encoded image atomically.
void save_stage(TonemapItem& item, const Settings& s);

}  // namespace gp::tonemap
