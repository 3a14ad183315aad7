#pragma once
// Runs a call that must not block (a FIFO opened for reading, /dev/zero read to its end) in a
// thread of its own, and gives up waiting after a limit, so that a regression fails the test
// instead of hanging it.
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "core/error.hpp"

namespace gp::test {

// The message of the gp::UsageError `call` throws: "" when it returns, "<no UsageError: ...>"
// for another exception, "<still running after N s>" when it has not finished in time (its
// thread is then left blocked; the process ends it).
template <class Call>
std::string usage_error_within(Call call, std::chrono::seconds limit = std::chrono::seconds(5)) {
  auto result = std::make_shared<std::promise<std::string>>();
  std::future<std::string> future = result->get_future();
  std::thread([result, call]() mutable {
    try {
      call();
      result->set_value("");
    } catch (const gp::UsageError& e) {
      result->set_value(e.what());
    } catch (const std::exception& e) {
      result->set_value(std::string("<no UsageError: ") + e.what() + ">");
    }
  }).detach();
  if (future.wait_for(limit) != std::future_status::ready)
    return "<still running after " + std::to_string(limit.count()) + " s>";
  return future.get();
}

}  // namespace gp::test
