#pragma once
// The argument check of the kernels' entry points (each module's checks header brings it into its
// own namespace): a failed check throws gp::Error "<function>: <what>". nvcc-safe.
#include <string>

#include "core/error.hpp"

namespace gp::kernel_checks {

inline void require(bool ok, const char* function, const std::string& what) {
  if (!ok) throw Error(std::string(function) + ": " + what);
}

}  // namespace gp::kernel_checks
