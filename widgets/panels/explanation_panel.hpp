#pragma once
// Why the gate decided what it did, in plain words first: the verdict (icon,
// colour and its sentence), the deciding rule, the qualifying alternates, the
// retry, the findings, each rule in order; then, behind "Details", the codes
// and the pipeline's warnings JSON (copyable).
#include "panels/split_view_data.hpp"

#include <QWidget>

class QTextBrowser;
class QPushButton;

namespace steadyscope::widgets {

class ExplanationPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ExplanationPanel(QWidget* parent = nullptr);
  void setExplanation(const GateExplanation& e);
  void clear(const QString& placeholder = {});
  QString text() const;
  /// The warnings JSON of the explanation shown ("" when none).
  QString warningsJson() const { return warnings_; }
  /// Copies the warnings JSON to the clipboard.
  void copyWarnings();
  QPushButton* copyButton() const { return copy_; }
  QTextBrowser* browser() const { return text_; }
  /// Follows a link of the pane ("steps:3,4" selects steps, "fold:" shows or hides the rules that found and
  /// read the chunk, "details:" the codes and the JSON).
  void openLink(const QUrl& url);
  bool bookkeepingShown() const { return showBookkeeping_; }
  bool detailsShown() const { return showDetails_; }

 signals:
  /// A finding's link was clicked: select these steps (global step indices) on the timeline and ruler.
  void stepsActivated(const QVector<int>& steps);

 private:
  void render();
  QString headerHtml() const;
  QString rulesHtml() const;
  QString findingsHtml() const;
  QString detailsHtml() const;
  QTextBrowser* text_;
  QPushButton* copy_;
  QString warnings_;
  GateExplanation shown_;
  bool hasShown_ = false;
  bool showBookkeeping_ = false;
  bool showDetails_ = false;
};

}  // namespace steadyscope::widgets
