#pragma once
// The gate's review of the chunks shown, whichever made them (a live split or
// a split directory): verdicts for every row and the selected chunk's
// explanation, re-run on the Review lane whenever the selection or the gate's
// options change. Also opening a split directory for review, and placing its
// chunks on its source trace once that is open (a re-plan on the Split lane),
// so that its rows get their place on the timeline and the trace's evidence.
#include "controller.hpp"
#include "split_directory.hpp"

namespace steadyscope::widgets {
class SelectionModel;
}

namespace steadyscope::app {

class RunPanel;

class ReviewController : public Controller {
  Q_OBJECT
 public:
  ReviewController(Document* doc, JobSystem* jobs, RunPanel* run, widgets::SelectionModel* selection,
                   QObject* parent = nullptr);

  /// The gate's input for the rows shown (a live split's); reviews them.
  void setGateSource(std::shared_ptr<const GateSource> source);

 public slots:
  void openSplitDirectory(const QString& dir, const QString& sourceTrace = {});
  /// Re-runs the gate on the rows shown with the Run panel's options.
  void regate();
  /// Marks and selects steps (the ruler's numbers) and shows them: a finding's link.
  void showSteps(const QVector<int>& steps);

 signals:
  /// A split directory names its source trace: open it.
  void sourceTraceRequested(const QString& path);

 private:
  void onReviewed(const GateReview& r, quint64 rowsGeneration);
  void selectRequestedOnce();
  void locateDirectory();
  void onPlaced(const DirectoryPlacement& placement);
  void zoomToRow(int row);

  RunPanel* run_;
  widgets::SelectionModel* selection_;
  bool selectRequested_ = false;  // new rows: select the requested mode's once its verdicts are in
  TracePtr locatedFor_;           // the source trace the directory's rows were placed on
};

}  // namespace steadyscope::app
