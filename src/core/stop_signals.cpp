#include "core/stop_signals.hpp"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <ctime>

#include "core/error.hpp"

namespace gp {
namespace {

std::atomic<int> requested_signal{0};

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// The next SIGINT/SIGTERM within `timeout`, 0 when none came.
int wait_for_signal(std::chrono::milliseconds timeout) {
  const sigset_t set = stop_set();
  const auto ms = timeout.count();
  const timespec ts{time_t(ms / 1000), long(ms % 1000) * 1000000L};
  const int signo = sigtimedwait(&set, nullptr, &ts);
  return signo > 0 ? signo : 0;
}

}  // namespace

bool stop_requested() { return requested_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return requested_signal.load(); }

std::string signal_name(int signo) {
  if (signo == SIGINT) return "SIGINT";
  if (signo == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signo);
}

void throw_if_stop_requested(const std::string& item, const char* stage) {
  if (stop_requested()) throw ItemCancelled(item, stage);
}

StopSignals::StopSignals(std::chrono::milliseconds grace, std::function<void(int)> on_stop,
                         std::function<void(int)> on_abandon)
    : grace_(grace), on_stop_(std::move(on_stop)), on_abandon_(std::move(on_abandon)) {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::thread([this] { watch(); });
}

StopSignals::~StopSignals() {
  quit_ = true;
  watcher_.join();
}

bool StopSignals::begin_finishing() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (abandoning_) return false;
  finishing_ = true;
  return true;
}

void StopSignals::watch() {
  constexpr std::chrono::milliseconds poll(100);
  int first = 0;
  while (!quit_ && first == 0) first = wait_for_signal(poll);
  if (first == 0) return;
  requested_signal = first;
  on_stop_(first);
  const auto deadline = std::chrono::steady_clock::now() + grace_;
  bool second = false;
  while (!quit_ && !second) {
    second = wait_for_signal(poll) != 0;
    if (!second && std::chrono::steady_clock::now() >= deadline) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!finishing_) break;  // grace over and the job still running
    }
  }
  if (quit_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoning_ = true;
  }
  on_abandon_(first);
}

}  // namespace gp
