#pragma once
// Error types shared by every subcommand. Kept free of host libraries so kernels' launch code
// (compiled by nvcc) can throw them too.
#include <new>
#include <stdexcept>
#include <string>

namespace gp {

// Process exit codes; scripts and schedulers rely on these values.
enum class ExitCode : int {
  ok = 0,            // every item done
  items_failed = 1,  // some items failed (listed in the report and on stderr)
  usage = 2,         // bad command line or config
  fatal = 3,         // runtime error that stopped the job (no GPU when required, disk, ...)
  // Stopped by SIGINT or SIGTERM: 128 + the signal's number, as a shell reports a killed command.
  interrupted = 130,  // SIGINT
  terminated = 143,   // SIGTERM
};

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command line or config problem, reported before any work starts (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

// A problem with one input item; the batch goes on when on_error is "skip".
class ItemError : public Error {
 public:
  ItemError(std::string file, std::string stage, const std::string& what)
      : Error(file + ": " + stage + ": " + what), file_(std::move(file)), stage_(std::move(stage)) {}
  const std::string& file() const { return file_; }
  const std::string& stage() const { return stage_; }

 private:
  std::string file_, stage_;
};

// An item stopped part-way because the run is stopping (SIGINT/SIGTERM): neither done nor failed.
class ItemCancelled : public ItemError {
 public:
  ItemCancelled(std::string file, std::string stage) : ItemError(std::move(file), std::move(stage), "cancelled: the run is stopping") {}
};

// What an exception says for a message: std::bad_alloc's what() is only "std::bad_alloc".
inline std::string describe(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of host memory (std::bad_alloc): lower run.batch or run.max_in_flight, or process fewer items at once";
  return e.what();
}

// A failed CUDA call, with the call, the place and what was being done.
class GpuError : public Error {
 public:
  using Error::Error;
};

// Device memory ran out (or the configured --gpu-memory-limit was reached). Callers may retry
// with a smaller batch before giving up.
class GpuOutOfMemory : public GpuError {
 public:
  GpuOutOfMemory(const std::string& what, std::size_t requested_bytes)
      : GpuError(what), requested_bytes_(requested_bytes) {}
  std::size_t requested_bytes() const { return requested_bytes_; }

 private:
  std::size_t requested_bytes_;
};

}  // namespace gp
