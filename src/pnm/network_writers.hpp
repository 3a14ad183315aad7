#pragma once
// segment-pnm's output files. Each is written through gp::write_atomically (it appears under its
// name only once complete) and throws gp::ItemError(path, "write", ...) when it cannot be written.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "io/volume.hpp"
#include "pnm/network.hpp"
#include "pnm/volume_store.hpp"

namespace gp::pnm {

// pores.csv / throats.csv: one row per pore or throat, one column per property and component
// with OpenPNM's naming ("pore.coords[0]", "throat.conns[1]"), as OpenPNM's CSV export writes
// them. Reals in the shortest form that reads back to the same double, booleans True / False.
void write_pores_csv(const std::string& path, const PoreNetwork& network);
void write_throats_csv(const std::string& path, const PoreNetwork& network);

// network.json: the network as an OpenPNM dict ({"pore.coords": [[x, y, z], ...], "throat.conns":
// [[i, j], ...], ...}) plus "network" (counts, volume size, spacing, origin, length unit) and
// "units" (each property's unit; "" for labels, counts and ratios).
void write_network_json(const std::string& path, const PoreNetwork& network);

// network.vtp: VTK XML PolyData (ASCII) for ParaView. Pores are points, each with a vertex cell;
// throats are lines between them. Pore properties are PointData; throat properties are CellData,
// whose cells are the Np vertex cells first and then the Nt lines (VTK's cell order), so throat
// arrays hold 0 on the vertex cells; the CellData array "is_throat" (0/1) tells them apart (e.g. for
// a Threshold filter). Vectors are 3-component arrays, throat.conns a 2-component one.
void write_network_vtp(const std::string& path, const PoreNetwork& network);

// Metres per length unit for the Statoil files ("m", "cm", "mm", "um", "µm", "micron", "nm");
// nullopt for others ("voxel").
std::optional<double> metres_per_unit(const std::string& length_unit);

// The Statoil / Imperial College format that pnflow and OpenPNM's Statoil importer read:
// PREFIX_node1.dat, PREFIX_node2.dat, PREFIX_link1.dat, PREFIX_link2.dat in `dir`, in metres
// (lengths times `metres_per_unit`). Flow is along x: pores with voxels on the x = 0 face connect
// to the inlet reservoir (index -1), those on x = nx-1 to the outlet (index 0), each through a
// boundary throat numbered after the network's throats. Columns and how they are derived:
//  node1: header "Np Lx Ly Lz" (the volume's size); per pore: index (1-based), x, y, z (pore.coords
//    relative to the volume's corner: the box is [0, L]), coordination number (reservoirs
//    included), neighbour indices, inlet flag, outlet flag, throat indices.
//  node2: index, volume (pore.volume), radius (pore.inscribed_diameter / 2), shape factor
//    (pore.shape_factor), clay volume 0.
//  link1: header Nt; per throat: index, pore 1, pore 2, radius (throat.inscribed_diameter / 2),
//    shape factor (throat.shape_factor), total length (throat.total_length).
//  link2: index, pore 1, pore 2, pore 1 length, pore 2 length, throat length
//    (throat.conduit_lengths), throat volume 0 (the watershed gives all pore space to pores),
//    clay volume 0.
//  Boundary throats: radius min(pore radius, sqrt(A / pi)) with A the area of the pore's voxels on
//    that face, shape factor r^2 / (4 A) capped at 1/(4 pi), total length = pore 1 length = the
//    distance from the pore's centroid to the face, throat and pore 2 lengths 0.
// Returns the four paths.
std::vector<std::string> write_statoil(const std::string& dir, const std::string& prefix, const PoreNetwork& network,
                                       double metres_per_unit);

// Volumes as NRRD 0004 (3D Slicer, ITK, teem, pynrrd, napari): sizes nx ny nz, space directions
// (each voxel axis's direction times its spacing; an oblique DICOM series keeps its orientation),
// space origin; `lps`: the positions are DICOM patient coordinates ("space:
// left-posterior-superior"), otherwise "space dimension: 3".
struct LabelVolumeInfo {
  io::Dims3 dims;
  io::Spacing3 spacing;
  std::array<double, 3> origin{0, 0, 0};
  bool lps = false;
  std::array<std::array<double, 3>, 3> direction{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  // io::Volume::direction
};
// How the samples are stored: "encoding: gzip" (libdeflate at gzip_level 1..12, one gzip member
// per slab of about 16 MiB of samples, compressed on all cores) or "encoding: raw" (the samples
// as they are: no compression time, a file as large as the volume).
struct VolumeEncoding {
  bool gzip = true;
  int gzip_level = 1;
  std::size_t slab_bytes = std::size_t(16) << 20;  // whole slices of about this size per slab (gzip member)
};
struct NrrdType {
  const char* name;  // NRRD's type name
  std::size_t bytes;
};
template <class T>
NrrdType nrrd_type() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return {"uint8", 1};
  if constexpr (std::is_same_v<T, std::uint16_t>) return {"uint16", 2};
  if constexpr (std::is_same_v<T, std::uint32_t>) return {"uint32", 4};
  if constexpr (std::is_same_v<T, float>) return {"float", 4};
}

// The volume's samples slab by slab: `slices` slices from slice z, x fastest, as the file's type
// and byte order. Returns where they are: in the caller's own memory, or `scratch` (room for the
// slab) after filling it. Called from several threads at once for different slabs, each slab
// once, in no particular order; at most a few slabs per core are in flight, so a caller that
// makes slabs on demand (from disk, from a device) never holds the whole volume.
using SlabSource = std::function<const void*(int z, int slices, void* scratch)>;

// Any volume (labels, mask, distance maps, markers) with `comment` as the header's comment line.
// Written atomically; errors are gp::ItemError(path, "write", ...).
void write_volume_nrrd(const std::string& path, const NrrdType& type, const LabelVolumeInfo& info, const std::string& comment,
                       const VolumeEncoding& encoding, const SlabSource& source);
// A volume in memory, dims.voxels() samples of `type`.
void write_volume_nrrd(const std::string& path, const void* data, const NrrdType& type, const LabelVolumeInfo& info,
                       const std::string& comment, const VolumeEncoding& encoding = {});

// labels.nrrd: the pore labels 0..max_label. `smallest`: type uint8, uint16 or uint32, the
// smallest that holds max_label (a label above it is an error); `uint32`: always uint32 (the
// files of earlier versions).
enum class LabelsType { smallest, uint32 };
NrrdType labels_nrrd_type(std::uint64_t max_label, LabelsType type);
void write_labels_nrrd(const std::string& path, const std::uint32_t* labels, const LabelVolumeInfo& info,
                       std::uint64_t max_label, const VolumeEncoding& encoding = {},
                       LabelsType type = LabelsType::smallest);
template <class T>
struct MidSlices;
// The same from a store (in host memory or a scratch file), read a slab at a time; with
// `mid_slices`, also the store's mid slices for the quick look, from the same pass.
void write_labels_nrrd(const std::string& path, const VolumeStore<std::uint32_t>& labels, const LabelVolumeInfo& info,
                       std::uint64_t max_label, const VolumeEncoding& encoding = {},
                       LabelsType type = LabelsType::smallest, MidSlices<std::uint32_t>* mid_slices = nullptr);
// Any volume from a store, as its own type.
template <class T>
void write_volume_nrrd(const std::string& path, const VolumeStore<T>& volume, const LabelVolumeInfo& info,
                       const std::string& comment, const VolumeEncoding& encoding = {}) {
  if (const T* resident = volume.resident())
    return write_volume_nrrd(path, resident, nrrd_type<T>(), info, comment, encoding);
  if (volume.empty()) throw ItemError(path, "write", "empty volume");
  write_volume_nrrd(path, nrrd_type<T>(), info, comment, encoding, [&](int z, int slices, void* scratch) -> const void* {
    volume.read_slices(z, z + slices, static_cast<T*>(scratch));
    return scratch;
  });
}

// Quick-look: the mid slices XY (z = nz/2), XZ (y = ny/2) and YZ (x = nx/2) side by side, 4-pixel
// gaps, rows of XZ and YZ going down in z. Grey values windowed to their 0.5 and 99.5 percentiles
// over the three slices; each label tinted with its own colour (40 % opacity; label 0 untinted);
// region boundaries (label changes to the right or below) black. Square pixels of one physical
// size for all panels (anisotropic spacing shows true proportions); the longest panel side is
// 256..1024 pixels (nearest-neighbour sampling). `labels` has grey.dims voxels.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // rows top to bottom, 3 bytes per pixel
};
RgbImage render_quicklook(const io::Volume& grey, const std::uint32_t* labels);
// The three mid slices of a volume (all the quick-look reads): planes[0] XY at z = nz/2 (x
// fastest), planes[1] XZ at y = ny/2, planes[2] YZ at x = nx/2 (rows along z). Gathered in one pass
// of a few slices at a time from a volume that is not in host memory.
template <class T>
struct MidSlices {
  io::Dims3 dims;
  std::vector<T> planes[3];
  static MidSlices gather(const VolumeStore<T>& volume);
  // Planes of a volume of `dims`, to be filled by take() for every slice.
  static MidSlices sized(const io::Dims3& dims);
  // What slice z (x fastest) gives the planes; threads may take different slices at once.
  void take(int z, const T* slice);
};
RgbImage render_quicklook(const MidSlices<float>& grey, const MidSlices<std::uint32_t>& labels, const io::Spacing3& spacing);
void write_quicklook_png(const std::string& path, const VolumeStore<float>& grey, const VolumeStore<std::uint32_t>& labels,
                         const io::Spacing3& spacing);
// The same from mid slices gathered already (the labels' while labels.nrrd was written).
void write_quicklook_png(const std::string& path, const MidSlices<float>& grey, const MidSlices<std::uint32_t>& labels,
                         const io::Spacing3& spacing);

}  // namespace gp::pnm
