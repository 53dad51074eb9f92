#include "load_job.hpp"

#include <steadyscope/io.hpp>

#include <QCoreApplication>

#include <cstring>

namespace steadyscope::app {

namespace {
// The stage after the loader's own (LoadStage): the timeline index.
constexpr const char* kTimelineStage = "timeline";
QString tr(const char* s) { return QCoreApplication::translate("LoadJob", s); }
}  // namespace

std::optional<LoadOutcome> loadDocument(const std::string& path, JobContext& ctx, bool allowPartial,
                                        TraceCache* cache) {
  if (!ctx.control.enterStage("load")) return std::nullopt;
  LoadOptions opts;
  opts.control = &ctx.control;
  opts.allowPartial = allowPartial;
  opts.cache = cache;
  auto r = loadTrace(path, opts);
  if (!r) {
    if (r.error().kind == Error::Kind::Cancelled || ctx.control.cancelled()) return std::nullopt;
    return LoadOutcome{{}, QString::fromStdString(r.error().describe()), !allowPartial && endsEarly(r.error())};
  }
  if (!ctx.control.enterStage(kTimelineStage)) return std::nullopt;
  TracePtr trace = r.value();
  startSourceDigest(*trace);  // in the background, for an export's manifest (D-035)
  auto index = timeline::buildTimelineIndex(*trace, &ctx.cancelFlag);
  if (!index || ctx.control.cancelled()) return std::nullopt;
  LoadOutcome out;
  out.doc.trace = std::move(trace);
  out.doc.index = std::move(index);
  return out;
}

JobProgress loadProgress(const JobControl& c) {
  JobProgress p;
  p.doneBytes = c.doneBytes();
  p.totalBytes = c.totalBytes();
  p.events = c.events();
  if (std::strcmp(c.stageName(), kTimelineStage) == 0) {
    p.stage = tr("Building the timeline");
    p.complete = true;
    return p;
  }
  switch (c.stage()) {
    case StageOpen: p.stage = tr("Opening"); break;
    case StageDecompress: p.stage = tr("Decompressing and parsing"); break;
    case StageParse: p.stage = tr("Parsing"); break;
    case StageIndex: p.stage = tr("Indexing"); break;
    case StageDone: p.stage = tr("Finishing"); break;
    default: p.stage = tr("Loading"); break;
  }
  return p;
}

}  // namespace steadyscope::app
