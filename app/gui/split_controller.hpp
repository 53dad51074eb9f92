#pragma once
// Splitting the open trace with the Run panel's options: Run split adds a
// result (the Split lane plans it, nothing is written), a changed option
// re-runs the shown split once the user pauses, the result box switches
// between results, and "Copy as command" gives the CLI line that reproduces
// the shown one. The split's gate input goes to the review.
#include "controller.hpp"

class QTimer;

namespace steadyscope::widgets {
class SelectionModel;
}

namespace steadyscope::app {

class ReviewController;
class RunPanel;

class SplitController : public Controller {
  Q_OBJECT
 public:
  SplitController(Document* doc, JobSystem* jobs, RunPanel* run, ReviewController* review,
                  widgets::SelectionModel* selection, QObject* parent = nullptr);

  /// The `steadyscope-cli split … && steadyscope-cli gate …` line that
  /// reproduces the shown result with the Run panel's gate options, the
  /// chunks written to `outDir` (empty: "<trace name>_split" in the current
  /// directory). Empty when nothing is split yet.
  QString commandLine(const QString& outDir = {}) const;
  /// Selects the chunk of a mode ("mixed", "decode_only", "prefilldecode",
  /// "generic") and zooms to it; false if there is none.
  bool selectMode(const QString& mode);

 public slots:
  void runSplit();  // a new result with the Run panel's options
  void copyCommand();
  void showResult(int index);
  /// A link where the chunks would be: "fix:NAME" turns that fix on and splits again.
  void followPlaceholderLink(const QString& link);

 signals:
  void commandCopied(const QString& line);

 private:
  void rerunLive();
  void startSplit(bool replaceShown);
  void onSplit(const SplitView& v, const TracePtr& trace, const analysis::SplitOptions& options, bool replaceShown);

  RunPanel* run_;
  ReviewController* review_;
  widgets::SelectionModel* selection_;
  QTimer* rerunTimer_;  // a split option changed: re-run the shown split once the user pauses
};

}  // namespace steadyscope::app
