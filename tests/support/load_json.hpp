#pragma once
// A trace from JSON text for a test: the test stops with the loader's message
// when the text does not load (a broken fixture, not a result to check).
#include <steadyscope/core/io/loader.hpp>

#include <QtGlobal>

#include <string>

namespace sstest {

inline steadyscope::TracePtr loadJson(const std::string& json, const std::string& name) {
  auto r = steadyscope::loadTraceFromString(json, name);
  if (!r) qFatal("load failed: %s", r.error().describe().c_str());
  return r.value();
}

}  // namespace sstest
