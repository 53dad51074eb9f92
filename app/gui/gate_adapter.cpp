#include "gate_adapter.hpp"
#include "common/text.hpp"

#include "split_directory.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/gate.hpp>
#include <steadyscope/review.hpp>
#include <steadyscope/split.hpp>

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <cmath>
#include <map>

namespace steadyscope::app {

using widgets::qs;

using widgets::colors::Verdict;

namespace {
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

QString plainSentence(const std::string& s) {
  // Spec references ("(§6.4)", ", §8 B12") and a code in parentheses ("(trace_split_no_steady_state)"):
  // the codes are under the Explanation's Details.
  static const QRegularExpression ref(
      QStringLiteral("\\s*\\((?:[^()]*; )?§[^()]*\\)|,?\\s*§\\d+(?:\\.\\d+)*(?: [A-Z]\\d+)?|"
                     "\\s*\\([a-z]+(?:_[a-z0-9]+)+\\)"));
  return qs(s).remove(ref);
}

std::shared_ptr<const GateSource> liveGateSource(const analysis::SplitResult& r, const analysis::SplitOptions& o,
                                                 analysis::EvidenceContext& evidence) {
  auto s = std::make_shared<GateSource>();
  s->kind = GateSource::Kind::Live;
  s->input = review::gateInputFromSplit(r, o, &evidence);
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
  go.threshold = threshold;
  return runGate(s, mode, go);
}

GateRun runGate(const GateSource& s, gate::Mode mode, const gate::GateOptions& options) {
  gate::GateOptions go = options;
  go.mode = mode;
  GateRun run;
  if (s.kind == GateSource::Kind::Live) {
    run.result = gate::evaluateGate(s.input, go);
    return run;
  }
  gate::ReviewOptions ro;
  ro.gate = go;
  if (s.match) {
    Expected<review::TraceReview> r = review::gateWithTraceMatch(s.dir, *s.match, ro);
    if (r.ok())
      run.result = std::move(r.value().result);
    else
      run.error = QString::fromStdString(r.error().describe());
    return run;
  }
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

namespace {
/// Finding and reading the chunk, as opposed to judging it.
bool isBookkeeping(const std::string& rule) {
  return rule == "collect" || rule == "any_chunk" || rule == "mode_present" || rule == "select" ||
         rule == "details_csv" || rule == "row_match";
}

QString ruleLabel(const std::string& rule) {
  static const std::map<std::string, const char*> labels = {
      {"collect", "chunk files"},   {"any_chunk", "any chunk"},      {"mode_present", "requested mode"},
      {"select", "chunk chosen"},   {"details_csv", "details file"}, {"row_match", "details row"},
      {"gpu_events", "GPU events"}, {"busy_ratio", "busy ratio"},    {"threshold", "threshold"},
      {"alternate", "alternate"},   {"verdict", "verdict"},          {"retry", "retry"},
      {"strict", "strict"}};
  const auto it = labels.find(rule);
  return it == labels.end() ? qs(rule) : QObject::tr(it->second);
}

QString numberOf(const JsonValue* v) {
  if (!v || v->isNull()) return {};
  if (!v->isNumber()) return qs(v->dump(JsonStyle::oneLine()));
  const double d = v->asDouble();
  return d == std::floor(d) && std::abs(d) < 1e15 ? QString::number(qint64(d)) : qs(gate::formatNumber(d));
}

/// The value a rule measured and what it compared it with.
void measureOf(const gate::RuleEvaluation& r, widgets::GateRule& out) {
  for (const char* key : {"busy_ratio", "num_gpu_events"})
    if (QString m = numberOf(r.inputs.find(key)); !m.isEmpty() && r.rule != "row_match") {
      out.measured = m;
      break;
    }
  QStringList limits;
  if (QString t = numberOf(r.inputs.find("threshold")); !t.isEmpty()) limits << QObject::tr("threshold %1").arg(t);
  if (QString d = numberOf(r.inputs.find("difference")); !d.isEmpty())
    limits << QObject::tr("lead %1 over the chosen chunk").arg(d);
  if (QString m = numberOf(r.inputs.find("margin")); !m.isEmpty()) limits << QObject::tr("margin %1").arg(m);
  out.limit = limits.join(QStringLiteral(", "));
}

/// The rule that decided: the first that failed, else the one whose sentence is the verdict's.
int decidingRule(const gate::GateResult& g) {
  for (size_t k = 0; k < g.record.size(); ++k)
    if (g.record[k].outcome == gate::RuleOutcome::Failed) return int(k);
  for (size_t k = 0; k < g.record.size(); ++k)
    if (g.record[k].sentence == g.summary) return int(k);
  return -1;
}

QVector<int> stepsOf(const gate::Finding& f) {
  QVector<int> steps;
  if (const JsonValue* idx = f.details.find("empty_step_indices"); idx && idx->isArray())
    for (const JsonValue& v : idx->items()) steps << int(v.asDouble());
  if (const JsonValue* one = f.details.find("step_index"); one && one->isNumber()) steps << int(one->asDouble());
  return steps;
}

/// The pipeline passes the chunk without looking at its numbers.
bool passedUnchecked(const gate::GateResult& g) {
  if (!g.accepted) return false;
  for (const gate::RuleEvaluation& r : g.record)
    if (r.outcome == gate::RuleOutcome::Skipped &&
        (r.rule == "details_csv" || r.rule == "row_match" || r.rule == "busy_ratio"))
      return true;
  return false;
}

QString headlineOf(const gate::GateResult& g) {
  QString h = plainSentence(g.summary);
  if (!h.isEmpty()) h[0] = h[0].toUpper();
  if (!h.endsWith(QLatin1Char('.'))) h += QLatin1Char('.');
  if (g.retry)
    h += QObject::tr(" The pipeline then retries with %1.").arg(qs(g.retry->toMode));
  else if (!g.finalAccepted())
    h += QObject::tr(" No other mode is offered.");
  return h;
}
}  // namespace

widgets::GateExplanation explanationOf(const gate::GateResult& g) {
  widgets::GateExplanation e;
  const std::string_view mode = gate::modeName(g.options.mode);
  e.title = g.selectedChunk.empty() ? qs(mode) : qs(mode) + QStringLiteral(" — ") + baseName(g.selectedChunk);
  e.verdict = verdictOf(g);
  e.unchecked = passedUnchecked(g);
  if (!g.errorMessage.empty())
    e.reason = qs(g.errorMessage).section(QLatin1Char(':'), 0, 0);
  else if (g.lowQuality)
    e.reason = QStringLiteral("steady_state_chunk_low_quality (passed: no alternate qualifies)");
  e.summary = plainSentence(g.summary);
  e.headline = headlineOf(g);
  const int deciding = decidingRule(g);
  for (size_t k = 0; k < g.record.size(); ++k) {
    const gate::RuleEvaluation& r = g.record[k];
    widgets::GateRule rule;
    rule.name = qs(r.rule);
    rule.label = ruleLabel(r.rule);
    rule.subject = qs(r.subject);
    rule.outcome = qs(gate::ruleOutcomeName(r.outcome));
    rule.pass = r.outcome != gate::RuleOutcome::Failed;
    rule.sentence = plainSentence(r.sentence);
    rule.value = inputsText(r.inputs);
    rule.deciding = int(k) == deciding;
    rule.bookkeeping = isBookkeeping(r.rule) && !rule.deciding && r.outcome != gate::RuleOutcome::Failed;
    measureOf(r, rule);
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
  for (const gate::Finding& f : g.findings) {
    const QString text = plainSentence(f.sentence);
    e.findings << qs(f.code) +
                      (f.subject.empty() ? QString() : QStringLiteral(" (") + qs(f.subject) + QLatin1Char(')')) +
                      QStringLiteral(": ") + text;
    e.findingLinks.push_back({text, stepsOf(f)});
  }
  e.warningsJson = qs(g.pipelineResult().dump(JsonStyle::indented()));
  return e;
}

namespace {
/// The numbers of a CSV row as the table shows them (unparseable cells: unknown).
void fillFromCsv(const gate::CsvTable& t, const gate::CsvRecord& rec, widgets::ChunkRow& r) {
  auto num = [&](std::string_view col) -> std::optional<double> {
    const std::optional<std::string> c = t.cell(rec, col);
    return c ? gate::parsePyFloat(*c) : std::nullopt;
  };
  if (auto v = num("event_count")) r.events = qint64(*v);
  if (auto v = num("num_gpu_events")) r.gpuEvents = qint64(*v);
  if (auto v = num("gpu_duration")) r.gpuTimeUs = *v;
  if (auto v = num("gpu_busy_duration")) r.gpuBusyUs = *v;
  if (auto v = num("num_steps")) r.stepCount = int(*v);
}
}  // namespace

QVector<widgets::ChunkRow> directoryChunkRows(const std::string& dir) {
  const SplitDirectoryInfo info = inspectSplitDirectory(QString::fromStdString(dir));
  // Rows are found by file name here, whatever output_path's directory: the
  // table shows the CSV's numbers even where the pipeline would not match them.
  std::map<QString, const gate::CsvRecord*> byName;
  std::map<QString, gate::RowReading> readings;
  const std::string csvPath = QDir(QString::fromStdString(dir)).filePath(qs(names::kDetailsCsvFile)).toStdString();
  Expected<gate::CsvTable> t = gate::readCsvFile(csvPath);
  if (t.ok()) {
    const int pathCol = t.value().column("output_path");
    for (const gate::CsvRecord& rec : t.value().records)
      if (pathCol >= 0 && size_t(pathCol) < rec.fields.size())
        byName.emplace(baseName(rec.fields[size_t(pathCol)]), &rec);
    for (const gate::ChunkRow& row : gate::chunkRowsFromTable(t.value()))
      if (row.outputPath) readings.emplace(baseName(*row.outputPath), gate::readRow(row));
  }
  QVector<widgets::ChunkRow> rows;
  for (const SplitChunkFile& c : info.chunks) {
    widgets::ChunkRow r;
    r.mode = c.mode;
    r.file = c.fileName;
    r.events = -1;
    r.gpuEvents = -1;
    if (auto it = byName.find(c.fileName); it != byName.end()) fillFromCsv(t.value(), *it->second, r);
    if (auto it = readings.find(c.fileName); it != readings.end() && it->second.busyRatio)
      r.busyRef = *it->second.busyRatio;
    rows.push_back(r);
  }
  return rows;
}

namespace {

bool isWarningFinding(const std::string& code) {
  return code == "steps_without_gpu_work" || code == "dominant_gpu_event" || code == "startup_transient_inside";
}

/// Verdict, findings and the unchecked mark of one row from its mode's gate run.
void markRow(const gate::GateResult& g, gate::Mode m, widgets::ChunkRow& row) {
  row.verdict = verdictOf(g);
  row.hasVerdict = true;
  row.findings = 0;
  row.findingsWarn = false;
  QStringList lines;
  for (const gate::Finding& f : g.findings) {
    if (f.subject != gate::modeName(m)) continue;
    ++row.findings;
    row.findingsWarn = row.findingsWarn || isWarningFinding(f.code);
    lines << plainSentence(f.sentence);
  }
  row.findingsText = lines.join(QLatin1Char('\n'));
  row.unchecked = passedUnchecked(g);
  row.note.clear();
  if (row.unchecked) {
    row.note = plainSentence(g.summary);  // "passed — not checked: why"
    if (!row.note.isEmpty()) row.note[0] = row.note[0].toUpper();
    row.note += QLatin1Char('.');
    if (row.gpuEvents >= 0)
      row.note += QObject::tr(" The numbers shown come from the row of execution_details.csv with the same file name.");
  }
}
}  // namespace

void applyVerdicts(const GateSource& s, double threshold, gate::Mode requested, QVector<widgets::ChunkRow>& rows) {
  gate::GateOptions go;
  go.threshold = threshold;
  applyVerdicts(s, go, requested, rows);
}

void applyVerdicts(const GateSource& s, const gate::GateOptions& options, gate::Mode requested,
                   QVector<widgets::ChunkRow>& rows) {
  std::map<gate::Mode, GateRun> runs;
  for (widgets::ChunkRow& row : rows) {
    row.hasVerdict = false;
    const std::optional<gate::Mode> m = gate::parseMode(row.mode.toStdString());
    row.requested = m == requested;
    if (!m) continue;
    auto it = runs.find(*m);
    if (it == runs.end()) it = runs.emplace(*m, runGate(s, *m, options)).first;
    if (!it->second.result) continue;
    const gate::GateResult& g = *it->second.result;
    const gate::ChunkSummary* cs = nullptr;
    for (const gate::ChunkSummary& c : g.chunks)
      if (c.mode == *m) cs = &c;
    if (!row.file.isEmpty() && (!cs || baseName(cs->chunk) != row.file)) {  // not the family's first chunk
      row.requested = false;
      continue;
    }
    markRow(g, *m, row);
    if (cs && cs->reading && cs->reading->busyRatio) row.busyRef = *cs->reading->busyRatio;
    if (const auto& ev = s.input.evidence[gate::modeIndex(*m)]; ev && ev->unionBusyRatio && row.busyUnion < 0)
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
  const gate::Mode requested = requestedMode(*out.source, req.comboMode);
  gate::GateOptions go;
  go.threshold = req.threshold;
  go.margin = req.margin;
  go.strict = req.strict;
  applyVerdicts(*out.source, go, requested, out.rows);
  if (!control.enterStage("explanation")) return std::nullopt;
  gate::Mode mode = requested;
  if (auto m = gate::parseMode(req.selectedMode.toStdString())) mode = *m;
  out.shown = runGate(*out.source, mode, go);
  return out;
}

}  // namespace steadyscope::app
