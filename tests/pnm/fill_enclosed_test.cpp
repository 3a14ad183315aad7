// CPU references of segment-pnm's fill of enclosed components: hand-made cases with known answers,
// in one piece and the out-of-core pieces (face flags, the change of unkept labels).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "cuda/pnm/fill_enclosed.hpp"
#include "support/random_volumes.hpp"

using namespace gp::pnm;
using gp::test::Dims;

namespace {

std::size_t index(const Dims& d, int x, int y, int z) { return (std::size_t(z) * d.ny + y) * d.nx + x; }

}  // namespace

TEST_CASE("fill_enclosed fills closed voids and keeps what touches the border", "[pnm][components]") {
  // A 7^3 solid cube with a closed 2x2x2 pore cavity, a pore channel from the x = 0 face, and a
  // pore voxel touching both only at corners.
  const Dims d{7, 7, 7};
  std::vector<std::uint8_t> m(d.voxels(), 0);
  for (int z = 3; z <= 4; ++z)
    for (int y = 3; y <= 4; ++y)
      for (int x = 3; x <= 4; ++x) m[index(d, x, y, z)] = 1;  // cavity: 8 voxels
  for (int x = 0; x <= 1; ++x) m[index(d, x, 1, 1)] = 1;       // channel from the face x = 0
  m[index(d, 2, 2, 2)] = 1;  // corner contact with the channel's end (1,1,1) only

  SECTION("6-connected pores: the cavity and the diagonal voxel are closed") {
    auto filled = m;
    CHECK(fill_enclosed_cpu(whole_volume(filled.data(), 7, 7, 7), 1, Connectivity::c6) == 9);
    CHECK(filled[index(d, 3, 3, 3)] == 0);
    CHECK(filled[index(d, 2, 2, 2)] == 0);
    CHECK(filled[index(d, 0, 1, 1)] == 1);
    CHECK(filled[index(d, 1, 1, 1)] == 1);
  }
  SECTION("26-connected pores: the diagonal voxel joins the open channel, and the cavity through it") {
    // (2,2,2) touches the cavity's corner (3,3,3) too, so everything is open.
    auto filled = m;
    CHECK(fill_enclosed_cpu(whole_volume(filled.data(), 7, 7, 7), 1, Connectivity::c26) == 0);
    CHECK(filled == m);
  }
  SECTION("phase 0: a floating solid island inside a pore is removed, solid on the border kept") {
    std::vector<std::uint8_t> p(d.voxels(), 1);
    for (int i = 0; i < 7; ++i) p[index(d, i, 0, 0)] = 0;  // solid along an edge: on the border
    p[index(d, 3, 3, 3)] = 0;
    p[index(d, 3, 4, 3)] = 0;  // a 2-voxel island
    CHECK(fill_enclosed_cpu(whole_volume(p.data(), 7, 7, 7), 0, Connectivity::c6) == 2);
    CHECK(p[index(d, 3, 3, 3)] == 1);
    CHECK(p[index(d, 3, 4, 3)] == 1);
    CHECK(p[index(d, 6, 0, 0)] == 0);
  }
  SECTION("a slab is refused: the border is the whole volume's") {
    CHECK_THROWS(fill_enclosed_cpu(gp::test::slab_of(m, d, 0, 3), 1, Connectivity::c6));
  }
}

TEST_CASE("face flags and the change of unkept labels (the out-of-core fill's pieces)", "[pnm][components]") {
  // 6x5x4: label 1 fills x = 0 (on a face), label 2 a voxel inside, label 3 the last slice's
  // centre (on a face only when the view holds the volume's last slice).
  const Dims d{6, 5, 4};
  std::vector<std::uint32_t> labels(d.voxels(), 0);
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y) labels[index(d, 0, y, z)] = 1;
  labels[index(d, 2, 2, 1)] = 2;
  labels[index(d, 3, 2, 3)] = 3;
  std::vector<std::uint8_t> flags(4, 9);
  mark_face_labels_cpu(whole_volume(labels.data(), d.nx, d.ny, d.nz), 3, flags.data());
  CHECK(flags == std::vector<std::uint8_t>{0, 1, 0, 1});
  // Slices 1..2 only: label 3 is not there, and z = 1 is no face of the volume.
  mark_face_labels_cpu(gp::test::slab_of(labels, d, 1, 2), 3, flags.data());
  CHECK(flags == std::vector<std::uint8_t>{0, 1, 0, 0});

  std::vector<std::uint8_t> mask(d.voxels(), 1);
  const std::vector<std::uint8_t> keep{0, 1, 0, 1};
  CHECK(change_unkept_labels_cpu(whole_volume(mask.data(), d.nx, d.ny, d.nz),
                                 whole_volume(labels.data(), d.nx, d.ny, d.nz), keep.data(), 0) == 1);
  CHECK(mask[index(d, 2, 2, 1)] == 0);
  CHECK(std::count(mask.begin(), mask.end(), 0) == 1);
}
