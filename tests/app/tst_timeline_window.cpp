// The timeline's part of the window, offscreen: View ▸ Theme remembered across
// windows, find's results dock (count, total) with every match handed to the
// timeline, G following a flow from the menu, and the lane filter box.
#include "app_test_support.hpp"
#include "panels/find_panel.hpp"
#include "theme.hpp"
#include "timeline/timeline_view.hpp"

#include "common/colors.hpp"

#include <steadyscope/core/timeline/format.hpp>

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace steadyscope;
using namespace steadyscope::app;
using namespace steadyscope::app::testsupport;

class TstTimelineWindow : public QObject {
  Q_OBJECT
 private slots:
  void init() { tmp_ = std::make_unique<QTemporaryDir>(); }
  void themeIsRemembered();
  void findListsMatchesWithCountAndTotal();
  void followFlowFromTheMenu();
  void laneFilterBox();

 private:
  std::unique_ptr<QTemporaryDir> tmp_;
};

void TstTimelineWindow::themeIsRemembered() {
  const QString ini = tmp_->filePath(QStringLiteral("s.ini"));
  {
    MainWindow w(tempSettings(ini));
    auto* dark = w.findChild<QAction*>(QStringLiteral("action.theme.dark"));
    QVERIFY(dark);
    dark->trigger();
    QVERIFY(widgets::colors::isDark(QApplication::palette()));
    w.settings()->sync();
  }
  {
    applyTheme(Theme::Light);
    QVERIFY(!widgets::colors::isDark(QApplication::palette()));
    MainWindow w(tempSettings(ini));  // the saved choice comes back with the next window
    QVERIFY(w.findChild<QAction*>(QStringLiteral("action.theme.dark"))->isChecked());
    QVERIFY(widgets::colors::isDark(QApplication::palette()));
    w.findChild<QAction*>(QStringLiteral("action.theme.system"))->trigger();
    QCOMPARE(currentTheme(), Theme::System);
  }
}

void TstTimelineWindow::findListsMatchesWithCountAndTotal() {
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("s.ini"))));
  w.show();
  STEADYSCOPE_OPEN_AND_WAIT(w, QStringLiteral(STEADYSCOPE_SAMPLE_TRACE));
  w.panes().findEdit->setText(QStringLiteral("^cudaLaunchKernel$"));
  w.controllers().find->findNext();
  const Trace& t = *w.document().trace();
  uint64_t want = 0;
  for (const auto& row : w.document().index()->rows)
    for (EventIdx e : row.events) want += t.nameOf(e) == "cudaLaunchKernel";
  QVERIFY(want > 0);
  QCOMPARE(uint64_t(w.controllers().find->matchCount()), want);
  QCOMPARE(w.panes().find->table()->rowCount(), 1);
  const QString count = QString::fromStdString(timeline::formatCount(want));
  QVERIFY2(w.panes().find->summary().contains(count + QStringLiteral("</b> events")),
           qPrintable(w.panes().find->summary()));
  QVERIFY(w.panes().find->summary().contains(QStringLiteral("total")));
  QCOMPARE(t.nameOf(EventIdx(w.selection()->event())), std::string_view("cudaLaunchKernel"));
  // Shift+Enter walks back from the first: the last match.
  w.controllers().find->findPrevious();
  w.controllers().find->findPrevious();
  QCOMPARE(t.nameOf(EventIdx(w.selection()->event())), std::string_view("cudaLaunchKernel"));
  w.panes().findEdit->clear();
  QCOMPARE(w.controllers().find->matchCount(), 0);
  QCOMPARE(w.panes().find->table()->rowCount(), 0);
}

void TstTimelineWindow::followFlowFromTheMenu() {
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("s.ini"))));
  w.show();
  STEADYSCOPE_OPEN_AND_WAIT(w, QStringLiteral(STEADYSCOPE_SAMPLE_TRACE));
  const Trace& t = *w.document().trace();
  EventIdx kernel = 0;
  while (kernel < t.size() && !(isGpuWork(t.classOf(kernel)) && w.document().index()->linkedEvent(t, kernel))) ++kernel;
  QVERIFY(kernel < t.size());
  const EventIdx launch = *w.document().index()->linkedEvent(t, kernel);
  w.selection()->setEvent(kernel);
  auto* follow = w.findChild<QAction*>(QStringLiteral("action.followFlow"));
  QVERIFY(follow);
  follow->trigger();
  QCOMPARE(w.selection()->event(), qint64(launch));
  follow->trigger();
  QCOMPARE(w.selection()->event(), qint64(kernel));
}

void TstTimelineWindow::laneFilterBox() {
  MainWindow w(tempSettings(tmp_->filePath(QStringLiteral("s.ini"))));
  w.show();
  STEADYSCOPE_OPEN_AND_WAIT(w, QStringLiteral(STEADYSCOPE_SAMPLE_TRACE));
  const size_t all = w.panes().timeline->trackLayout().tracks.size();
  w.panes().laneFilter->setText(QStringLiteral("stream"));
  const auto& tracks = w.panes().timeline->trackLayout().tracks;
  QVERIFY(!tracks.empty() && tracks.size() < all);
  for (const auto& tk : tracks) QVERIFY(w.panes().timeline->trackGroups()[tk.group].gpu);
  w.panes().laneFilter->clear();
  QCOMPARE(w.panes().timeline->trackLayout().tracks.size(), all);
}

QTEST_MAIN(TstTimelineWindow)
#include "tst_timeline_window.moc"
