#pragma once
// segment-body's pose preview (output.pose.preview): the frame with the background dimmed by the
// mask, and each person's skeleton (MediaPipe's POSE_CONNECTIONS between landmarks whose visibility
// is at least 0.5, as its drawing utilities do), landmarks, box and "#<id>" in the track's colour.
#include <vector>

#include "core/views.hpp"
#include "segment_body/pose_model.hpp"

namespace gp::segbody {

// rgba: the frame with the mask as alpha (u8, 4 channels); rgb: u8, 3 channels, the same size.
void pose_preview(const ImageView& rgba, const std::vector<PersonPose>& people, const ImageView& rgb);

}  // namespace gp::segbody
