#pragma once
// Two independent jobs: on two threads when the input is big enough to pay
// for a thread, else one after the other on the calling thread.
#include <thread>
#include <utility>

namespace steadyscope {

/// Runs `onHelper` on a new thread and `here` on the calling thread when
/// `parallel`, else `here` then `onHelper`; returns when both are done.
template <typename A, typename B>
void runSideBySide(bool parallel, A&& onHelper, B&& here) {
  if (!parallel) {
    here();
    onHelper();
    return;
  }
  std::thread helper(std::forward<A>(onHelper));
  here();
  helper.join();
}

}  // namespace steadyscope
