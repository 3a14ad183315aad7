#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "core/pipeline.hpp"

namespace {

struct TestItem : gp::PipelineItem {
  int value = 0;
};

using TestPipeline = gp::Pipeline<TestItem>;

TestPipeline::Stages counting_stages(std::vector<std::size_t>& done_order, std::mutex& m) {
  TestPipeline::Stages s;
  s.make = [](std::size_t i) {
    auto item = std::make_unique<TestItem>();
    item->name = "item" + std::to_string(i);
    return item;
  };
  s.load = [](TestItem& it) { it.value = int(it.index) * 2; };
  s.compute = [](TestItem& it, int) { it.value += 1; };
  s.save = [](TestItem&) {};
  s.done = [&](const TestItem& it) {
    std::lock_guard<std::mutex> lock(m);
    done_order.push_back(it.index);
  };
  return s;
}

}  // namespace

TEST_CASE("pipeline processes every item once", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  o.load_threads = 3;
  o.compute_workers = 2;
  o.save_threads = 3;
  o.max_in_flight = 4;
  TestPipeline p(o, counting_stages(order, m));
  auto r = p.run(200);
  CHECK(r.processed == 200);
  CHECK(r.failures.empty());
  std::set<std::size_t> unique(order.begin(), order.end());
  CHECK(unique.size() == 200);
}

TEST_CASE("ordered pipeline saves in input order even when compute finishes out of order", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  o.load_threads = 4;
  o.compute_workers = 4;
  o.save_threads = 1;
  o.max_in_flight = 8;
  o.ordered = true;
  auto stages = counting_stages(order, m);
  stages.compute = [](TestItem& it, int) {
    // Early items are slow, so later ones overtake them in compute.
    std::this_thread::sleep_for(std::chrono::milliseconds(it.index % 4 == 0 ? 5 : 0));
  };
  TestPipeline p(o, stages);
  p.run(64);
  REQUIRE(order.size() == 64);
  for (std::size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);
}

TEST_CASE("pipeline keeps at most max_in_flight items alive", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  std::atomic<int> alive{0}, peak{0};
  gp::PipelineOptions o;
  o.load_threads = 8;
  o.compute_workers = 1;
  o.save_threads = 1;
  o.max_in_flight = 3;
  auto stages = counting_stages(order, m);
  stages.load = [&](TestItem&) {
    int now = ++alive;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
  };
  stages.compute = [](TestItem&, int) { std::this_thread::sleep_for(std::chrono::milliseconds(1)); };
  stages.save = [&](TestItem&) { --alive; };
  TestPipeline p(o, stages);
  p.run(50);
  CHECK(peak.load() <= 3);
  CHECK(order.size() == 50);
}

TEST_CASE("a failing stage marks the item and skips its later stages", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  std::atomic<int> saved{0};
  gp::PipelineOptions o;
  auto stages = counting_stages(order, m);
  stages.load = [](TestItem& it) {
    if (it.index == 3) throw gp::ItemError(it.name, "decode", "truncated file");
  };
  stages.compute = [](TestItem& it, int) {
    if (it.index == 5) throw std::runtime_error("bad pixels");
  };
  stages.save = [&](TestItem&) { ++saved; };
  TestPipeline p(o, stages);
  auto r = p.run(10);
  CHECK(r.processed == 10);
  REQUIRE(r.failures.size() == 2);
  CHECK(r.failures[0].index == 3);
  CHECK(r.failures[0].stage == "decode");
  CHECK(r.failures[0].message == "item3: decode: truncated file");
  CHECK(r.failures[1].index == 5);
  CHECK(r.failures[1].stage == "compute");
  CHECK(r.failures[1].message == "item5: compute: bad pixels");
  CHECK(saved == 8);
}

TEST_CASE("stop_on_error stops admitting items", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  o.load_threads = 1;
  o.compute_workers = 1;
  o.save_threads = 1;
  o.max_in_flight = 1;
  o.stop_on_error = true;
  auto stages = counting_stages(order, m);
  stages.load = [](TestItem& it) {
    if (it.index == 2) throw std::runtime_error("boom");
  };
  TestPipeline p(o, stages);
  auto r = p.run(100);
  CHECK(r.cancelled);
  CHECK(r.processed == 3);
  CHECK(r.failures.size() == 1);
}

TEST_CASE("a GPU error is fatal and rethrown after draining", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  // One loader and one worker, so the bound below holds whatever the scheduling: item 1 keeps its
  // slot until the worker has stopped admission, and item 0's slot is the only one freed before.
  gp::PipelineOptions o;
  o.load_threads = 1;
  o.compute_workers = 1;
  o.max_in_flight = 4;
  auto stages = counting_stages(order, m);
  std::atomic<int> made{0};
  const auto make = stages.make;
  stages.make = [&](std::size_t i) {
    ++made;
    return make(i);
  };
  stages.compute = [](TestItem& it, int) {
    if (it.index == 1) throw gp::GpuError("illegal address");
  };
  TestPipeline p(o, stages);
  CHECK_THROWS_AS(p.run(1000), gp::GpuError);
  CHECK(made <= o.max_in_flight + 1);
  CHECK(order.size() == std::size_t(made.load()));  // every admitted item drained
}

TEST_CASE("out of GPU memory fails only the item", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  auto stages = counting_stages(order, m);
  stages.compute = [](TestItem& it, int) {
    if (it.index == 1) throw gp::GpuOutOfMemory("too big", 1 << 30);
  };
  TestPipeline p(o, stages);
  auto r = p.run(10);
  CHECK(r.failures.size() == 1);
  CHECK_FALSE(r.cancelled);
}

TEST_CASE("out of host memory names the item, the stage and what to lower", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  auto stages = counting_stages(order, m);
  stages.load = [](TestItem& it) {
    if (it.index == 2) throw std::bad_alloc();
  };
  TestPipeline p(o, stages);
  auto r = p.run(4);
  REQUIRE(r.failures.size() == 1);
  CHECK_THAT(r.failures[0].message, Catch::StartsWith("item2: load: out of host memory") && Catch::Contains("max_in_flight"));
}

TEST_CASE("a compute worker that cannot start ends the job without blaming the items", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  o.compute_workers = 1;
  auto stages = counting_stages(order, m);
  std::vector<gp::ItemFailure> failures;
  stages.done = [&](const TestItem& it) {
    std::lock_guard<std::mutex> lock(m);
    failures.push_back(it.failure);
  };
  stages.compute_init = [](int) { throw gp::GpuError("cuda:7: no such GPU (1 GPU present)"); };
  TestPipeline p(o, stages);
  CHECK_THROWS_WITH(p.run(20), Catch::Contains("cuda:7"));
  REQUIRE_FALSE(failures.empty());
  for (const gp::ItemFailure& f : failures) CHECK(f.cancelled);  // not processed, not failed
}

TEST_CASE("bounded queue blocks producers when full and drains after close", "[pipeline]") {
  gp::BoundedQueue<int> q(2);
  CHECK(q.push(1));
  CHECK(q.push(2));
  std::atomic<bool> third_pushed{false};
  std::thread producer([&] {
    q.push(3);
    third_pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(third_pushed);
  CHECK(q.pop().value() == 1);
  producer.join();
  CHECK(third_pushed);
  q.close();
  CHECK(q.pop().value() == 2);
  CHECK(q.pop().value() == 3);
  CHECK_FALSE(q.pop().has_value());
  CHECK_FALSE(q.push(4));
}

TEST_CASE("batched compute: batches of at most compute_batch, per-item errors, a throw fails the batch", "[pipeline]") {
  std::vector<std::size_t> order;
  std::mutex m;
  gp::PipelineOptions o;
  o.load_threads = 4;
  o.compute_workers = 2;
  o.compute_batch = 5;
  o.max_in_flight = 16;
  auto stages = counting_stages(order, m);
  stages.compute = [](TestItem&, int) { FAIL("compute_batch is set: compute is not called"); };
  stages.load = [](TestItem& it) {
    it.value = int(it.index) * 2;
    if (it.index == 7) throw gp::ItemError(it.name, "decode", "truncated file");
  };
  std::mutex batch_mutex;
  std::vector<std::size_t> batch_sizes;
  std::atomic<bool> saw_loading_failure{false};
  bool thrown = false;
  stages.compute_batch = [&](const std::vector<TestItem*>& items, int) {
    std::vector<std::exception_ptr> errors(items.size());
    bool throw_all = false;
    {
      std::lock_guard<std::mutex> lock(batch_mutex);
      batch_sizes.push_back(items.size());
      for (TestItem* it : items) {
        if (it->failed) saw_loading_failure = true;
        if (it->index == 20 && !thrown) throw_all = thrown = true;
      }
    }
    if (throw_all) throw std::runtime_error("batch lost");
    for (std::size_t i = 0; i < items.size(); ++i) {
      items[i]->value += 1;
      if (items[i]->index == 11) errors[i] = std::make_exception_ptr(gp::ItemError(items[i]->name, "decode", "bad huffman"));
    }
    return errors;
  };
  TestPipeline p(o, stages);
  auto r = p.run(60);
  CHECK(r.processed == 60);
  CHECK_FALSE(saw_loading_failure);
  std::size_t computed = 0;
  for (std::size_t n : batch_sizes) {
    CHECK(n >= 1);
    CHECK(n <= 5);
    computed += n;
  }
  CHECK(computed == 59);  // all but the one that failed loading
  std::set<std::size_t> failed;
  for (const auto& f : r.failures) failed.insert(f.index);
  CHECK(failed.count(7) == 1);
  CHECK(failed.count(11) == 1);
  CHECK(failed.count(20) == 1);
  for (const auto& f : r.failures)
    if (f.index == 11) CHECK(f.message == "item11: decode: bad huffman");
  // Every item of the batch that threw failed with its message.
  std::size_t batch_lost = 0;
  for (const auto& f : r.failures) batch_lost += f.message.find("batch lost") != std::string::npos;
  CHECK(batch_lost >= 1);
  CHECK(r.failures.size() == 2 + batch_lost);
}

TEST_CASE("pop_up_to takes what is queued, at most max, and at least one", "[pipeline]") {
  gp::BoundedQueue<int> q(8);
  for (int i = 0; i < 5; ++i) q.push(i);
  CHECK(q.pop_up_to(3) == std::vector<int>{0, 1, 2});
  CHECK(q.pop_up_to(10) == std::vector<int>{3, 4});
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    q.push(9);
  });
  CHECK(q.pop_up_to(4) == std::vector<int>{9});  // waited for the first
  producer.join();
  q.close();
  CHECK(q.pop_up_to(4).empty());
}

TEST_CASE("an open-ended pipeline ends when make() has no more items", "[pipeline]") {
  std::vector<std::size_t> done_order;
  std::mutex m;
  TestPipeline::Stages s = counting_stages(done_order, m);
  std::atomic<int> made{0};
  s.make = [&](std::size_t i) -> std::unique_ptr<TestItem> {
    if (made++ >= 37) return nullptr;  // a source of 37 items (each loader may ask once more)
    auto item = std::make_unique<TestItem>();
    item->name = "item" + std::to_string(i);
    return item;
  };
  gp::PipelineOptions o;
  o.load_threads = 3;
  o.compute_workers = 2;
  o.max_in_flight = 5;
  TestPipeline p(o, s);
  const auto result = p.run(TestPipeline::unbounded);
  CHECK(result.processed == 37);
  CHECK(result.not_started == 0);
  CHECK(!result.cancelled);
  CHECK(std::set<std::size_t>(done_order.begin(), done_order.end()).size() == 37);
}
