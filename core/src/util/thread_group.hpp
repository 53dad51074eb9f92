#pragma once
// Every helper thread of the core starts here. A thread that cannot be started
// (the address space or the system's thread limit is exhausted: `ulimit -v`, a
// container) must not abort the program, and an exception on a helper (an
// allocation that failed) must reach the thread that waits for it, where the
// loader and the CLI turn it into "not enough memory …" naming the file.
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace steadyscope {

/// Threads that are always joined and whose first exception is rethrown by
/// join(). `onFailure` runs once when a thread throws, or when the group is
/// left without join() (an exception on the owning thread): it should make the
/// others stop waiting (stop a pipe, set a stop flag) so that joining ends.
class ThreadGroup {
 public:
  explicit ThreadGroup(std::function<void()> onFailure = {}) : onFailure_(std::move(onFailure)) {}
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;
  ~ThreadGroup() {
    if (!threads_.empty()) fail();
    for (std::thread& t : threads_) t.join();
  }

  /// Runs `f` on a new thread; false (and `f` not run) when none can be started.
  template <typename F>
  bool tryRun(F f) {
    try {
      threads_.reserve(threads_.size() + 1);
      threads_.emplace_back([this, f]() mutable { guarded(f); });
      return true;
    } catch (const std::system_error&) {
      return false;
    } catch (const std::bad_alloc&) {
      return false;
    }
  }

  /// Runs `f` on a new thread, or here and now when none can be started (work
  /// shared out by a counter, or in independent parts, is then done by fewer).
  template <typename F>
  void run(F f) {
    if (!tryRun(f)) guarded(f);
  }

  /// Whether a thread was started and not yet joined.
  bool running() const { return !threads_.empty(); }

  /// Waits for every thread; rethrows the first exception one of them (or a
  /// run() done here) threw.
  void join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    std::exception_ptr first;
    {
      std::lock_guard lock(mutex_);
      first = std::exchange(first_, nullptr);
    }
    if (first) std::rethrow_exception(first);
  }

 private:
  template <typename F>
  void guarded(F& f) {
    try {
      f();
    } catch (...) {
      {
        std::lock_guard lock(mutex_);
        if (!first_) first_ = std::current_exception();
      }
      fail();
    }
  }
  void fail() {
    std::call_once(failOnce_, [this] {
      if (onFailure_) onFailure_();
    });
  }

  std::function<void()> onFailure_;
  std::once_flag failOnce_;
  std::mutex mutex_;
  std::exception_ptr first_;
  std::vector<std::thread> threads_;
};

}  // namespace steadyscope
