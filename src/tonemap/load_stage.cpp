#include "core/trace.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {

void load_stage(TonemapItem& item, const Settings& s, HostPool& memory, int threads_per_file) {
  ScopedStage t("decode");
  io::HdrReader reader(item.name);
  item.plan = reader.plan(s.channels);
  item.has_alpha = item.plan.rgba_index[3] >= 0;
  item.outputs = plan_outputs(s, item.input, Size{item.plan.width, item.plan.height});
  // Pageable: pinning it would cost about as much as decoding; uploads go through pinned staging.
  item.source = memory.alloc(item.plan.bytes());
  reader.read(item.plan, item.source.get(), item.plan.row_bytes(), threads_per_file);
}

}  // namespace gp::tonemap
