#include "io/result_stream.hpp"

#include <zmq.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "core/bounded_queue.hpp"
#include "core/error.hpp"
#include "core/report_numbers.hpp"
#include "core/trace.hpp"

namespace gp::io {
namespace {

struct Message {
  std::string topic, json;
  std::int64_t due_us = 0;
};

std::string zmq_error() { return zmq_strerror(zmq_errno()); }

}  // namespace

struct ResultStream::Impl {
  ResultStreamOptions o;
  void* context = nullptr;
  void* socket = nullptr;
  BoundedQueue<Message> queue;
  std::thread sender;
  std::atomic<std::int64_t> published{0}, dropped_queue{0}, dropped_slow{0};
  std::atomic<int> subscribers_seen{0};
  mutable std::mutex latency_mutex;
  std::vector<double> latency_ms;
  bool closed = false;

  explicit Impl(const ResultStreamOptions& options) : o(options), queue(options.queue) {}

  ~Impl() {
    if (socket) zmq_close(socket);
    if (context) zmq_ctx_term(context);
  }

  void open_socket() {
    context = zmq_ctx_new();
    if (!context) throw Error("ZeroMQ: cannot create a context: " + zmq_error());
    socket = zmq_socket(context, ZMQ_XPUB);
    if (!socket) throw Error("ZeroMQ: cannot create a socket: " + zmq_error());
    const int verbose = 1, linger_ms = 1000, hwm = 10000;
    zmq_setsockopt(socket, ZMQ_XPUB_VERBOSE, &verbose, sizeof verbose);  // every subscription, for the count
    zmq_setsockopt(socket, ZMQ_LINGER, &linger_ms, sizeof linger_ms);
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    if (zmq_bind(socket, o.zmq_endpoint.c_str()) != 0)
      throw UsageError(o.field + "/zmq: cannot bind \"" + o.zmq_endpoint + "\": " + zmq_error());
  }

  // Reads the subscription messages that are there (waiting up to timeout_ms for the first).
  void read_subscriptions(int timeout_ms) {
    zmq_pollitem_t item{socket, 0, ZMQ_POLLIN, 0};
    while (zmq_poll(&item, 1, timeout_ms) > 0 && (item.revents & ZMQ_POLLIN)) {
      char frame[256];
      const int n = zmq_recv(socket, frame, sizeof frame, ZMQ_DONTWAIT);
      if (n > 0 && frame[0] == 1) ++subscribers_seen;
      timeout_ms = 0;
    }
  }

  void wait_for_subscribers() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.wait_timeout_s);
    while (subscribers_seen < o.wait_subscribers && std::chrono::steady_clock::now() < until)
      read_subscriptions(100);
  }

  void send(const Message& m) {
    if (socket) {
      // Both parts or neither: the first part waits in the socket until the second is queued.
      if (zmq_send(socket, m.topic.data(), m.topic.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
          zmq_send(socket, m.json.data(), m.json.size(), ZMQ_DONTWAIT) < 0) {
        ++dropped_slow;  // EAGAIN: the listeners' queues are full
        return;
      }
    }
    if (o.stdout_lines) {
      std::fwrite(m.json.data(), 1, m.json.size(), stdout);
      std::fputc('\n', stdout);
    }
    ++published;
    std::lock_guard<std::mutex> lock(latency_mutex);
    latency_ms.push_back(double(Trace::now_us() - m.due_us) / 1000.0);
  }

  void run() {
    Trace::name_thread("result stream");
    for (;;) {
      std::vector<Message> batch = queue.pop_up_to(256);
      if (batch.empty()) break;
      for (const Message& m : batch) send(m);
      if (o.stdout_lines) std::fflush(stdout);
      if (socket) read_subscriptions(0);  // keep the count, and the socket's inbox short
    }
  }
};

ResultStream::ResultStream(const ResultStreamOptions& options) : impl_(std::make_unique<Impl>(options)) {
  if (!options.zmq_endpoint.empty()) {
    impl_->open_socket();
    if (options.wait_subscribers > 0) impl_->wait_for_subscribers();
  }
  impl_->sender = std::thread([this] { impl_->run(); });
}

ResultStream::~ResultStream() { close(); }

void ResultStream::publish(const std::string& topic, std::string json, std::int64_t due_us) {
  if (!impl_->queue.try_push(Message{topic, std::move(json), due_us})) ++impl_->dropped_queue;
}

void ResultStream::close() {
  if (impl_->closed) return;
  impl_->closed = true;
  impl_->queue.close();
  if (impl_->sender.joinable()) impl_->sender.join();
}

nlohmann::ordered_json ResultStream::report() const {
  nlohmann::ordered_json j;
  j["zmq"] = impl_->o.zmq_endpoint;
  j["stdout"] = impl_->o.stdout_lines;
  j["subscribers_waited_for"] = impl_->o.wait_subscribers;
  j["subscribers_seen"] = impl_->subscribers_seen.load();
  j["published"] = impl_->published.load();
  j["dropped_queue_full"] = impl_->dropped_queue.load();
  j["dropped_listener_slow"] = impl_->dropped_slow.load();
  std::lock_guard<std::mutex> lock(impl_->latency_mutex);
  if (!impl_->latency_ms.empty()) {
    std::vector<double> l = impl_->latency_ms;
    j["latency_ms"] = {{"what", "input frame arrived -> its message handed to the socket / stdout"},
                       {"p50", round3(percentile(l, 0.5))},
                       {"p99", round3(percentile(l, 0.99))},
                       {"max", round3(percentile(l, 1.0))}};
  }
  return j;
}

}  // namespace gp::io
