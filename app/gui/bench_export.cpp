// steadyscope --bench-export TRACE [--select MODE]: the window's Export and
// report on a real window (offscreen): loads and splits TRACE, selects the
// mode's chunk (mixed by default), then times Chunk ▸ Export… from the Export
// click to the listed files, and Save report (PDF + PNG at 1920x1080), each a
// few times. A benchmark, not a test: it measures, it does not assert.
#include "export_controller.hpp"
#include "export_dialog.hpp"
#include "gui_main.hpp"
#include "main_window.hpp"
#include "split_controller.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace steadyscope::app {

namespace {
constexpr int kRuns = 5;

QString range(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return QStringLiteral("%1 s (%2–%3)")
      .arg(v[v.size() / 2], 0, 'f', 3)
      .arg(v.front(), 0, 'f', 3)
      .arg(v.back(), 0, 'f', 3);
}

// One export through the dialog, from the click to the written files; -1 on failure.
double timeOneExport(MainWindow& w, const QString& dir) {
  w.findChild<QAction*>(QStringLiteral("action.export"))->trigger();
  auto* d = w.findChild<ExportDialog*>();
  if (!d) return -1;
  d->folderEdit()->setText(dir);
  QEventLoop loop;
  QObject::connect(w.jobs()->lane(JobKind::Export), &JobLane::finished, &loop, &QEventLoop::quit);
  QElapsedTimer t;
  t.start();
  d->exportButton()->click();
  if (w.jobs()->lane(JobKind::Export)->isRunning()) loop.exec();
  const double s = t.nsecsElapsed() / 1e9;
  const bool ok = d->writtenFiles().size() == 4;
  if (!ok) std::fprintf(stderr, "steadyscope: export failed: %s\n", qPrintable(d->messageText()));
  delete d;
  return ok ? s : -1;
}
}  // namespace

int runExportBench(const QString& trace, const QString& mode) {
  QTemporaryDir scratch;
  MainWindow w(std::make_unique<AppSettings>(
      std::make_unique<QSettings>(scratch.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)));
  w.resize(1920, 1080);
  w.show();
  QElapsedTimer t;
  t.start();
  w.openFile(trace);
  if (!w.waitForJobs() || !w.document()) {
    std::fprintf(stderr, "steadyscope: %s\n", qPrintable(w.document().lastError()));
    return 1;
  }
  const double load = t.nsecsElapsed() / 1e9;
  t.restart();
  w.runSplit();
  if (!w.waitForJobs()) return 1;
  const double split = t.nsecsElapsed() / 1e9;
  if (!w.controllers().split->selectMode(mode) || !w.waitForJobs()) {
    std::fprintf(stderr, "steadyscope: the split has no %s chunk\n", qPrintable(mode));
    return 1;
  }
  std::vector<double> exports, reports;
  for (int i = 0; i < kRuns; ++i) {
    const double s = timeOneExport(w, scratch.filePath(QStringLiteral("export-%1").arg(i)));
    if (s < 0) return 1;
    exports.push_back(s);
  }
  for (int i = 0; i < kRuns; ++i) {
    t.restart();
    const QString error = w.controllers().exporting->saveReport(
        scratch.filePath(QStringLiteral("report-%1.pdf").arg(i)), QSize(1920, 1080));
    if (!error.isEmpty()) {
      std::fprintf(stderr, "steadyscope: report: %s\n", qPrintable(error));
      return 1;
    }
    reports.push_back(t.nsecsElapsed() / 1e9);
  }
  std::printf("load %.3f s, split (window: plan, figures, gate) %.3f s\n", load, split);
  std::printf("export of the %s chunk, click to files, median (min–max) of %d: %s\n", qPrintable(mode), kRuns,
              qPrintable(range(exports)));
  std::printf("report (PDF + 1920x1080 PNG), median (min–max) of %d: %s\n", kRuns, qPrintable(range(reports)));
  return 0;
}

}  // namespace steadyscope::app
