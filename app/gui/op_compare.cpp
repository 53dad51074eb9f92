#include "op_compare.hpp"

#include <steadyscope/split.hpp>

#include <QDir>
#include <QFileInfo>
#include <QObject>

namespace steadyscope::app {

namespace {

// The split `steadyscope-cli compare` plans: find steady state, the workload kind the trace holds.
std::optional<analysis::SplitResult> planSplit(const TracePtr& trace, JobControl& control) {
  analysis::SplitOptions o;
  o.findSteadyState = true;
  o.outputDir = trace->baseName;  // names the planned chunks only: nothing is written
  o.llmInference = analysis::llmInferenceFor(analysis::WorkloadKind::Auto, *trace);
  analysis::Splitter splitter(trace);
  analysis::SplitResult r = splitter.plan(o, &control);
  if (control.cancelled()) return std::nullopt;
  return r;
}

bool hasSteadyState(const analysis::SplitResult& s) {
  for (const auto& c : s.chunks)
    if (c.kind == analysis::ChunkKind::SteadyState && !c.roots.empty()) return true;
  return false;
}

/// Why a side cannot be compared at all ("" when it can).
QString sideProblem(const analysis::SplitResult& s) {
  if (s.outcome == analysis::SplitOutcome::NoGpuWork)
    return QObject::tr("has no GPU work (kernels, memcpys, memsets) to compare");
  if (s.outcome == analysis::SplitOutcome::Error)
    return QObject::tr("could not be split: %1").arg(QString::fromStdString(s.error));
  return {};
}

}  // namespace

// Both steady states; one missing: every step of both (chooseSteps); a side without steps: the whole traces.
ChosenSteps chooseWithFallback(const OpCompareSide& a, const analysis::SplitResult& sa, const OpCompareSide& b,
                               const analysis::SplitResult& sb) {
  const QString nameA = sideName(0, a.path, b.path), nameB = sideName(1, a.path, b.path);
  ChosenSteps out;
  for (const auto& [name, split] : {std::pair{nameA, &sa}, std::pair{nameB, &sb}})
    if (const QString why = sideProblem(*split); !why.isEmpty()) {
      out.error = QObject::tr("%1 %2.").arg(name, why);
      return out;
    }
  compare::CompareOptions o;
  o.wholeTrace = sa.roots.empty() || sb.roots.empty();
  auto steps = compare::chooseSteps(*a.trace, &sa, *b.trace, &sb, o);
  if (!steps) {
    out.error = QString::fromStdString(steps.error().describe());
    return out;
  }
  if (o.wholeTrace) {
    const QString who = sa.roots.empty() && sb.roots.empty() ? QObject::tr("Neither trace has steps")
                        : sa.roots.empty()                   ? QObject::tr("%1 has no steps").arg(nameA)
                                                             : QObject::tr("%1 has no steps").arg(nameB);
    out.note = QObject::tr("%1: the whole traces are compared, every GPU event (per step = per trace).").arg(who);
  } else if (!hasSteadyState(sa) || !hasSteadyState(sb)) {
    const QString who = !hasSteadyState(sa) && !hasSteadyState(sb)
                            ? QObject::tr("Neither trace has a steady-state chunk")
                        : !hasSteadyState(sa) ? QObject::tr("%1 has no steady-state chunk").arg(nameA)
                                              : QObject::tr("%1 has no steady-state chunk").arg(nameB);
    out.note = QObject::tr("%1: the whole traces are compared, every step of each, aligned by index.").arg(who);
  }
  out.steps = std::move(steps.value());
  return out;
}

namespace {

widgets::ByOpSide sideView(const compare::SideFigures& f, const QString& name) {
  widgets::ByOpSide s;
  s.name = name;
  s.stepSource = QString::fromStdString(f.stepSource);
  s.totalSteps = f.totalSteps;
  s.firstStep = f.firstStep;
  s.steps = f.steps;
  s.availableSteps = f.availableSteps;
  s.stepMedianUs = f.stepMedianUs;
  s.gpuUs = f.gpuUs;
  s.gpuBusyPerStepUs = f.gpuBusyPerStepUs;
  s.attributedShare = f.attributedShare;
  s.gpuEvents = f.gpuEvents;
  s.stepUs = f.stepUs;
  return s;
}

widgets::ByOpData viewOf(const compare::Comparison& c, const QString& nameA, const QString& nameB, QString note) {
  widgets::ByOpData d;
  d.a = sideView(c.a, nameA);
  d.b = sideView(c.b, nameB);
  d.wholeTrace = c.wholeTrace;
  d.note = std::move(note);
  d.rows.reserve(c.ops.size());
  for (const compare::OpRow& r : c.ops) {
    widgets::ByOpRow row{QString::fromStdString(r.op),
                         r.aCount,
                         r.bCount,
                         r.aGpuUs,
                         r.bGpuUs,
                         r.aUsPerStep,
                         r.bUsPerStep,
                         r.deltaUsPerStep,
                         {}};
    for (const compare::KernelRow& k : r.kernels)
      row.kernels.push_back({QString::fromStdString(k.name), k.aCount, k.bCount, k.aGpuUs, k.bGpuUs});
    d.rows.push_back(std::move(row));
  }
  return d;
}

}  // namespace

QString sideName(int side, const QString& pathA, const QString& pathB) {
  const QFileInfo a(pathA), b(pathB);
  const QFileInfo& mine = side == 0 ? a : b;
  QString name = mine.fileName();
  if (a.fileName() == b.fileName()) name = QDir(mine.absolutePath()).dirName() + QLatin1Char('/') + name;
  return QStringLiteral("%1 (%2)").arg(side == 0 ? QStringLiteral("A") : QStringLiteral("B"), name);
}

std::optional<OpCompareOutcome> compareByOp(OpCompareSide a, OpCompareSide b, JobContext& ctx) {
  JobControl& jc = ctx.control;
  if (!jc.enterStage("Splitting A")) return std::nullopt;
  std::optional<analysis::SplitResult> sa = planSplit(a.trace, jc);
  if (!sa || !jc.enterStage("Splitting B")) return std::nullopt;
  std::optional<analysis::SplitResult> sb = planSplit(b.trace, jc);
  if (!sb || !jc.enterStage("Finding each GPU event's launching op")) return std::nullopt;
  a.attribution = compare::attribute(*a.trace);
  b.attribution = compare::attribute(*b.trace);
  if (!jc.enterStage("Comparing op by op")) return std::nullopt;
  ChosenSteps chosen = chooseWithFallback(a, *sa, b, *sb);
  if (!chosen.steps) return OpCompareOutcome{nullptr, chosen.error};
  auto out = std::make_shared<OpComparison>();
  out->result = compare::compareSides(*a.trace, a.attribution, chosen.steps->first, *b.trace, b.attribution,
                                      chosen.steps->second);
  out->view = viewOf(out->result, sideName(0, a.path, b.path), sideName(1, a.path, b.path), chosen.note);
  out->a = std::move(a);
  out->b = std::move(b);
  return OpCompareOutcome{std::move(out), {}};
}

std::shared_ptr<const timeline::FindResults> opHighlight(const OpComparison& c, int side, const std::string& op,
                                                         const std::string& kernel) {
  const OpCompareSide& s = side == 0 ? c.a : c.b;
  if (!s.trace || !s.index) return nullptr;
  std::vector<EventIdx> events = compare::eventsOfOp(*s.trace, s.attribution, op);
  if (!kernel.empty()) std::erase_if(events, [&](EventIdx e) { return s.trace->nameOf(e) != kernel; });
  return std::make_shared<const timeline::FindResults>(timeline::findEventSet(*s.trace, *s.index, events));
}

}  // namespace steadyscope::app
