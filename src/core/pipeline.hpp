#pragma once
// The I/O worker pool every batch subcommand runs on: a load pool, a set of compute workers (one
// GPU stream each) and a save pool, joined by queues. At most `max_in_flight` items exist at once
// (loaded, computing or saving), so memory stays bounded however long the input list is, while
// loads run ahead of the compute workers so the GPU never waits for a file that was loadable.
//
//   index -> [load x L threads] -> [compute x G workers] -> (reorder if ordered) -> [save x S] -> done
//
// A stage that throws marks the item failed; the item still travels to the end (skipping the
// remaining stages) so ordering and accounting stay simple. GpuError other than out-of-memory is
// fatal: the pipeline stops admitting items and run() rethrows it after draining. So does a stop
// by SIGINT/SIGTERM (gp::stop_requested): items not yet admitted are counted as not started, and
// an item a stage cancels (gp::ItemCancelled) is marked cancelled rather than failed.
#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "core/bounded_queue.hpp"
#include "core/error.hpp"
#include "core/stop_signals.hpp"
#include "core/trace.hpp"

namespace gp {

struct PipelineOptions {
  int load_threads = 4;
  int compute_workers = 2;
  int save_threads = 4;
  int max_in_flight = 16;
  // With Stages::compute_batch: the most items one call gets. A worker takes whatever is loaded,
  // up to this many, rather than waiting for a full batch.
  int compute_batch = 1;
  bool ordered = false;        // items reach the save stage in input order
  bool stop_on_error = false;  // on_error: fail -- stop admitting new items after the first failure
};

struct ItemFailure {
  std::size_t index = 0;
  std::string stage;
  std::string message;
  bool cancelled = false;  // stopped by SIGINT/SIGTERM, not by a fault of the item
};

// Per-item state base: subcommands derive their own item type from it.
struct PipelineItem {
  std::size_t index = 0;
  std::string name;  // the input, for messages
  bool failed = false;
  ItemFailure failure;
  StageSeconds stage_s;  // time the stages spent on it (ScopedStages inside them), for the report
  std::vector<std::pair<std::string, std::string>> details;  // facts for its report record ("decoder": "gpu")
};

template <class Item>
class Pipeline {
 public:
  // Null ends admission: an open-ended run (run(unbounded)) whose source ran out, such as the
  // selected frames of a video.
  using Make = std::function<std::unique_ptr<Item>(std::size_t index)>;
  using Load = std::function<void(Item&)>;
  using Compute = std::function<void(Item&, int worker)>;
  using Save = std::function<void(Item&)>;
  using Done = std::function<void(const Item&)>;  // called once per item, from a save thread
  // Computes several items in one call (GPU batches). Returns one error per item (null: done);
  // throwing fails them all.
  using ComputeBatch = std::function<std::vector<std::exception_ptr>(const std::vector<Item*>& items, int worker)>;

  struct Stages {
    Make make;
    Load load;
    Compute compute;             // one item at a time, unless compute_batch is set
    ComputeBatch compute_batch;  // items that did not fail loading, options.compute_batch at most
    Save save;
    Done done;
    // Called once on each compute worker's thread before its first item (bind the GPU, make a stream).
    std::function<void(int worker)> compute_init;
  };

  struct Result {
    std::size_t processed = 0;  // items that went through (ok or failed)
    std::vector<ItemFailure> failures;
    bool cancelled = false;       // stop_on_error, a fatal error or a stop signal stopped admission
    std::size_t not_started = 0;  // items never admitted
  };

  Pipeline(PipelineOptions options, Stages stages) : options_(options), stages_(std::move(stages)) {}

  static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

  Result run(std::size_t count) {
    const int in_flight = std::max(1, options_.max_in_flight);
    Semaphore slots(in_flight);
    BoundedQueue<std::unique_ptr<Item>> to_compute(in_flight), to_save(in_flight);
    std::atomic<std::size_t> next_index{0}, admitted{0};
    std::atomic<bool> exhausted{false};  // make() returned null
    std::atomic<int> loaders_left{options_.load_threads}, workers_left{options_.compute_workers};
    Result result;
    std::mutex result_mutex;

    auto fail = [&](Item& item, const std::string& stage, const std::exception& e) {
      item.failed = true;
      item.failure.index = item.index;
      item.failure.cancelled = dynamic_cast<const ItemCancelled*>(&e) != nullptr;
      if (auto* ie = dynamic_cast<const ItemError*>(&e)) {
        item.failure.stage = ie->stage();
        item.failure.message = e.what();
      } else {
        item.failure.stage = stage;
        item.failure.message = item.name + ": " + stage + ": " + describe(e);
      }
      if (options_.stop_on_error) cancelled_ = true;
    };
    // Runs one stage; fatal errors are remembered and stop admission.
    auto guarded = [&](Item& item, const char* stage, auto&& body) {
      if (item.failed) return;
      ItemStageScope stage_times(&item.stage_s);
      try {
        body();
      } catch (const GpuOutOfMemory& e) {
        fail(item, stage, e);
      } catch (const GpuError& e) {
        fail(item, stage, e);
        record_fatal(std::current_exception());
      } catch (const std::exception& e) {
        fail(item, stage, e);
      }
    };

    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, options_.load_threads); ++t) {
      threads.emplace_back([&, t] {
        Trace::name_thread("load-" + std::to_string(t));
        for (;;) {
          slots.acquire();
          if (cancelled_ || stop_requested()) {
            slots.release();
            break;
          }
          if (exhausted) {
            slots.release();
            break;
          }
          std::size_t index = next_index++;
          if (index >= count) {
            slots.release();
            break;
          }
          std::unique_ptr<Item> item;
          try {
            item = stages_.make(index);
          } catch (const std::exception& e) {
            item = std::make_unique<Item>();
            fail(*item, "load", e);
          }
          if (!item) {  // the source ran out
            exhausted = true;
            slots.release();
            break;
          }
          ++admitted;
          item->index = index;
          guarded(*item, "load", [&] { stages_.load(*item); });
          to_compute.push(std::move(item));
        }
        if (--loaders_left == 0) to_compute.close();
      });
    }

    // Reorder buffer between compute and save when ordered output is asked for.
    std::mutex reorder_mutex;
    std::map<std::size_t, std::unique_ptr<Item>> reorder;
    std::size_t next_to_save = 0;
    auto forward = [&](std::unique_ptr<Item> item) {
      if (!options_.ordered) {
        to_save.push(std::move(item));
        return;
      }
      std::lock_guard<std::mutex> lock(reorder_mutex);
      reorder.emplace(item->index, std::move(item));
      while (!reorder.empty() && reorder.begin()->first == next_to_save) {
        to_save.push(std::move(reorder.begin()->second));
        reorder.erase(reorder.begin());
        ++next_to_save;
      }
    };

    for (int w = 0; w < std::max(1, options_.compute_workers); ++w) {
      threads.emplace_back([&, w] {
        Trace::name_thread("compute-" + std::to_string(w));
        bool ready = true;
        if (stages_.compute_init) {
          try {
            stages_.compute_init(w);
          } catch (...) {
            record_fatal(std::current_exception());
            ready = false;
          }
        }
        const std::size_t batch_size = stages_.compute_batch ? std::size_t(std::max(1, options_.compute_batch)) : 1;
        for (;;) {
          std::vector<std::unique_ptr<Item>> batch = to_compute.pop_up_to(batch_size);
          if (batch.empty()) break;
          if (ready) {
            compute_items(batch, w, guarded);
          } else {
            // Not the item's fault: the worker's error (a missing GPU, an unreadable model) ends
            // the job and names the cause; the items were not processed.
            for (auto& item : batch)
              if (!item->failed) {
                item->failed = true;
                item->failure = {item->index, "compute", item->name + ": not processed: its compute worker failed to start",
                                 true};
              }
          }
          for (auto& item : batch) forward(std::move(item));
        }
        if (--workers_left == 0) {
          // Ordered mode: items whose predecessors were never admitted (cancelled) still go out.
          std::lock_guard<std::mutex> lock(reorder_mutex);
          for (auto& [i, item] : reorder) to_save.push(std::move(item));
          reorder.clear();
          to_save.close();
        }
      });
    }

    for (int t = 0; t < std::max(1, options_.save_threads); ++t) {
      threads.emplace_back([&, t] {
        Trace::name_thread("save-" + std::to_string(t));
        while (auto item = to_save.pop()) {
          guarded(**item, "save", [&] { stages_.save(**item); });
          {
            std::lock_guard<std::mutex> lock(result_mutex);
            result.processed++;
            if ((*item)->failed) result.failures.push_back((*item)->failure);
          }
          if (stages_.done) stages_.done(**item);
          item->reset();  // free the item's buffers before taking a new slot
          slots.release();
        }
      });
    }
    for (auto& th : threads) th.join();

    std::sort(result.failures.begin(), result.failures.end(),
              [](const ItemFailure& a, const ItemFailure& b) { return a.index < b.index; });
    result.cancelled = cancelled_ || stop_requested();
    result.not_started = exhausted ? 0 : count - admitted;
    if (fatal_) std::rethrow_exception(fatal_);
    return result;
  }

 private:
  // One compute call per item, or one batched call for those that did not fail loading, whose
  // per-item errors then go through `guarded` like a thrown one would.
  template <class Guarded>
  void compute_items(std::vector<std::unique_ptr<Item>>& batch, int worker, Guarded& guarded) {
    if (!stages_.compute_batch) {
      for (auto& item : batch) guarded(*item, "compute", [&] { stages_.compute(*item, worker); });
      return;
    }
    std::vector<Item*> live;
    for (auto& item : batch)
      if (!item->failed) live.push_back(item.get());
    if (live.empty()) return;
    std::vector<std::exception_ptr> errors;
    StageSeconds batch_s;  // shared out among the batch's items
    try {
      ItemStageScope stage_times(&batch_s);
      errors = stages_.compute_batch(live, worker);
      if (errors.size() != live.size()) throw Error("pipeline: compute_batch returned " + std::to_string(errors.size()) +
                                                    " outcomes for " + std::to_string(live.size()) + " items");
    } catch (...) {
      errors.assign(live.size(), std::current_exception());
    }
    for (Item* item : live)
      for (const auto& [stage, seconds] : batch_s) item->stage_s[stage] += seconds / double(live.size());
    for (std::size_t i = 0; i < live.size(); ++i)
      if (errors[i]) guarded(*live[i], "compute", [&] { std::rethrow_exception(errors[i]); });
  }

  void record_fatal(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(fatal_mutex_);
    if (!fatal_) fatal_ = e;
    cancelled_ = true;
  }

  PipelineOptions options_;
  Stages stages_;
  std::atomic<bool> cancelled_{false};
  std::mutex fatal_mutex_;
  std::exception_ptr fatal_;
};

}  // namespace gp
