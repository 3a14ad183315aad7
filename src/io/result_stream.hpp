#pragma once
// Results streamed out while a job runs: each message (a topic, e.g. a camera id, and one JSON
// object) goes to a ZeroMQ PUB socket (XPUB, so the job can wait for its listeners) as a two-part
// message [topic, json], and/or to standard output as a JSON line. publish() never blocks: messages
// wait in a bounded queue for the sender thread, and a full queue, or a socket whose listeners fall
// behind (its high-water mark), drops the message and counts it, so a slow listener never slows the
// job.
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace gp::io {

struct ResultStreamOptions {
  std::string zmq_endpoint;   // e.g. "tcp://*:5555", "ipc:///tmp/faces"; "" = no socket
  bool stdout_lines = false;  // also JSON lines on standard output
  std::size_t queue = 1024;   // messages waiting for the sender at most
  int wait_subscribers = 0;   // the constructor waits until this many listeners subscribed...
  double wait_timeout_s = 10; // ...or this long (then the job goes on and says so)
  std::string field = "/output/stream";  // named in errors
};

class ResultStream {
 public:
  // Binds the socket (UsageError naming the field for a bad or busy endpoint) and starts the sender.
  explicit ResultStream(const ResultStreamOptions& options);
  ~ResultStream();  // close()
  ResultStream(const ResultStream&) = delete;
  ResultStream& operator=(const ResultStream&) = delete;

  // Queues one message; due_us (Trace::now_us clock): when its input arrived, for the latency.
  void publish(const std::string& topic, std::string json, std::int64_t due_us);
  // Sends what is queued (the socket lingers up to 1 s for listeners) and stops; idempotent.
  void close();
  // {"zmq": endpoint, "stdout", "subscribers_waited_for", "subscribers_seen", "published",
  //  "dropped_queue_full", "dropped_listener_slow", "latency_ms": {"what", "p50", "p99", "max"}}
  nlohmann::ordered_json report() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gp::io
