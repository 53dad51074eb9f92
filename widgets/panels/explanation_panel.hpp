#pragma once
// Why the gate decided what it did: verdict (icon + word + colour), rules with
// their values and thresholds, findings and the retry decision.
#include "panels/split_view_data.hpp"

#include <QWidget>

class QTextBrowser;

namespace steadyscope::widgets {

class ExplanationPanel : public QWidget {
  Q_OBJECT
public:
  explicit ExplanationPanel(QWidget* parent = nullptr);
  void setExplanation(const GateExplanation& e);
  void clear(const QString& placeholder = {});
  QString text() const;

private:
  QTextBrowser* text_;
};

} // namespace steadyscope::widgets
