#include "sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
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

std::vector<PointResult> run_sweep(const Scenario& base, const Grid& grid,
                                   const SweepInputs& inputs, const SweepOptions& options) {
  const size_t total = grid.size();
  std::vector<PointResult> results(total);
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mu;
  std::condition_variable finished;
  int running = std::max(1, options.threads);
  const size_t chunk = chunk_size(total, running);
  auto work = [&] {
    PointEvaluator evaluator(base, grid, inputs);
    for (size_t start = next.fetch_add(chunk); start < total; start = next.fetch_add(chunk)) {
      const size_t end = std::min(total, start + chunk);
      for (size_t p = start; p < end; ++p) results[p] = evaluator.evaluate(p);
      done.fetch_add(end - start);
    }
    std::lock_guard lock(mu);
    if (--running == 0) finished.notify_all();
  };
  std::vector<std::thread> threads;
  for (int t = 0, n = running; t < n; ++t) threads.emplace_back(work);
  {
    std::unique_lock lock(mu);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; })) {
      if (options.progress) options.progress(done.load(), total);
    }
  }
  for (std::thread& t : threads) t.join();
  if (options.progress) options.progress(total, total);
  return results;
}

}  // namespace gpumem::sweep
