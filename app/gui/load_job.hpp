#pragma once
// The load job: loadTrace + buildTimelineIndex, run by a JobLane off the
// GUI thread, and the words for its stages in the status bar.
#include "common/trace_document.hpp"
#include "job_lane.hpp"

#include <QString>

#include <optional>
#include <string>

namespace steadyscope {
class TraceCache;
}

namespace steadyscope::app {

struct LoadOutcome {
  widgets::TraceDocument doc;  // set on success
  QString error;               // the loader's message on failure
  bool endsEarly = false;      // the failure is a file that ends early: its complete events can be opened
};

/// (job thread) Loads `path` and builds its timeline index; `allowPartial`
/// keeps the complete events of a file that ends early (Trace::partial).
/// nullopt: cancelled.
/// `cache`: where the model is read back or stored (null: parse, store nothing).
std::optional<LoadOutcome> loadDocument(const std::string& path, JobContext& ctx, bool allowPartial = false,
                                        TraceCache* cache = nullptr);

/// The loader's stage in words, its bytes and events (JobLane::StageText).
JobProgress loadProgress(const JobControl& c);

}  // namespace steadyscope::app
