#include "sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace gpumem::sweep {
namespace {

// Points a worker claims at a time: at most this many, so that the shared counter is
// rarely touched, and at least eight claims per thread, so that a small grid still spreads
// over every thread and the last claims balance their load.
constexpr size_t kMaxChunk = 64;

// How many chunks per worker may be finished ahead of the first undelivered point.
constexpr size_t kChunksAhead = 4;

size_t chunk_size(size_t total, int threads) {
  return std::clamp<size_t>(total / (static_cast<size_t>(threads) * 8), 1, kMaxChunk);
}

}  // namespace

SweepRun run_sweep(const Scenario& base, const Grid& grid, const SweepInputs& inputs,
                   const SweepOptions& options, const ResultSink& sink) {
  return run_points(
      grid.size(), options,
      [&]() -> PointFunction {
        auto evaluator = std::make_shared<PointEvaluator>(base, grid, inputs);
        return [evaluator](size_t p) { return evaluator->evaluate(p); };
      },
      sink);
}

SweepRun run_points(size_t total, const SweepOptions& options,
                    const std::function<PointFunction()>& make_worker, const ResultSink& sink) {
  SweepRun out;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mu;  // guards delivered, pending and running
  std::condition_variable finished;
  std::condition_variable advanced;
  size_t delivered = 0;  // the points before this one went to the sink
  // Chunks finished before an earlier one, by first point: what the sweep holds.
  std::map<size_t, std::vector<PointResult>> pending;
  // More workers than points, or than kMaxThreads, would only wait: `-j 100000` for two
  // points starts two.
  const int wanted = static_cast<int>(
      std::min<size_t>({static_cast<size_t>(std::max(1, options.threads)), total, kMaxThreads}));
  int running = 0;
  const size_t chunk = chunk_size(total, std::max(1, wanted));
  // A worker starts no chunk this far past the first undelivered point, so `pending` holds at
  // most this many results whatever one slow chunk does. A claim never waits for itself: the
  // chunk at `delivered` is always within the window.
  const size_t window = chunk * kChunksAhead * static_cast<size_t>(std::max(1, wanted));
  auto deliver = [&](size_t start, const std::vector<PointResult>& results) {
    for (size_t i = 0; i < results.size(); ++i) sink(start + i, results[i]);
    delivered = start + results.size();
  };
  auto work = [&] {
    const PointFunction evaluate = make_worker();
    std::vector<PointResult> results;
    for (size_t start = next.fetch_add(chunk); start < total; start = next.fetch_add(chunk)) {
      {
        std::unique_lock lock(mu);
        advanced.wait(lock, [&] { return start < delivered + window; });
      }
      const size_t end = std::min(total, start + chunk);
      results.clear();
      for (size_t p = start; p < end; ++p) results.push_back(evaluate(p));
      done.fetch_add(end - start);
      std::lock_guard lock(mu);
      if (start != delivered) {
        pending.emplace(start, std::exchange(results, {}));
        continue;
      }
      deliver(start, results);
      for (auto it = pending.begin(); it != pending.end() && it->first == delivered;
           it = pending.erase(it)) {
        deliver(it->first, it->second);
      }
      advanced.notify_all();
    }
    std::lock_guard lock(mu);
    if (--running == 0) finished.notify_all();
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(wanted));
  for (int t = 0; t < wanted; ++t) {
    // The system may refuse a thread (its limit on threads or memory): the sweep goes on with
    // the workers it has, and the outcome says how many that was.
    std::lock_guard lock(mu);
    try {
      threads.emplace_back(work);
      ++running;
    } catch (const std::system_error& e) {
      out.thread_failure = e.what();
      break;
    }
  }
  out.threads = static_cast<int>(threads.size());
  if (threads.empty()) {
    running = 1;
    work();  // not even one worker: the caller's thread evaluates every point
  } else {
    std::unique_lock lock(mu);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; })) {
      if (options.progress) options.progress(done.load(), total);
    }
  }
  for (std::thread& t : threads) t.join();
  if (options.progress) options.progress(total, total);
  return out;
}

}  // namespace gpumem::sweep
