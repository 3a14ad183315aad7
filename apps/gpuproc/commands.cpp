#include "commands.hpp"

#include "pnm/pnm_command.hpp"
#include "segment_body/segment_command.hpp"
#include "stitch/stitch_command.hpp"
#include "tonemap/tonemap_command.hpp"
#include "track_faces/track_command.hpp"

namespace gp::app {

const std::map<std::string, CommandFactory>& batch_commands() {
  static const std::map<std::string, CommandFactory> commands{
      {"segment-body", [] { return segbody::make_command(); }},
      {"segment-pnm", [] { return pnm::make_command(); }},
      {"stitch-360", [] { return stitch::make_command(); }},
      {"tonemap-exr", [] { return tonemap::make_command(); }},
      {"track-faces", [] { return track::make_command(); }},
  };
  return commands;
}

}  // namespace gp::app
