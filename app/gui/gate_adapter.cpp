#include "gate_adapter.hpp"

#include "split_directory.hpp"

#include <steadyscope/core/analysis/chunk_evidence.hpp>
#include <steadyscope/core/analysis/splitter.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/review.hpp>
#include <steadyscope/core/review/split_gate.hpp>
#include <steadyscope/core/util/split_names.hpp>

#include <QDir>
#include <QFileInfo>

#include <map>

namespace steadyscope::app {

using widgets::colors::Verdict;

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
QString baseName(const std::string& path) { return QFileInfo(QString::fromStdString(path)).fileName(); }

/// Compact "key=value" list of a rule's inputs (strings unquoted).
QString inputsText(const JsonValue& inputs) {
  if (!inputs.isObject()) return qs(inputs.dump(JsonStyle::oneLine()));
  QStringList parts;
  for (const auto& [k, v] : inputs.members()) {
    QString value = v.isString() ? qs(v.asString()) : qs(v.dump(JsonStyle::oneLine()));
    if (value.size() > 90) value = value.left(87) + QStringLiteral("…");
    parts << qs(k) + QLatin1Char('=') + value;
  }
  return parts.join(QStringLiteral(", "));
}
}  // namespace

std::shared_ptr<const GateSource> liveGateSource(const analysis::SplitResult& r, const analysis::SplitOptions& o,
                                                 analysis::Splitter& splitter) {
  auto s = std::make_shared<GateSource>();
  s->kind = GateSource::Kind::Live;
  analysis::EvidenceContext ctx(splitter.eventIndex(o), o);
  s->input = review::gateInputFromSplit(r, o, &ctx);
  s->llm = r.servingAnnotations || o.llmInference;
  for (gate::Mode m : {gate::Mode::Mixed, gate::Mode::DecodeOnly, gate::Mode::PrefillDecode})
    if (s->input.listing.count(m) > 0) s->llm = true;
  return s;
}

std::shared_ptr<const GateSource> directoryGateSource(const std::string& dir) {
  auto s = std::make_shared<GateSource>();
  s->kind = GateSource::Kind::Directory;
  s->dir = dir;
  s->llm = false;
  if (auto listing = gate::collectSplitChunks(dir); listing.ok())
    for (gate::Mode m : {gate::Mode::Mixed, gate::Mode::DecodeOnly, gate::Mode::PrefillDecode})
      if (listing->count(m) > 0) s->llm = true;
  return s;
}

gate::Mode requestedMode(const GateSource& s, const QString& comboText) {
  if (auto m = gate::parseMode(comboText.toStdString())) return *m;
  return s.llm ? gate::Mode::Mixed : gate::Mode::Generic;
}

GateRun runGate(const GateSource& s, gate::Mode mode, double threshold) {
  gate::GateOptions go;
  go.mode = mode;
  go.threshold = threshold;
  GateRun run;
  if (s.kind == GateSource::Kind::Live) {
    run.result = gate::evaluateGate(s.input, go);
    return run;
  }
  gate::ReviewOptions ro;
  ro.gate = go;
  Expected<gate::GateResult> r = gate::reviewSplitDirectory(s.dir, ro);
  if (r.ok())
    run.result = std::move(r.value());
  else
    run.error = QString::fromStdString(r.error().describe());
  return run;
}

Verdict verdictOf(const gate::GateResult& g) {
  switch (g.refusal) {
    case gate::Refusal::NoSteadyState:
    case gate::Refusal::ChunkMissing: return Verdict::Missing;
    case gate::Refusal::LowQuality: return Verdict::Refused;
    case gate::Refusal::None: break;
  }
  if (g.strictRefused || !g.accepted) return Verdict::Refused;
  return g.lowQuality ? Verdict::LowQuality : Verdict::Accepted;
}

widgets::GateExplanation explanationOf(const gate::GateResult& g) {
  widgets::GateExplanation e;
  const std::string_view mode = gate::modeName(g.options.mode);
  e.title = g.selectedChunk.empty() ? qs(mode) : qs(mode) + QStringLiteral(" — ") + baseName(g.selectedChunk);
  e.verdict = verdictOf(g);
  if (!g.errorMessage.empty())
    e.reason = qs(g.errorMessage).section(QLatin1Char(':'), 0, 0);
  else if (g.lowQuality)
    e.reason = QStringLiteral("low quality, passed (no alternate qualifies)");
  e.summary = qs(g.summary);
  for (const gate::RuleEvaluation& r : g.record) {
    widgets::GateRule rule;
    rule.name = qs(r.rule);
    rule.subject = qs(r.subject);
    rule.outcome = qs(gate::ruleOutcomeName(r.outcome));
    rule.pass = r.outcome != gate::RuleOutcome::Failed;
    rule.sentence = qs(r.sentence);
    rule.value = inputsText(r.inputs);
    e.rules.push_back(rule);
  }
  for (const std::string& m : g.nonEmptyModes) {
    QString line = qs(m);
    if (auto pm = gate::parseMode(m)) {
      const gate::ChunkSummary* cs = nullptr;
      for (const gate::ChunkSummary& c : g.chunks)
        if (c.mode == *pm) cs = &c;
      if (cs && cs->reading && cs->reading->busyRatio)
        line += QLatin1Char(' ') + qs(gate::formatNumber(*cs->reading->busyRatio));
    }
    e.alternates << line;
  }
  if (g.retry) e.retry = QStringLiteral("retry ") + qs(g.retry->toMode);
  for (const gate::Finding& f : g.findings)
    e.findings << qs(f.code) +
                      (f.subject.empty() ? QString() : QStringLiteral(" (") + qs(f.subject) + QLatin1Char(')')) +
                      QStringLiteral(": ") + qs(f.sentence);
  e.warningsJson = qs(g.pipelineResult().dump(JsonStyle::indented()));
  return e;
}

QVector<widgets::ChunkRow> directoryChunkRows(const std::string& dir) {
  const SplitDirectoryInfo info = inspectSplitDirectory(QString::fromStdString(dir));
  std::map<QString, gate::RowReading> byName;
  const std::string csvPath = QDir(QString::fromStdString(dir)).filePath(qs(names::kDetailsCsvFile)).toStdString();
  if (Expected<gate::CsvTable> t = gate::readCsvFile(csvPath); t.ok())
    for (const gate::ChunkRow& row : gate::chunkRowsFromTable(t.value()))
      if (row.outputPath) byName.emplace(baseName(*row.outputPath), gate::readRow(row));
  QVector<widgets::ChunkRow> rows;
  for (const SplitChunkFile& c : info.chunks) {
    widgets::ChunkRow r;
    r.mode = c.mode;
    r.file = c.fileName;
    r.events = -1;
    if (auto it = byName.find(c.fileName); it != byName.end()) {
      r.gpuEvents = it->second.numGpuEvents;
      if (it->second.busyRatio) r.busyRef = *it->second.busyRatio;
    } else {
      r.gpuEvents = -1;
    }
    rows.push_back(r);
  }
  return rows;
}

void applyVerdicts(const GateSource& s, double threshold, QVector<widgets::ChunkRow>& rows) {
  std::map<gate::Mode, GateRun> runs;
  for (widgets::ChunkRow& row : rows) {
    row.hasVerdict = false;
    const std::optional<gate::Mode> m = gate::parseMode(row.mode.toStdString());
    if (!m) continue;
    auto it = runs.find(*m);
    if (it == runs.end()) it = runs.emplace(*m, runGate(s, *m, threshold)).first;
    if (!it->second.result) continue;
    const gate::GateResult& g = *it->second.result;
    const gate::ChunkSummary* cs = nullptr;
    for (const gate::ChunkSummary& c : g.chunks)
      if (c.mode == *m) cs = &c;
    if (!row.file.isEmpty() && (!cs || baseName(cs->chunk) != row.file)) continue;  // not the family's first chunk
    row.verdict = verdictOf(g);
    row.hasVerdict = true;
    if (cs && cs->reading && cs->reading->busyRatio) row.busyRef = *cs->reading->busyRatio;
    if (const auto& ev = s.input.evidence[gate::modeIndex(*m)]; ev && ev->unionBusyRatio)
      row.busyUnion = *ev->unionBusyRatio;
  }
}

std::optional<GateReview> reviewGate(GateRequest req, JobControl& control) {
  if (!control.enterStage("review")) return std::nullopt;
  GateReview out;
  out.source = req.source;
  out.rows = std::move(req.rows);
  if (!out.source) {
    out.source = directoryGateSource(req.dir);
    out.rows = directoryChunkRows(req.dir);
  }
  if (!control.enterStage("verdicts")) return std::nullopt;
  applyVerdicts(*out.source, req.threshold, out.rows);
  if (!control.enterStage("explanation")) return std::nullopt;
  gate::Mode mode = requestedMode(*out.source, req.comboMode);
  if (auto m = gate::parseMode(req.selectedMode.toStdString())) mode = *m;
  out.shown = runGate(*out.source, mode, req.threshold);
  return out;
}

}  // namespace steadyscope::app
