#pragma once
// Find events by name (a case-insensitive regular expression): every match
// highlighted on the timeline and listed in the Find results pane, Enter /
// F3 stepping through them from what is in view. Each distinct name is
// matched once; the events and marks come from core (timeline/find).
#include "document.hpp"

#include <steadyscope/timeline.hpp>

#include <QObject>
#include <QRegularExpression>

#include <memory>

namespace steadyscope::widgets {
class FindPanel;
class TimelineView;
}  // namespace steadyscope::widgets

namespace steadyscope::app {

class FindController : public QObject {
  Q_OBJECT
 public:
  FindController(Document* doc, widgets::TimelineView* timeline, widgets::FindPanel* panel, QObject* parent = nullptr);

  int matchCount() const { return found_ ? int(found_->events.size()) : 0; }
  int current() const { return matchPos_; }

 public slots:
  /// The pattern typed so far; the matches are found at the next step.
  void setPattern(const QString& text);
  void findNext();
  void findPrevious();
  /// The next match of the name `name` (a Find results row).
  void showNextMatchOf(quint32 name);
  void clear();

 signals:
  void message(const QString& text, int ms);

 private:
  void rebuildMatches();
  void showMatch();

  Document* doc_;
  widgets::TimelineView* timeline_;
  widgets::FindPanel* panel_;
  QString text_;
  QRegularExpression pattern_;
  std::shared_ptr<const timeline::FindResults> found_;
  int matchPos_ = -1;
};

}  // namespace steadyscope::app
