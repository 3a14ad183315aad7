#pragma once
#include "pnm/pnm_item.hpp"
#include "pnm/pnm_settings.hpp"

namespace gp::pnm {

// Builds the pore network from the item's statistics and writes every configured file into the
// item's output folder (each atomically), summary.json last. Fills item.summary and item.written.
void save_stage(PnmItem& item, const Settings& settings);

}  // namespace gp::pnm
