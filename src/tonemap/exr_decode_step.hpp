#pragma once
// EXR files decoded by our block decoder (cuda/exr) inside the compute stage: every file's bytes
// uploaded once, the blocks of all the files decompressed and unpacked in one launch per
// compression (a 4K ZIP frame is 135 blocks, far too few to fill a GPU alone), each file's
// planned pixels left in working memory for the rest of the compute stage.
#include <exception>
#include <vector>

#include "tonemap/compute_backend.hpp"
#include "tonemap/tonemap_item.hpp"

namespace gp::tonemap {

struct DecodedSources {
  std::vector<void*> pixels;                 // per item: its plan's pixels in working memory (null if it failed)
  std::vector<std::exception_ptr> errors;    // per item: null, or why it failed (a damaged block...)
};

// `items` hold exr_blocks and the file's bytes (load_stage). The sources stay allocated; the
// decoder's scratch is released before returning. The items keep their file bytes (a batch that
// runs out of memory is decoded again one file at a time).
DecodedSources decode_exr_items(const std::vector<TonemapItem*>& items, ComputeBackend& b);

}  // namespace gp::tonemap
