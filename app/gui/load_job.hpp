#pragma once
// The load job: loadTrace + buildTimelineIndex, run by a JobRunner off the
// GUI thread, and the words for its stages in the status bar.
#include "common/trace_document.hpp"
#include "job_runner.hpp"

#include <QString>

#include <optional>
#include <string>

namespace steadyscope::app {

struct LoadOutcome {
  widgets::TraceDocument doc;  // set on success
  QString error;               // the loader's message on failure
};

/// (job thread) Loads `path` and builds its timeline index. nullopt: cancelled.
std::optional<LoadOutcome> loadDocument(const std::string& path, JobContext& ctx);

/// The loader's stage in words, its bytes and events (JobRunner::StageText).
JobProgress loadProgress(const JobControl& c);

}  // namespace steadyscope::app
