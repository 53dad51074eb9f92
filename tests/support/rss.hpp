#pragma once
// The process's resident anonymous memory, for tests that repeat a load or a
// window cycle and check nothing accumulates.
#include <fstream>
#include <string>

namespace sstest {

/// A field of /proc/self/status in KiB ("RssAnon:", "VmRSS:"; -1 if unreadable).
inline long statusKiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string key;
  long kb = 0;
  while (in >> key) {
    if (key == field && in >> kb) return kb;
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

/// RssAnon from /proc/self/status, in KiB (-1 if unreadable).
inline long rssAnonKiB() { return statusKiB("RssAnon:"); }
/// VmRSS, all resident memory (anonymous and file pages), in KiB.
inline long residentKiB() { return statusKiB("VmRSS:"); }

}  // namespace sstest
