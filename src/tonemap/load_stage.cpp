#include <fmt/format.h>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "io/file_bytes.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {
namespace {

// run.exr_decode gpu, or auto with the GPU ready: the file's blocks for our decoder, when it
// decodes them. gpu and a file it does not decode: an error naming the file and the setting.
std::optional<io::ExrBlocks> blocks_for_our_decoder(const io::HdrReader& reader, const io::ReadPlan& plan,
                                                    const Settings& s, bool gpu_ready) {
  if (s.exr_decode == "cpu" || (s.exr_decode == "auto" && !gpu_ready)) return std::nullopt;
  std::optional<io::ExrBlocks> blocks = reader.exr_blocks(plan);
  if (blocks && io::exr_blocks_supported(blocks->compression)) return blocks;
  if (s.exr_decode == "gpu")
    throw ItemError(reader.path(), "decode",
                    fmt::format("run.exr_decode is \"gpu\" but the GPU decoder does not take this file ({}): it decodes "
                                "OpenEXR files of NONE, RLE, ZIPS, ZIP and PIZ compression; set run.exr_decode to "
                                "\"auto\" or \"cpu\"",
                                blocks ? io::exr_compression_name(blocks->compression) + " compression" : reader.format_name()));
  return std::nullopt;
}

}  // namespace

void load_stage(TonemapItem& item, const Settings& s, HostPool& memory, int threads_per_file, bool gpu_ready) {
  ScopedStage t("decode");
  io::HdrReader reader(item.name);
  item.plan = reader.plan(s.channels);
  item.has_alpha = item.plan.rgba_index[3] >= 0;
  item.outputs = plan_outputs(s, item.input, Size{item.plan.width, item.plan.height});
  item.exr_blocks = blocks_for_our_decoder(reader, item.plan, s, gpu_ready);
  if (item.exr_blocks) {  // decoded in the compute stage; here only read
    ScopedStage read("read");
    io::read_file_into(item.name, [&](std::size_t size) {
      item.file = memory.alloc(size);
      return item.file.get();
    });
    return;
  }
  item.details.push_back({"decoder", "cpu"});
  // Pageable: pinning it would cost about as much as decoding; uploads go through pinned staging.
  item.source = memory.alloc(item.plan.bytes());
  reader.read(item.plan, item.source.get(), item.plan.row_bytes(), threads_per_file);
}

}  // namespace gp::tonemap
