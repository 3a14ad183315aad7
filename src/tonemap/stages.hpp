#pragma once
// The three stages of tonemap-exr, one file each.
#include "core/gpu_runtime.hpp"
#include "core/host_pool.hpp"
#include "tonemap/compute_backend.hpp"
#include "tonemap/tonemap_item.hpp"
#include "tonemap/tonemap_settings.hpp"

namespace gp::tonemap {

// Opens the source, resolves channels and plans outputs. Then either decodes into host memory,
// the blocks of the file on `threads_per_file` threads, or, for our block decoder
// (run.exr_decode gpu, or auto once the GPU is ready: the files read while the driver starts are
// decoded here meanwhile), reads the file's bytes and its blocks for the compute stage.
void load_stage(TonemapItem& item, const Settings& s, HostPool& memory, int threads_per_file, bool gpu_ready);

// Convert -> exposure -> tone curve -> MIP levels / thumbnail -> quantise (-> fast PNG streams),
// leaving the outputs in item.images. `source`: the item's pixels already in working memory (a
// batch's decode_exr_items), else they are decoded (block decoder) or uploaded here. Working
// memory allocated here is released before returning.
void compute_stage(TonemapItem& item, const Settings& s, HostPool& memory, ComputeBackend& backend, void* source = nullptr);

// Writes every encoded image atomically.
void save_stage(TonemapItem& item, const Settings& s);

}  // namespace gp::tonemap
