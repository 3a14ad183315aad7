#pragma once
// Row loop of the CPU references: rows spread over threads with gp::parallel_for, in chunks of at
// least ~16k pixels so that small images (thumbnails, small MIP levels) don't pay for threads.
#include <algorithm>

#include "core/parallel_for.hpp"

namespace gp::tonemap::cpu {

template <class Body>
void for_each_row(int width, int height, Body&& body) {
  const long min_rows = std::max(1L, 16384L / std::max(width, 1));
  parallel_for(height, [&](long begin, long end) {
    for (long y = begin; y < end; ++y) body(int(y));
  }, min_rows);
}

}  // namespace gp::tonemap::cpu
