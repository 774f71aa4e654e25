#include "sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace gpumem::sweep {
namespace {

// Points a worker claims at a time: at most this many, so that the shared counter is
// rarely touched, and at least eight claims per thread, so that a small grid still spreads
// over every thread and the last claims balance their load.
constexpr size_t kMaxChunk = 64;

size_t chunk_size(size_t total, int threads) {
  return std::clamp<size_t>(total / (static_cast<size_t>(threads) * 8), 1, kMaxChunk);
}

}  // namespace

SweepOutcome run_sweep(const Scenario& base, const Grid& grid, const SweepInputs& inputs,
                       const SweepOptions& options) {
  return run_points(grid.size(), options, [&]() -> PointFunction {
    auto evaluator = std::make_shared<PointEvaluator>(base, grid, inputs);
    return [evaluator](size_t p) { return evaluator->evaluate(p); };
  });
}

SweepOutcome run_points(size_t total, const SweepOptions& options,
                        const std::function<PointFunction()>& make_worker) {
  SweepOutcome out;
  out.results.resize(total);
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mu;
  std::condition_variable finished;
  // More workers than points, or than kMaxThreads, would only wait: `-j 100000` for two
  // points starts two.
  const int wanted = static_cast<int>(
      std::min<size_t>({static_cast<size_t>(std::max(1, options.threads)), total, kMaxThreads}));
  int running = 0;
  const size_t chunk = chunk_size(total, std::max(1, wanted));
  auto work = [&] {
    const PointFunction evaluate = make_worker();
    for (size_t start = next.fetch_add(chunk); start < total; start = next.fetch_add(chunk)) {
      const size_t end = std::min(total, start + chunk);
      for (size_t p = start; p < end; ++p) out.results[p] = evaluate(p);
      done.fetch_add(end - start);
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
