#include <steadyscope/core/util/threads.hpp>
#include "util/idle_thread.hpp"

#include <pthread.h>
#include <sched.h>

namespace steadyscope {

bool runThisThreadOnlyWhenIdle() noexcept {
#ifdef SCHED_IDLE
  sched_param p{};
  p.sched_priority = 0;
  return pthread_setschedparam(pthread_self(), SCHED_IDLE, &p) == 0;
#else
  return false;
#endif
}

}  // namespace steadyscope
