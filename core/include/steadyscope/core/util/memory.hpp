#pragma once
// Memory the core keeps after a trace is freed: big blocks retained so the
// next load finds warm pages (D-014), and the C library's free lists.
namespace steadyscope {

/// Gives that memory back to the system; the next load faults fresh pages.
/// For a window that closed its trace and may stay open for hours.
void releaseFreedMemory() noexcept;

}  // namespace steadyscope
