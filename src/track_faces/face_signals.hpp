#pragma once
// Per-face signals computed from the 468 face-mesh landmarks (x, y in frame pixels, z depth in the
// scale of x, larger away from the camera), defined in the README ("Face signals"):
//   - head pose: the face's axes from the mesh (left-right from symmetric landmark pairs, up from
//     the chin to the forehead along the midline, the face's normal their cross product), as the
//     rotation Rz(roll) Rx(-pitch) Ry(yaw) of a frontal face, in degrees: yaw > 0 turned to the
//     subject's left (the image's right), pitch > 0 looking up, roll > 0 tilted towards the
//     subject's right shoulder (counter-clockwise in the image). Turning the image in its plane
//     changes roll by the same angle and leaves yaw and pitch;
//   - translation: the point between the eyes in millimetres in the camera's frame (x right,
//     y down, z forward), for a pinhole camera of the given horizontal field of view and a distance
//     between the eye centres of 63 mm (the adult mean);
//   - eye openness per eye: the eye aspect ratio (|p2 - p6| + |p3 - p5|) / (2 |p1 - p4|) over six
//     eye-contour landmarks, in 3-D (about 0.25-0.35 open, under 0.1 closed);
//   - mouth openness: inner-lip gap over inner-mouth width (0 closed, about 0.5 and more wide open).
#include <array>
#include <vector>

namespace gp::track {

struct FaceSignals {
  float yaw = 0, pitch = 0, roll = 0;       // degrees
  std::array<float, 3> translation_mm{};    // camera frame: x right, y down, z forward
  float right_eye = 0, left_eye = 0;        // the subject's eyes: eye aspect ratio
  float mouth = 0;                          // mouth aspect ratio
};

// landmarks: 468 x (x, y, z). frame_width/height: the frame's size; fov_deg: the camera's
// horizontal field of view.
FaceSignals face_signals(const std::vector<float>& landmarks, int frame_width, int frame_height, float fov_deg);

}  // namespace gp::track
