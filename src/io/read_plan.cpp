#include "io/read_plan.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "core/text.hpp"

namespace gp::io {
namespace {

// A damaged header can claim any size; refuse before anyone allocates it.
constexpr double kMaxImageBytes = 32.0 * 1024 * 1024 * 1024;

bool iequals(const std::string& a, const std::string& b) { return lowercase(a) == lowercase(b); }

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// The layer of a channel name: everything before the last '.' ("diffuse.R" -> "diffuse", "R" -> "").
std::string layer_of(const std::string& channel) {
  auto dot = channel.rfind('.');
  return dot == std::string::npos ? "" : channel.substr(0, dot);
}

std::vector<std::string> layers_of(const SourcePart& part) {
  std::vector<std::string> layers;
  for (auto& name : part.channels)
    if (std::find(layers.begin(), layers.end(), layer_of(name)) == layers.end()) layers.push_back(layer_of(name));
  return layers;
}

// "parts "beauty" (R, G, B, A), "diffuse" (...)" or "channels R, G, B, A, diffuse.R, ... (layers ...)",
// for error messages that say what the file has.
std::string describe_contents(const std::vector<SourcePart>& parts) {
  auto channels_and_layers = [](const SourcePart& part) {
    std::string s = join(part.channels, ", ");
    std::vector<std::string> named_layers;
    for (auto& l : layers_of(part))
      if (!l.empty()) named_layers.push_back(quoted(l));
    if (!named_layers.empty()) s += "; layers " + join(named_layers, ", ");
    return s;
  };
  if (parts.size() == 1 && parts[0].name.empty()) return "the file has channels " + channels_and_layers(parts[0]);
  std::vector<std::string> described;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& name = parts[i].name;
    described.push_back((name.empty() ? "#" + std::to_string(i) : quoted(name)) + " (" + channels_and_layers(parts[i]) + ")");
  }
  return "the file has parts " + join(described, ", ");
}

// Channel indices of `part` directly in `layer` ("" = channels without a layer prefix).
std::vector<int> channels_in_layer(const SourcePart& part, const std::string& layer) {
  std::vector<int> found;
  for (int c = 0; c < int(part.channels.size()); ++c)
    if (layer_of(part.channels[std::size_t(c)]) == layer) found.push_back(c);
  return found;
}

// The channel of `candidates` whose name, without the layer prefix, is `short_name` (any case); -1 if none.
int find_in_layer(const SourcePart& part, const std::vector<int>& candidates, const std::string& layer,
                  const std::string& short_name) {
  const std::size_t prefix = layer.empty() ? 0 : layer.size() + 1;
  for (int c : candidates)
    if (iequals(part.channels[std::size_t(c)].substr(prefix), short_name)) return c;
  return -1;
}

// Default selection within a layer: R,G,B(,A); else Y (with A when present) as grey; else the
// first channel as grey. Returns channel indices in RGBA order (3 or 4 of them; grey repeats).
std::vector<int> default_channels(const SourcePart& part, const std::vector<int>& candidates, const std::string& layer) {
  auto find = [&](const char* n) { return find_in_layer(part, candidates, layer, n); };
  const int r = find("R"), g = find("G"), b = find("B"), a = find("A"), y = find("Y");
  if (r >= 0 && g >= 0 && b >= 0) return a >= 0 ? std::vector<int>{r, g, b, a} : std::vector<int>{r, g, b};
  const int grey = y >= 0 ? y : candidates.front();
  return a >= 0 && a != grey ? std::vector<int>{grey, grey, grey, a} : std::vector<int>{grey, grey, grey};
}

// Where a requested layer is: the EXR part of that name (whole part, layer ""), else the first
// part with channels named "<requested>.*" (layer = requested). Nothing when neither exists.
std::optional<std::pair<int, std::string>> find_layer(const std::vector<SourcePart>& parts, const std::string& requested) {
  for (std::size_t s = 0; s < parts.size(); ++s)
    if (parts[s].name == requested) return std::make_pair(int(s), std::string());
  for (std::size_t s = 0; s < parts.size(); ++s)
    for (auto& channel : parts[s].channels)
      if (starts_with(channel, requested + ".")) return std::make_pair(int(s), requested);
  return std::nullopt;
}

// An explicitly named channel: "<layer>.<name>" exactly, else `name` within the layer in any case; -1 if none.
int find_channel(const SourcePart& part, const std::vector<int>& candidates, const std::string& layer,
                 const std::string& name) {
  const std::string full = layer.empty() ? name : layer + "." + name;
  auto exact = std::find(part.channels.begin(), part.channels.end(), full);
  return exact != part.channels.end() ? int(exact - part.channels.begin()) : find_in_layer(part, candidates, layer, name);
}

}  // namespace

std::size_t ReadPlan::row_bytes() const { return std::size_t(width) * channels.size() * pixel_type_bytes(type); }

SelectedChannels select_channels(const std::string& path, const std::vector<SourcePart>& parts,
                                 const ChannelSelection& selection) {
  if (parts.empty()) throw ItemError(path, "decode", "the file has no images");
  auto missing = [&](const std::string& what) { return ItemError(path, "decode", what + "; " + describe_contents(parts)); };

  SelectedChannels selected;
  std::string layer;
  if (!selection.layer.empty()) {
    const auto found = find_layer(parts, selection.layer);
    if (!found) throw missing("no part or layer " + quoted(selection.layer));
    std::tie(selected.part, layer) = *found;
  }
  const SourcePart& part = parts[std::size_t(selected.part)];
  if (part.deep) throw ItemError(path, "decode", "deep images are not supported");
  if (part.volume) throw ItemError(path, "decode", "volume images are not supported");

  std::vector<int> candidates = channels_in_layer(part, layer);
  // A part whose channels all have layer prefixes: default to the first channel's layer.
  if (candidates.empty() && selection.layer.empty() && !part.channels.empty()) {
    layer = layer_of(part.channels[0]);
    candidates = channels_in_layer(part, layer);
  }
  if (candidates.empty()) throw missing("layer " + quoted(selection.layer) + " has no channels of its own");

  if (selection.channels.empty()) {
    selected.rgba = default_channels(part, candidates, layer);
  } else {
    const std::size_t n = selection.channels.size();
    if (n != 1 && n != 3 && n != 4)
      throw ItemError(path, "decode", "select 1 (grey), 3 (RGB) or 4 (RGBA) channels, not " + std::to_string(n));
    for (auto& name : selection.channels) {
      const int c = find_channel(part, candidates, layer, name);
      if (c < 0) throw missing("no channel " + quoted(layer.empty() ? name : layer + "." + name));
      selected.rgba.push_back(c);
    }
    if (n == 1) selected.rgba = {selected.rgba[0], selected.rgba[0], selected.rgba[0]};
  }
  selected.layer_name = part.name.empty() ? layer : layer.empty() ? part.name : part.name + "." + layer;
  return selected;
}

ReadPlan make_read_plan(const std::string& path, const std::vector<SourcePart>& parts, const SelectedChannels& selected,
                        bool contiguous) {
  const SourcePart& part = parts.at(std::size_t(selected.part));
  ReadPlan plan;
  plan.subimage = selected.part;
  plan.width = part.width;
  plan.height = part.height;
  plan.y_begin = part.y_begin;
  plan.tiled = part.tiled;
  plan.layer_name = selected.layer_name;
  if (contiguous) {
    const int begin = *std::min_element(selected.rgba.begin(), selected.rgba.end());
    const int end = *std::max_element(selected.rgba.begin(), selected.rgba.end()) + 1;
    for (int c = begin; c < end; ++c) plan.channels.push_back(c);
  } else {
    for (int c : selected.rgba)
      if (std::find(plan.channels.begin(), plan.channels.end(), c) == plan.channels.end()) plan.channels.push_back(c);
  }
  bool all_half = true;
  for (std::size_t i = 0; i < 4; ++i) {
    if (i >= selected.rgba.size()) {
      plan.rgba_index[i] = -1;
      continue;
    }
    const int c = selected.rgba[i];
    plan.rgba_index[i] = int(std::find(plan.channels.begin(), plan.channels.end(), c) - plan.channels.begin());
    all_half = all_half && part.channel_is_half[std::size_t(c)];
    if (i == 0 || c != selected.rgba[i - 1]) plan.channel_names.push_back(part.channels[std::size_t(c)]);
  }
  plan.type = all_half ? PixelType::f16 : PixelType::f32;
  if (plan.width < 1 || plan.height < 1 || double(plan.bytes()) > kMaxImageBytes)
    throw ItemError(path, "decode", "implausible image size " + std::to_string(plan.width) + "x" +
                                        std::to_string(plan.height) + " (damaged header?)");
  return plan;
}

}  // namespace gp::io
