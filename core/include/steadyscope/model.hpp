#pragma once
// The loaded trace: an immutable, columnar model shared as TracePtr between
// the splitter, the gate and the views. One array per event field (Column<T>,
// read like a std::vector), events in file order, each with the byte range of
// its JSON text for verbatim export; lanes per (pid, tid) sorted by start;
// the anomalies the loader met, each kind expected or suspicious (anomaly_kinds.hpp); the file's
// SHA-256, computed in the background.
//
//   const Trace& t = *trace;
//   for (EventIdx i : t.lanes[0].events) use(t.nameOf(i), t.tsNs[i], t.durNs[i]);
#include <steadyscope/core/model/anomaly_kinds.hpp>
#include <steadyscope/core/model/trace.hpp>
