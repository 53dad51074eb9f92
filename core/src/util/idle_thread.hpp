#pragma once
// Thread scheduling the core uses for work done ahead; not part of its API.

namespace steadyscope {

/// Lowers the calling thread to the idle class (SCHED_IDLE): it then runs
/// where a core would otherwise idle and yields to every other thread. For
/// work done ahead that a later stage may need. False where the system has
/// no such class (the thread keeps its priority).
bool runThisThreadOnlyWhenIdle() noexcept;

}  // namespace steadyscope
