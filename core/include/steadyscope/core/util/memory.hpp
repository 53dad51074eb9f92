#pragma once
// Memory the core keeps after a trace is freed: big blocks retained so the
// next load finds warm pages (D-014), and the C library's free lists.
namespace steadyscope {

/// Gives that memory back to the system; the next load faults fresh pages.
/// For a window that closed its trace and may stay open for hours.
void releaseFreedMemory() noexcept;

/// For a process that loads and frees many traces (the window): blocks of
/// 1 MiB and more always come from the system and go back to it when freed.
/// The C library otherwise raises that threshold after each such free, and
/// later big blocks then come from (and stay in) its heap; and threads share
/// two heaps instead of one each. Call once, early, before threads start.
void tuneAllocatorForLongUse() noexcept;

}  // namespace steadyscope
