// The timeline's part of the window: View ▸ Theme (remembered), the flow and
// lane actions, the lane filter, find with every match highlighted and the
// Find results dock, and the range statistics given room when a range is chosen.
#include "main_window.hpp"
#include "panels/details_panel.hpp"
#include "panels/find_panel.hpp"
#include "theme.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/timeline/format.hpp>

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>

namespace steadyscope::app {

namespace {
constexpr const char* kThemeKey = "view/theme";
}

void MainWindow::createTimelineActions(QMenu* view) {
  QAction* follow = view->addAction(tr("&Go to the other end of the flow"));
  follow->setShortcut(QKeySequence(Qt::Key_G));
  follow->setObjectName(QStringLiteral("action.followFlow"));
  connect(follow, &QAction::triggered, this, [this] {
    if (!timeline_->followFlow()) flash(tr("The selected event has no flow (no launch, kernel or other link)."));
  });
  addAction(follow);
  QAction* filter = view->addAction(tr("Filter &lanes…"));
  filter->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  connect(filter, &QAction::triggered, this, [this] {
    laneFilter_->setFocus(Qt::ShortcutFocusReason);
    laneFilter_->selectAll();
  });
  addAction(filter);
  // Light / dark / the desktop's, remembered across runs.
  QMenu* theme = view->addMenu(tr("&Theme"));
  auto* group = new QActionGroup(theme);
  const Theme saved = themeFromName(settings_->raw().value(QLatin1String(kThemeKey)).toString());
  for (auto [t, text] : {std::pair{Theme::System, tr("Follow the &desktop")}, std::pair{Theme::Light, tr("&Light")},
                         std::pair{Theme::Dark, tr("&Dark")}}) {
    QAction* a = theme->addAction(text);
    a->setCheckable(true);
    a->setObjectName(QStringLiteral("action.theme.") + themeName(t));
    a->setChecked(t == saved);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, t = t] {
      settings_->raw().setValue(QLatin1String(kThemeKey), themeName(t));
      applyTheme(t);
    });
  }
  if (saved != Theme::System) applyTheme(saved);  // --dark, given first, wins for the run
}

void MainWindow::createTimelineDocks() {
  findPanel_ = new widgets::FindPanel(this);
  auto* d = new QDockWidget(tr("Find results"), this);
  d->setObjectName(QStringLiteral("dock.find"));
  d->setWidget(findPanel_);
  addDockWidget(Qt::BottomDockWidgetArea, d);
  if (auto* charts = findChild<QDockWidget*>(QStringLiteral("dock.charts"))) tabifyDockWidget(charts, d);
  if (auto* chunks = findChild<QDockWidget*>(QStringLiteral("dock.chunks"))) chunks->raise();
  docks_ << d;
  connect(findPanel_, &widgets::FindPanel::nameActivated, this, &MainWindow::showNextMatchOf);
  // A chosen range: the range statistics get the room (the explanation stays one drag away).
  connect(selection_, &widgets::SelectionModel::rangeChanged, this, [this](qint64 b, qint64 e) {
    auto* ex = findChild<QDockWidget*>(QStringLiteral("dock.explanation"));
    auto* det = findChild<QDockWidget*>(QStringLiteral("dock.details"));
    if (e > b && ex && det && !det->isFloating()) resizeDocks({ex, det}, {160, 800}, Qt::Vertical);
  });
  laneFilter_ = new QLineEdit(this);
  laneFilter_->setObjectName(QStringLiteral("laneFilter"));
  laneFilter_->setPlaceholderText(tr("filter lanes…  Ctrl+L"));
  laneFilter_->setClearButtonEnabled(true);
  laneFilter_->setMaximumWidth(200);
  connect(laneFilter_, &QLineEdit::textChanged, timeline_, &widgets::TimelineView::setLaneFilter);
}

// ------------------------------------------------------------ find

void MainWindow::clearFind() {
  found_.reset();
  matchPos_ = -1;
  findPattern_ = {};
  if (timeline_) timeline_->setFindResults(nullptr);
  if (findPanel_) findPanel_->setResults(doc_, nullptr, {});
}

void MainWindow::rebuildMatches() {
  clearFind();
  if (!doc_) return;
  findPattern_ = QRegularExpression(findEdit_->text(), QRegularExpression::CaseInsensitiveOption);
  if (!findPattern_.isValid() || findEdit_->text().isEmpty()) {
    flash(tr("Invalid pattern: %1").arg(findPattern_.errorString()), 5000);
    return;
  }
  // Each distinct name is matched once; the events and marks come from the core.
  const auto hit = timeline::matchNames(doc_.trace->strings, [this](std::string_view v) {
    return findPattern_.match(QString::fromUtf8(v.data(), qsizetype(v.size()))).hasMatch();
  });
  found_ = std::make_shared<const timeline::FindResults>(timeline::findEvents(*doc_.trace, *doc_.index, hit));
  timeline_->setFindResults(found_);
  findPanel_->setResults(doc_, found_, findEdit_->text());
  // Enter continues from what is in view, as in a text editor.
  const size_t from = timeline::firstMatchFrom(*doc_.trace, *found_, timeline_->mapper().beginNs());
  matchPos_ = int(from) - 1;
}

void MainWindow::showMatch() {
  if (!found_ || found_->empty()) {
    flash(tr("No event name matches “%1”").arg(findEdit_->text()), 5000);
    return;
  }
  timeline_->revealEvent(found_->events[size_t(matchPos_)]);
  findPanel_->setCurrent(matchPos_);
  flash(tr("Match %1 of %2").arg(matchPos_ + 1).arg(found_->events.size()), 5000);
}

void MainWindow::findNext() {
  if (!found_) rebuildMatches();
  if (!found_ || found_->empty()) return showMatch();
  matchPos_ = (matchPos_ + 1) % int(found_->events.size());
  showMatch();
}

void MainWindow::findPrevious() {
  if (!found_) rebuildMatches();
  if (!found_ || found_->empty()) return showMatch();
  matchPos_ = matchPos_ <= 0 ? int(found_->events.size()) - 1 : matchPos_ - 1;
  showMatch();
}

void MainWindow::showNextMatchOf(quint32 name) {
  if (!found_ || found_->empty() || !doc_) return;
  const size_t n = found_->events.size();
  for (size_t k = 1; k <= n; ++k) {  // the next match of that name after the current one, wrapping
    const size_t i = (size_t(std::max(matchPos_, 0)) + k) % n;
    if (doc_.trace->name[found_->events[i]] == name) {
      matchPos_ = int(i);
      return showMatch();
    }
  }
}

}  // namespace steadyscope::app
