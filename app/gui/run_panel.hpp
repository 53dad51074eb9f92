#pragma once
// The Run dock: every option of a split (workload kind, window length,
// CONC/OSL/R, batch limit, iteration range, degraded detections, the
// reference's quirks or their fixes) and of the gate (requested mode,
// threshold, margin, strict), the Run and "Copy as command" buttons, and the
// running split's progress with Cancel. It only holds the options; the window
// runs the split (the kind's "auto" is decided in core, on the trace).
#include "job_lane.hpp"

#include <steadyscope/gate.hpp>
#include <steadyscope/split.hpp>

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace steadyscope::app {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);

  analysis::WorkloadKind kind() const;
  void setKind(analysis::WorkloadKind k);
  /// The split's options; llmInference is left to the kind (llmInferenceFor).
  analysis::SplitOptions splitOptions() const;
  /// The gate's options; the mode is left to modeText() ("auto" needs the split).
  gate::GateOptions gateOptions() const;
  QString modeText() const;
  /// Turns one reference fix on or off by its name (analysis::fixNames); false if there is none by that name.
  bool setFix(const QString& name, bool on);
  /// Re-run the split when one of its options changes.
  bool isLive() const;

  QComboBox* modeBox() const { return mode_; }
  QDoubleSpinBox* thresholdBox() const { return threshold_; }
  QSpinBox* numStepsBox() const { return numSteps_; }
  QPushButton* runButton() const { return run_; }

  /// Shows the split runner's progress (and Cancel) while it runs.
  void showJob(const JobLane* runner);

 signals:
  void splitOptionsChanged();
  void gateOptionsChanged();
  void runRequested();
  void copyCommandRequested();
  void cancelRequested();

 private:
  QWidget* createSplitBox();
  QWidget* createFixesBox();
  QWidget* createGateBox();
  QWidget* createButtons();
  void applyPreset(int index);
  void updatePreset();

  QComboBox* kind_ = nullptr;
  QSpinBox* numSteps_ = nullptr;
  QSpinBox* conc_ = nullptr;
  QDoubleSpinBox* osl_ = nullptr;
  QDoubleSpinBox* r_ = nullptr;
  QSpinBox* maxNumSeq_ = nullptr;
  QLineEdit* iterations_ = nullptr;
  QCheckBox* allowDegraded_ = nullptr;
  QComboBox* preset_ = nullptr;
  QWidget* fixesList_ = nullptr;
  std::vector<QCheckBox*> fixes_;
  QComboBox* mode_ = nullptr;
  QDoubleSpinBox* threshold_ = nullptr;
  QDoubleSpinBox* margin_ = nullptr;
  QCheckBox* strict_ = nullptr;
  QCheckBox* live_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* copy_ = nullptr;
  QLabel* progressLabel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
};

}  // namespace steadyscope::app
