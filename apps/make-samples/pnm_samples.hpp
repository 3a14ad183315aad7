#pragma once
// segment-pnm inputs from the porous-food phantom (porous_volume.hpp), with their ground truth.
#include <filesystem>

namespace gp::samples {

// OUTDIR/pnm/foam/ (a DICOM series: 96x96x80, 0.020 x 0.020 x 0.025 mm, int16 with slope 0.5 and
// intercept -1024) and OUTDIR/pnm/foam-truth.json. Returns the exit code.
int make_pnm_samples(const std::filesystem::path& dir);

// OUTDIR/foam-N.raw (N^3 int16 little endian, Hounsfield units, 0.02 mm isotropic) and
// OUTDIR/foam-N.json (dims, dtype, spacing and the truth), rendered on `threads` threads (0 = all
// cores; the output does not depend on it). Returns the exit code.
int make_pnm_bench(const std::filesystem::path& dir, int n, int threads = 0);

}  // namespace gp::samples
