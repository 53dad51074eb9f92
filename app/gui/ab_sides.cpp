#include "ab_sides.hpp"

#include "load_job.hpp"
#include "split_adapter.hpp"
#include "split_directory.hpp"

#include <steadyscope/timeline.hpp>

#include <QDir>
#include <QFileInfo>

namespace steadyscope::app {

namespace {

std::optional<AbPick> pickWindow(const widgets::TraceDocument& doc, qint64 beginNs, qint64 endNs,
                                 std::vector<timeline::GpuSpan> spans, const QString& label) {
  if (!doc || endNs <= beginNs) return std::nullopt;
  AbPick p;
  p.trace = doc.trace;
  p.index = doc.index;
  p.input = {p.trace.get(), p.index.get(), beginNs, endNs, std::move(spans), label.toStdString()};
  return p;
}

QString stepsText(int first, int last) {
  return first < 0       ? QString()
         : first == last ? QObject::tr(" step %1").arg(first)
                         : QObject::tr(" steps %1–%2").arg(first).arg(last);
}

}  // namespace

std::optional<AbPick> pickChunk(const widgets::TraceDocument& doc, const widgets::ChunkRow& row, size_t c,
                                const QString& traceName) {
  if (!doc || !doc.overlays || c >= doc.overlays->chunks.size()) return std::nullopt;
  const timeline::ChunkBand& band = doc.overlays->chunks[c];
  const QString label = QStringLiteral("%1%2 (%3)").arg(row.mode, stepsText(band.firstStep, band.lastStep), traceName);
  return pickWindow(doc, band.beginNs, band.endNs, band.gpuSpans, label);
}

std::optional<AbPick> pickStep(const widgets::TraceDocument& doc, int pos, const QString& traceName) {
  if (!doc || !doc.overlays || pos < 0 || size_t(pos) >= doc.overlays->steps.size()) return std::nullopt;
  const timeline::StepBand& s = doc.overlays->steps[size_t(pos)];
  return pickWindow(doc, s.beginNs, s.endNs, {}, QObject::tr("step %1 (%2)").arg(s.index).arg(traceName));
}

std::optional<AbPick> pickRange(const widgets::TraceDocument& doc, qint64 beginNs, qint64 endNs,
                                const QString& traceName) {
  if (!doc) return std::nullopt;
  const auto at = [&](qint64 t) {
    return QString::fromStdString(timeline::formatDuration(double(t - doc.index->firstNs)));
  };
  return pickWindow(doc, beginNs, endNs, {}, QObject::tr("range %1–%2 (%3)").arg(at(beginNs), at(endNs), traceName));
}

namespace {

std::optional<ComparedOutcome> comparedSplit(const QString& path, analysis::SplitOptions options,
                                             analysis::WorkloadKind kind, JobContext& ctx) {
  std::optional<LoadOutcome> loaded = loadDocument(path.toStdString(), ctx);
  if (!loaded) return std::nullopt;
  if (!loaded->doc) return ComparedOutcome{nullptr, loaded->error};
  widgets::TraceDocument doc = loaded->doc;
  options.llmInference = analysis::llmInferenceFor(kind, *doc.trace);
  std::optional<SplitView> view = planSplitView(doc.trace, doc.index, options, &ctx.control);
  if (!view) return std::nullopt;
  auto out = std::make_shared<ComparedTrace>();
  out->name = QFileInfo(path).fileName();
  out->path = path;
  out->note = view->noChunks;
  doc.overlays = view->overlays;
  out->doc = doc;
  for (qsizetype c = 0; c < view->chunks.size(); ++c) {
    std::optional<AbPick> p = pickChunk(doc, view->chunks[c], size_t(c), out->name);
    if (!p) continue;  // a mode without a window cannot be compared
    out->rows.push_back(view->chunks[c]);
    out->picks.push_back(std::move(*p));
  }
  return ComparedOutcome{std::move(out), {}};
}

// One row per chunk file, its figures over the whole file (a chunk file is the chunk's window).
std::optional<ComparedOutcome> comparedDirectory(const QString& path, JobContext& ctx) {
  const SplitDirectoryInfo info = inspectSplitDirectory(path);
  if (!info.error.isEmpty()) return ComparedOutcome{nullptr, info.error};
  auto out = std::make_shared<ComparedTrace>();
  out->name = QFileInfo(info.dir).fileName();
  out->path = info.dir;
  for (const SplitChunkFile& f : info.chunks) {
    const QString file = QDir(info.dir).filePath(f.fileName);
    std::optional<LoadOutcome> loaded = loadDocument(file.toStdString(), ctx);
    if (!loaded) return std::nullopt;
    if (!loaded->doc) return ComparedOutcome{nullptr, loaded->error};
    const widgets::TraceDocument& doc = loaded->doc;
    std::optional<AbPick> p = pickWindow(doc, doc.index->firstNs, doc.index->lastNs, {},
                                         QStringLiteral("%1 (%2)").arg(f.fileName, out->name));
    if (!p) continue;
    const timeline::AbSideFigures fig = timeline::abSideFigures(p->input);
    widgets::ChunkRow row;
    row.mode = f.mode;
    row.file = f.fileName;
    row.beginNs = doc.index->firstNs;
    row.endNs = doc.index->lastNs;
    row.events = qint64(fig.events);
    row.gpuEvents = qint64(fig.gpuEvents);
    row.gpuTimeUs = double(fig.gpuTimeNs) / 1000.0;
    row.busyWindow = fig.unionRatio();
    out->rows.push_back(row);
    out->picks.push_back(std::move(*p));
  }
  if (out->rows.isEmpty()) out->note = QObject::tr("%1 holds no chunk file with events.").arg(out->name);
  return ComparedOutcome{std::move(out), {}};
}

}  // namespace

std::optional<ComparedOutcome> loadCompared(const QString& path, analysis::SplitOptions options,
                                            analysis::WorkloadKind kind, JobContext& ctx) {
  if (QFileInfo(path).isDir()) return comparedDirectory(path, ctx);
  return comparedSplit(path, std::move(options), kind, ctx);
}

}  // namespace steadyscope::app
