#pragma once
// SIGINT and SIGTERM (Ctrl-C, a Slurm time limit, a preemption): a batch stops admitting items,
// lets the running ones finish within a grace time, removes its temporaries, writes its report
// and exits 130 or 143. Slurm sends SIGTERM and, KillWait (30 s by default) later, SIGKILL: the
// default grace of 20 s leaves time to write the report.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gp {

// True once SIGINT or SIGTERM arrived (long items check it between frames or slabs).
bool stop_requested();
// The signal that asked to stop (SIGINT, SIGTERM), 0 when none.
int stop_signal();
// "SIGINT" / "SIGTERM".
std::string signal_name(int signo);
// Throws gp::ItemCancelled(item, stage) when a stop was requested.
void throw_if_stop_requested(const std::string& item, const char* stage);

// Watches SIGINT and SIGTERM for one batch job. Constructed on the main thread before any other
// thread starts: the signals are blocked there (and so in every thread started later) and taken
// by a thread of its own with sigtimedwait, so the handling runs as ordinary code.
class StopSignals {
 public:
  // on_stop(signo): the first signal (stop admitting; called on the watcher thread).
  // on_abandon(signo): `grace` after the first signal, or at a second one, while the job has
  // not begun to finish: the running items are abandoned. It should write what it can and end the
  // process (std::_Exit), as nothing else will stop the running items.
  StopSignals(std::chrono::milliseconds grace, std::function<void(int)> on_stop, std::function<void(int)> on_abandon);
  ~StopSignals();  // stops watching; the signals stay blocked until the process ends
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The job is writing its report: a later timeout no longer abandons it (a second signal still does).
  // Returns false when on_abandon already began (the caller must not finish too).
  bool begin_finishing();

 private:
  void watch();

  std::chrono::milliseconds grace_;
  std::function<void(int)> on_stop_, on_abandon_;
  std::atomic<bool> quit_{false};
  std::mutex mutex_;
  bool finishing_ = false, abandoning_ = false;
  std::thread watcher_;
};

}  // namespace gp
