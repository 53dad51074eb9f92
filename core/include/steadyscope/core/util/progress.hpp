#pragma once
// Progress reporting and cancellation for long core jobs (load, split, review,
// write). A job polls `cancelled()` at piece and stage boundaries and publishes
// progress through atomics; the GUI reads them on a timer (no callback storm,
// no locks).
#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>

namespace steadyscope {

class JobControl {
 public:
  void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }

  void setTotalBytes(uint64_t n) { totalBytes_.store(n, std::memory_order_relaxed); }
  void setDoneBytes(uint64_t n) { doneBytes_.store(n, std::memory_order_relaxed); }
  void addDoneBytes(uint64_t n) { doneBytes_.fetch_add(n, std::memory_order_relaxed); }
  void addEvents(uint64_t n) { events_.fetch_add(n, std::memory_order_relaxed); }
  void setStage(int s) { stage_.store(s, std::memory_order_relaxed); }

  /// Marks the start of a named stage (a string literal: it is kept by
  /// pointer) and returns whether the job should go on, i.e. !cancelled().
  /// The observer, when set, runs first on the job's thread; tests use it to
  /// hold a job at a stage.
  bool enterStage(const char* name) {
    stageName_.store(name, std::memory_order_relaxed);
    if (onStage_) onStage_(name);
    return !cancelled();
  }
  /// The stage entered last ("" before the first).
  const char* stageName() const { return stageName_.load(std::memory_order_relaxed); }
  /// Set before the job starts; called with every stage's name.
  void setStageObserver(std::function<void(std::string_view)> f) { onStage_ = std::move(f); }

  uint64_t totalBytes() const { return totalBytes_.load(std::memory_order_relaxed); }
  uint64_t doneBytes() const { return doneBytes_.load(std::memory_order_relaxed); }
  uint64_t events() const { return events_.load(std::memory_order_relaxed); }
  int stage() const { return stage_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancel_{false};
  std::atomic<uint64_t> totalBytes_{0};
  std::atomic<uint64_t> doneBytes_{0};
  std::atomic<uint64_t> events_{0};
  std::atomic<int> stage_{0};
  std::atomic<const char*> stageName_{""};
  std::function<void(std::string_view)> onStage_;
};

}  // namespace steadyscope
