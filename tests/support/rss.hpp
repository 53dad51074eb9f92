#pragma once
// The process's resident anonymous memory, for tests that repeat a load or a
// window cycle and check nothing accumulates.
#include <fstream>
#include <string>

namespace sstest {

/// RssAnon from /proc/self/status, in KiB (-1 if unreadable).
inline long rssAnonKiB() {
  std::ifstream in("/proc/self/status");
  std::string key;
  long kb = 0;
  while (in >> key) {
    if (key == "RssAnon:" && in >> kb) return kb;
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

}  // namespace sstest
