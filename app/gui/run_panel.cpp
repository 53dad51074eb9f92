#include "run_panel.hpp"
#include "common/text.hpp"

#include "split_adapter.hpp"

#include <steadyscope/common.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace steadyscope::app {

using widgets::qs;

namespace {

/// A spin box whose lowest value means "not set" (the option is left out).
QSpinBox* optionalInt(QWidget* parent, int max, const QString& tip) {
  auto* b = new QSpinBox(parent);
  b->setRange(0, max);
  b->setSpecialValueText(QObject::tr("not set"));
  b->setToolTip(tip);
  return b;
}
QDoubleSpinBox* optionalDouble(QWidget* parent, double min, double max, double step, const QString& tip) {
  auto* b = new QDoubleSpinBox(parent);
  b->setRange(min, max);
  b->setSingleStep(step);
  b->setDecimals(2);
  b->setSpecialValueText(QObject::tr("not set"));
  b->setToolTip(tip);
  return b;
}
enum Preset { Faithful, Corrected, Custom };
}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("runPanel"));
  auto* inner = new QWidget;
  auto* col = new QVBoxLayout(inner);
  col->setContentsMargins(6, 6, 6, 6);
  col->addWidget(createSplitBox());
  col->addWidget(createFixesBox());
  col->addWidget(createGateBox());
  col->addStretch(1);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // Never narrower than the fields: without a horizontal scroll bar they would be cut off.
  scroll->setMinimumWidth(inner->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll, 1);
  outer->addWidget(createButtons());
  showJob(nullptr);
}

QWidget* RunPanel::createSplitBox() {
  auto* box = new QGroupBox(tr("Split"), this);
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  kind_ = new QComboBox(box);
  kind_->setObjectName(QStringLiteral("run.kind"));
  kind_->addItem(tr("auto (from the trace)"), int(analysis::WorkloadKind::Auto));
  kind_->addItem(tr("LLM inference"), int(analysis::WorkloadKind::LlmInference));
  kind_->addItem(tr("generic"), int(analysis::WorkloadKind::Generic));
  kind_->setToolTip(
      tr("auto: a trace with serving step annotations (vLLM, SGLang, ATOM) is split as LLM "
         "inference, any other as a generic workload, as the pipeline does"));
  form->addRow(tr("Workload"), kind_);
  numSteps_ = new QSpinBox(box);
  numSteps_->setObjectName(QStringLiteral("run.numSteps"));
  numSteps_->setRange(1, 100000);
  numSteps_->setValue(int(windowSplitOptions(32).numSteps));
  numSteps_->setToolTip(tr("How many consecutive steps the steady-state window holds"));
  form->addRow(tr("Steps per window"), numSteps_);
  conc_ = optionalInt(box, 1000000,
                      tr("The serving run's peak concurrency (CONC); with OSL and R it sets the ideal "
                         "share of prefill steps"));
  conc_->setObjectName(QStringLiteral("run.conc"));
  form->addRow(tr("Concurrency"), conc_);
  osl_ = optionalDouble(box, 0.0, 1e7, 16.0, tr("The run's output sequence length in tokens (OSL)"));
  osl_->setObjectName(QStringLiteral("run.osl"));
  form->addRow(tr("Output length"), osl_);
  r_ = optionalDouble(box, -0.05, 1.0, 0.05, tr("The output length's range ratio (R), 0 to 1"));
  r_->setObjectName(QStringLiteral("run.r"));
  r_->setValue(r_->minimum());
  form->addRow(tr("Range ratio"), r_);
  maxNumSeq_ = optionalInt(box, 1000000, tr("Batch size above which a step counts as carrying prefill work"));
  maxNumSeq_->setObjectName(QStringLiteral("run.maxNumSeq"));
  form->addRow(tr("Max batch"), maxNumSeq_);
  iterations_ = new QLineEdit(QStringLiteral("all"), box);
  iterations_->setObjectName(QStringLiteral("run.iterations"));
  iterations_->setToolTip(tr("The steps the split looks at: all, one step N, or the range A:B"));
  form->addRow(tr("Steps used"), iterations_);
  allowDegraded_ = new QCheckBox(tr("Split degraded step detections too"), box);
  allowDegraded_->setObjectName(QStringLiteral("run.allowDegraded"));
  allowDegraded_->setToolTip(tr("Also split when the steps were found with low confidence"));
  form->addRow(allowDegraded_);
  for (QSpinBox* b : {numSteps_, conc_, maxNumSeq_})
    connect(b, &QSpinBox::valueChanged, this, &RunPanel::splitOptionsChanged);
  for (QDoubleSpinBox* b : {osl_, r_}) connect(b, &QDoubleSpinBox::valueChanged, this, &RunPanel::splitOptionsChanged);
  connect(kind_, &QComboBox::currentIndexChanged, this, &RunPanel::splitOptionsChanged);
  connect(iterations_, &QLineEdit::editingFinished, this, &RunPanel::splitOptionsChanged);
  connect(allowDegraded_, &QCheckBox::toggled, this, &RunPanel::splitOptionsChanged);
  return box;
}

QWidget* RunPanel::createFixesBox() {
  auto* box = new QGroupBox(tr("Reference behaviour"), this);
  auto* col = new QVBoxLayout(box);
  preset_ = new QComboBox(box);
  preset_->setObjectName(QStringLiteral("run.fixes"));
  preset_->addItem(tr("faithful (as the reference)"));
  preset_->addItem(tr("corrected (every fix)"));
  preset_->addItem(tr("custom"));
  preset_->setToolTip(
      tr("Faithful reproduces the reference splitter's output byte for byte, quirks included; "
         "the fixes correct its known quirks one by one"));
  col->addWidget(preset_);
  fixesList_ = new QWidget(box);
  auto* list = new QVBoxLayout(fixesList_);
  list->setContentsMargins(8, 0, 0, 0);
  list->setSpacing(2);
  for (const std::string& name : analysis::fixNames()) {
    auto* c = new QCheckBox(qs(name), fixesList_);
    c->setObjectName(QStringLiteral("run.fix.") + qs(name));
    c->setToolTip(qs(analysis::fixDescription(name)));
    c->setProperty("fix", qs(name));  // the text may gain a style's shortcut marks
    list->addWidget(c);
    fixes_.push_back(c);
    connect(c, &QCheckBox::toggled, this, [this] {
      updatePreset();
      emit splitOptionsChanged();
    });
  }
  col->addWidget(fixesList_);
  fixesList_->hide();
  connect(preset_, &QComboBox::activated, this, &RunPanel::applyPreset);
  return box;
}

void RunPanel::applyPreset(int index) {
  fixesList_->setVisible(index == Custom);
  if (index == Custom) return;
  bool changed = false;
  for (QCheckBox* c : fixes_) {
    const QSignalBlocker block(c);
    changed = changed || c->isChecked() != (index == Corrected);
    c->setChecked(index == Corrected);
  }
  if (changed) emit splitOptionsChanged();
}

bool RunPanel::setFix(const QString& name, bool on) {
  const auto it =
      std::find_if(fixes_.begin(), fixes_.end(), [&](QCheckBox* c) { return c->property("fix").toString() == name; });
  if (it == fixes_.end()) return false;
  (*it)->setChecked(on);  // updates the preset and asks for a re-run, as a click does
  fixesList_->setVisible(preset_->currentIndex() == Custom);  // show which fix is on
  return true;
}

void RunPanel::updatePreset() {
  const auto on = std::count_if(fixes_.begin(), fixes_.end(), [](QCheckBox* c) { return c->isChecked(); });
  if (preset_->currentIndex() == Custom) return;  // the list stays open while the user picks
  preset_->setCurrentIndex(on == 0 ? Faithful : on == qsizetype(fixes_.size()) ? Corrected : Custom);
}

QWidget* RunPanel::createGateBox() {
  auto* box = new QGroupBox(tr("Gate"), this);
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  mode_ = new QComboBox(box);
  mode_->setObjectName(QStringLiteral("gateMode"));
  mode_->setToolTip(tr("The mode the pipeline asks for (auto: mixed for LLM splits, generic otherwise)"));
  mode_->addItem(QStringLiteral("auto"));
  for (names::ChunkMode m : names::kChunkModes) mode_->addItem(qs(names::modeName(m)));
  form->addRow(tr("Requested mode"), mode_);
  const gate::GateOptions def;
  threshold_ = new QDoubleSpinBox(box);
  threshold_->setObjectName(QStringLiteral("gateThreshold"));
  threshold_->setToolTip(
      tr("The lowest busy ratio the gate accepts (the pipeline's "
         "INFERENCE_OPTIMIZER_CHUNK_QUALITY_MIN_BUSY_RATIO)"));
  threshold_->setDecimals(3);
  threshold_->setRange(0.0, 1.0);
  threshold_->setSingleStep(0.01);
  threshold_->setValue(def.threshold);
  form->addRow(tr("Threshold"), threshold_);
  margin_ = new QDoubleSpinBox(box);
  margin_->setObjectName(QStringLiteral("run.margin"));
  margin_->setToolTip(tr("How much busier another mode's chunk must be to be offered instead of a low-quality one"));
  margin_->setDecimals(3);
  margin_->setRange(0.0, 1.0);
  margin_->setSingleStep(0.01);
  margin_->setValue(def.margin);
  form->addRow(tr("Margin"), margin_);
  strict_ = new QCheckBox(tr("Strict: refuse on warnings"), box);
  strict_->setObjectName(QStringLiteral("run.strict"));
  strict_->setToolTip(
      tr("Also refuse when a finding bears on the verdict (empty steps, one dominating event, a "
         "startup transient inside the chunk); the pipeline itself never does"));
  form->addRow(strict_);
  connect(mode_, &QComboBox::currentTextChanged, this, &RunPanel::gateOptionsChanged);
  for (QDoubleSpinBox* b : {threshold_, margin_})
    connect(b, &QDoubleSpinBox::valueChanged, this, &RunPanel::gateOptionsChanged);
  connect(strict_, &QCheckBox::toggled, this, &RunPanel::gateOptionsChanged);
  return box;
}

QWidget* RunPanel::createButtons() {
  auto* w = new QWidget(this);
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(6, 4, 6, 6);
  live_ = new QCheckBox(tr("Re-run when a split option changes"), w);
  live_->setObjectName(QStringLiteral("run.live"));
  live_->setChecked(true);
  live_->setToolTip(
      tr("The shown split is re-run with the new options (a review of a directory is kept); "
         "Run split always adds a result"));
  col->addWidget(live_);
  auto* row = new QHBoxLayout;
  run_ = new QPushButton(tr("Run split"), w);
  run_->setObjectName(QStringLiteral("run.run"));
  run_->setToolTip(tr("Split the open trace with these options as a new result (Ctrl+R)"));
  run_->setDefault(true);
  copy_ = new QPushButton(tr("Copy as command"), w);
  copy_->setObjectName(QStringLiteral("run.copy"));
  copy_->setToolTip(tr("Copy the steadyscope-cli split and gate commands that reproduce the shown result"));
  row->addWidget(run_);
  row->addWidget(copy_);
  col->addLayout(row);
  auto* job = new QHBoxLayout;
  progress_ = new QProgressBar(w);
  progress_->setObjectName(QStringLiteral("run.progress"));
  progress_->setTextVisible(false);
  progress_->setMaximumHeight(14);
  cancel_ = new QPushButton(tr("Cancel"), w);
  cancel_->setObjectName(QStringLiteral("run.cancel"));
  job->addWidget(progress_, 1);
  job->addWidget(cancel_);
  progressLabel_ = new QLabel(w);
  progressLabel_->setObjectName(QStringLiteral("run.progressText"));
  progressLabel_->setWordWrap(true);
  col->addWidget(progressLabel_);
  col->addLayout(job);
  connect(run_, &QPushButton::clicked, this, &RunPanel::runRequested);
  connect(copy_, &QPushButton::clicked, this, &RunPanel::copyCommandRequested);
  connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
  return w;
}

void RunPanel::showJob(const JobLane* runner) {
  const bool running = runner && runner->isRunning();
  for (QWidget* x :
       {static_cast<QWidget*>(progress_), static_cast<QWidget*>(cancel_), static_cast<QWidget*>(progressLabel_)})
    x->setVisible(running);
  run_->setEnabled(!running);
  if (!running) return;
  const JobProgress p = runner->progress();
  progressLabel_->setText(p.stage.isEmpty() ? p.title : p.title + QStringLiteral(" · ") + p.stage);
  if (p.complete || p.totalBytes) {
    progress_->setRange(0, 1000);
    progress_->setValue(p.complete ? 1000 : int(1000.0 * double(p.doneBytes) / double(p.totalBytes)));
  } else {
    progress_->setRange(0, 0);  // no measure of the work: a busy bar
  }
}

analysis::WorkloadKind RunPanel::kind() const { return analysis::WorkloadKind(kind_->currentData().toInt()); }

void RunPanel::setKind(analysis::WorkloadKind k) { kind_->setCurrentIndex(kind_->findData(int(k))); }

analysis::SplitOptions RunPanel::splitOptions() const {
  analysis::SplitOptions o = windowSplitOptions(numSteps_->value());
  if (conc_->value() > 0) o.conc.conc = conc_->value();
  if (osl_->value() > osl_->minimum()) o.conc.osl = osl_->value();
  if (r_->value() > r_->minimum()) o.conc.r = r_->value();
  if (maxNumSeq_->value() > 0) o.maxNumSeq = maxNumSeq_->value();
  const QString it = iterations_->text().trimmed();
  o.iterations = it.isEmpty() ? std::string("all") : it.toStdString();
  o.allowDegraded = allowDegraded_->isChecked();
  for (QCheckBox* c : fixes_)
    if (c->isChecked()) analysis::parseFixList(c->property("fix").toString().toStdString(), o.fixes);
  return o;
}

gate::GateOptions RunPanel::gateOptions() const {
  gate::GateOptions g;
  g.threshold = threshold_->value();
  g.margin = margin_->value();
  g.strict = strict_->isChecked();
  return g;
}

QString RunPanel::modeText() const { return mode_->currentText(); }

bool RunPanel::isLive() const { return live_->isChecked(); }

}  // namespace steadyscope::app
