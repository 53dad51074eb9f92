#include "document.hpp"

#include "job_lane.hpp"

#include <QFileInfo>

namespace steadyscope::app {

Document::Document(QObject* parent) : QObject(parent), comparison_(new Comparison(this)) {}

Document::~Document() {
  // The last references to the trace's columns often live here: free them off the GUI thread.
  disposeOffGuiThread(std::make_shared<widgets::TraceDocument>(std::move(view_)));
}

QString Document::fileName() const { return QFileInfo(path_).fileName(); }

const Result* Document::shownResult() const {
  return current_ >= 0 && size_t(current_) < results_.size() ? &results_[size_t(current_)] : nullptr;
}

Result* Document::mutableResult(int index) {
  return index >= 0 && size_t(index) < results_.size() ? &results_[size_t(index)] : nullptr;
}

void Document::storeShown() {
  Result* r = mutableResult(current_);
  if (!r) return;
  r->overlays = view_.overlays;
  r->rows = rows_;
  r->gate = gate_;
  r->splitDir = splitDir_;
  r->rootTier = rootTier_;
}

void Document::setTrace(const QString& path, const widgets::TraceDocument& doc) {
  // The previous trace may be the last reference to gigabytes of columns.
  if (view_.trace != doc.trace) disposeOffGuiThread(std::make_shared<widgets::TraceDocument>(std::move(view_)));
  view_ = doc;
  path_ = doc ? path : QString();
  storeShown();
  emit traceChanged();
  comparison_->setOpenTrace(view_.trace);
}

void Document::setOverlays(std::shared_ptr<const timeline::TimelineOverlays> overlays, const QString& rootTier) {
  view_.overlays = std::move(overlays);
  rootTier_ = rootTier;
  storeShown();
  emit overlaysChanged();
}

void Document::setRows(QVector<widgets::ChunkRow> rows) {
  rows_ = std::move(rows);
  ++rowsGeneration_;
  storeShown();
  emit rowsReset();
}

void Document::updateRows(QVector<widgets::ChunkRow> rows) {
  const bool reset = rows.size() != rows_.size();
  rows_ = std::move(rows);
  storeShown();
  emit reset ? rowsReset() : rowsUpdated();
}

void Document::setPlaceholder(const QString& text) {
  placeholder_ = text;
  emit placeholderChanged();
}

void Document::setSplitDir(const QString& dir) {
  splitDir_ = dir;
  storeShown();
}

void Document::setGateSource(std::shared_ptr<const GateSource> source) {
  gate_ = std::move(source);
  storeShown();
}

void Document::setShownGate(std::optional<gate::GateResult> g, const QString& error) {
  shownGate_ = std::move(g);
  shownGateError_ = error;
  emit gateShown();
}

void Document::addResult(Result r) {
  storeShown();
  results_.push_back(std::move(r));
  current_ = int(results_.size()) - 1;
  emit resultsChanged();
}

void Document::replaceShownResult(Result r) {
  if (!mutableResult(current_)) return addResult(std::move(r));
  results_[size_t(current_)] = std::move(r);
  emit resultsChanged();
}

void Document::showResult(int index) {
  if (!mutableResult(index) || index == current_) return;
  storeShown();
  current_ = index;
  const Result& r = results_[size_t(index)];
  splitDir_ = r.splitDir;
  gate_ = r.gate;
  view_.overlays = r.overlays;
  rootTier_ = r.rootTier;
  rows_ = r.rows;
  ++rowsGeneration_;
  emit resultsChanged();
  emit overlaysChanged();
  emit rowsReset();
}

void Document::clearResults() {
  // A result's plan holds the splitter's event index: free it off the GUI thread too.
  disposeOffGuiThread(std::make_shared<std::vector<Result>>(std::move(results_)));
  results_.clear();
  current_ = -1;
  splitDir_.clear();
  rootTier_.clear();
  gate_.reset();
  shownGate_.reset();
  shownGateError_.clear();
  rows_.clear();
  ++rowsGeneration_;
  emit resultsChanged();
  emit rowsReset();
}

void Document::setJob(widgets::JobOverview job) {
  job_ = std::move(job);
  emit jobChanged();
}

}  // namespace steadyscope::app
