#include "find_controller.hpp"

#include "panels/find_panel.hpp"
#include "timeline/timeline_view.hpp"

#include <algorithm>

namespace steadyscope::app {

FindController::FindController(Document* doc, widgets::TimelineView* timeline, widgets::FindPanel* panel,
                               QObject* parent)
    : QObject(parent), doc_(doc), timeline_(timeline), panel_(panel) {
  connect(doc_, &Document::traceChanged, this, &FindController::clear);
  connect(panel_, &widgets::FindPanel::nameActivated, this, &FindController::showNextMatchOf);
}

void FindController::setPattern(const QString& text) {
  text_ = text;
  clear();
}

void FindController::clear() {
  found_.reset();
  matchPos_ = -1;
  pattern_ = {};
  timeline_->setFindResults(nullptr);
  panel_->setResults(doc_->view(), nullptr, {});
}

void FindController::rebuildMatches() {
  clear();
  if (!*doc_) return;
  pattern_ = QRegularExpression(text_, QRegularExpression::CaseInsensitiveOption);
  if (!pattern_.isValid() || text_.isEmpty()) {
    emit message(tr("Invalid pattern: %1").arg(pattern_.errorString()), 5000);
    return;
  }
  const auto hit = timeline::matchNames(doc_->trace()->strings, [this](std::string_view v) {
    return pattern_.match(QString::fromUtf8(v.data(), qsizetype(v.size()))).hasMatch();
  });
  found_ = std::make_shared<const timeline::FindResults>(timeline::findEvents(*doc_->trace(), *doc_->index(), hit));
  timeline_->setFindResults(found_);
  panel_->setResults(doc_->view(), found_, text_);
  // Enter continues from what is in view, as in a text editor.
  const size_t from = timeline::firstMatchFrom(*doc_->trace(), *found_, timeline_->mapper().beginNs());
  matchPos_ = int(from) - 1;
}

void FindController::showMatch() {
  if (!found_ || found_->empty()) {
    emit message(tr("No event name matches “%1”").arg(text_), 5000);
    return;
  }
  timeline_->revealEvent(found_->events[size_t(matchPos_)]);
  panel_->setCurrent(matchPos_);
  emit message(tr("Match %1 of %2").arg(matchPos_ + 1).arg(found_->events.size()), 5000);
}

void FindController::findNext() {
  if (!found_) rebuildMatches();
  if (!found_ || found_->empty()) return showMatch();
  matchPos_ = (matchPos_ + 1) % int(found_->events.size());
  showMatch();
}

void FindController::findPrevious() {
  if (!found_) rebuildMatches();
  if (!found_ || found_->empty()) return showMatch();
  matchPos_ = matchPos_ <= 0 ? int(found_->events.size()) - 1 : matchPos_ - 1;
  showMatch();
}

void FindController::showNextMatchOf(quint32 name) {
  if (!found_ || found_->empty() || !*doc_) return;
  const size_t n = found_->events.size();
  for (size_t k = 1; k <= n; ++k) {  // the next match of that name after the current one, wrapping
    const size_t i = (size_t(std::max(matchPos_, 0)) + k) % n;
    if (doc_->trace()->name[found_->events[i]] == name) {
      matchPos_ = int(i);
      return showMatch();
    }
  }
}

}  // namespace steadyscope::app
