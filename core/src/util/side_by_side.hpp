#pragma once
// Two independent jobs: on two threads when the input is big enough to pay
// for a thread and the job may use more than one, else one after the other
// on the calling thread.
#include <steadyscope/core/util/threads.hpp>

#include "util/thread_group.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace steadyscope {

/// Whether two jobs should run side by side: the input is `big` enough to pay
/// for a thread and the job may use more than one (`threads` as for
/// jobThreads: 0 = the hardware's count).
inline bool sideBySide(unsigned threads, bool big) { return big && jobThreads(threads) > 1; }

/// Runs `onHelper` on a new thread and `here` on the calling thread when
/// sideBySide(threads, big), else `here` then `onHelper`; returns when both
/// are done.
template <typename A, typename B>
void runSideBySide(unsigned threads, bool big, A&& onHelper, B&& here) {
  if (!sideBySide(threads, big)) {
    here();
    onHelper();
    return;
  }
  ThreadGroup helper;
  helper.run(std::forward<A>(onHelper));
  here();
  helper.join();
}

/// Runs `work` on `workers` threads at once (the calling thread is one of
/// them; 0 or 1: just the calling thread) and returns when all are done.
/// `work` must share its items out itself (e.g. an atomic counter).
template <typename F>
void runOnWorkers(unsigned workers, const F& work) {
  ThreadGroup helpers;
  for (unsigned k = 1; k < workers; ++k) helpers.run(work);
  work();
  helpers.join();
}

}  // namespace steadyscope
