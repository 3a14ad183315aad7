#pragma once
// Which channels of an HDR source to read and how they map to R, G, B, A. The rules (parts,
// layers, default RGB(A) / Y / first channel) are the same whichever library decodes the file;
// each reader describes its file as SourceParts and reads the plan it is given.
#include <cstddef>
#include <string>
#include <vector>

#include "core/views.hpp"

namespace gp::io {

// Which part of a source to read. Empty = defaults: R,G,B(,A) (case-insensitive), else Y as grey,
// else the first channel as grey.
struct ChannelSelection {
  std::string layer;                  // EXR part name, or channel-name prefix ("diffuse" -> diffuse.R)
  std::vector<std::string> channels;  // explicit names (1, 3 or 4: grey, RGB, RGBA), within the layer
};

// One image of a source file (an EXR part, a TIFF subimage), as its reader lists it.
struct SourcePart {
  std::string name;                    // EXR part name; "" when unnamed
  std::vector<std::string> channels;   // in the reader's order
  std::vector<bool> channel_is_half;   // per channel: stored as half (else float or integer)
  int width = 0, height = 0;           // the data window
  int y_begin = 0;                     // its first row
  bool tiled = false;
  bool deep = false;
  bool volume = false;
};

// Channel indices of the selection in R, G, B(, A) order: 3 or 4 entries, grey repeated.
// A reader turns this into the channels it decodes.
struct SelectedChannels {
  int part = 0;
  std::vector<int> rgba;
  std::string layer_name;  // resolved part/layer, for messages and reports
};

// What to decode: `channels` of part `subimage` (reader indices, in the order they are stored per
// pixel) as `type` (f16 when every selected channel is half, else f32); `rgba_index` says which of
// them is R, G, B, A (indices into `channels`; rgba_index[3] == -1 = no alpha).
struct ReadPlan {
  int subimage = 0;
  std::vector<int> channels;
  int rgba_index[4] = {0, 1, 2, -1};
  int width = 0, height = 0;
  int y_begin = 0;                           // first row of the data window
  bool tiled = false;
  PixelType type = PixelType::f32;
  std::string layer_name;                    // resolved part/layer, for messages and reports
  std::vector<std::string> channel_names;    // names of the selected R,G,B(,A)
  int channel_count() const { return int(channels.size()); }
  std::size_t row_bytes() const;             // width * channel_count() * type size
  std::size_t bytes() const { return row_bytes() * std::size_t(height); }
};

// Resolves `selection` against `parts`. Throws gp::ItemError(path, "decode", ...) naming a missing
// layer/channel and listing what the file has, or refusing deep/volume images.
SelectedChannels select_channels(const std::string& path, const std::vector<SourcePart>& parts,
                                 const ChannelSelection& selection);

// The plan for reading `selected` as the distinct channels in R,G,B,A order (`contiguous` = false)
// or as the whole index range they span (`contiguous` = true, for readers that read ranges).
// Throws gp::ItemError for sizes a damaged header would claim.
ReadPlan make_read_plan(const std::string& path, const std::vector<SourcePart>& parts, const SelectedChannels& selected,
                        bool contiguous);

}  // namespace gp::io
