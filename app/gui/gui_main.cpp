#include "gui_main.hpp"

#include "about_dialog.hpp"
#include "main_window.hpp"
#include "panels/chunks_panel.hpp"
#include "report.hpp"
#include "theme.hpp"

#include <steadyscope/core/analysis/workload_kind.hpp>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLineEdit>
#include <QPalette>
#include <QPixmap>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace steadyscope::app {

// The two headless outputs, from a window that is loaded, split and selected.
int saveScreenshot(MainWindow& w, const GuiOptions& o, qint64 splitMs);
int saveReport(MainWindow& w, const GuiOptions& o);
bool compareForScreenshot(MainWindow& w, const GuiOptions& o);

namespace {
const char* kUsage =
    "Usage: steadyscope [TRACE [--partial] | SPLIT_DIR [--source TRACE]]\n"
    "       steadyscope [TRACE] [--split [--kind auto|llm|generic]] [--select MODE] --screenshot OUT.png\n"
    "                   [--size WxH] [--dark] [--find REGEX] [--range-ms A:B]\n"
    "       steadyscope TRACE --split --select MODE --report OUT.pdf [--size WxH]\n"
    "       steadyscope --bench-timeline TRACE | --bench-charts TRACE\n"
    "       steadyscope --bench-export TRACE [--select MODE]\n"
    "\n"
    "Opens a PyTorch-profiler / Kineto trace (.json, .json.gz, .zip, .json.zst) or a split\n"
    "directory for review. --screenshot renders the window offscreen into a PNG and exits\n"
    "(no display needed). --report writes the selected chunk's one-page report, OUT.pdf, and\n"
    "OUT.png, the timeline view, the same way. For scripts without a GUI use steadyscope-cli.\n"
    "\n"
    "Options:\n"
    "  --source TRACE     the source trace of a split directory (adds the evidence)\n"
    "  --partial          a trace that ends early: open the complete events before the cut\n"
    "  --split            split the trace before the screenshot\n"
    "  --kind K           the workload the split assumes: auto (LLM inference when the trace has\n"
    "                     serving step annotations, else generic; the default), llm or generic\n"
    "  --select MODE      select the chunk of a mode (mixed, decode_only, ...)\n"
    "  --compare OTHER    compare with another trace or split directory: with --select,\n"
    "                     the A/B of MODE's chunk in TRACE against MODE's chunk in OTHER\n"
    "  --raise DOCK       bring a tab to the front: chunks, anomalies, charts or ab\n"
    "  --screenshot PNG   render the window offscreen into PNG and exit\n"
    "  --report PDF       write the selected chunk's report: PDF (one page: trace, sha256,\n"
    "                     parameters, chunks, verdict, per-step chart) and beside it the\n"
    "                     timeline as a PNG of --size; then exit\n"
    "  --size WxH         the screenshot's or the report PNG's size (default 1920x1080)\n"
    "  --dark             a dark palette\n"
    "  --find REGEX       select the first event whose name matches (as Ctrl+F)\n"
    "  --range-ms A:B     select a time range, in ms from the trace start\n"
    "  --bench-timeline TRACE  measure the timeline's frame times (offscreen; with --find, matches highlighted)\n"
    "  --bench-charts TRACE    measure showing the Charts tab after a split (offscreen)\n"
    "  --bench-export TRACE    measure Chunk > Export and Save report on a split of TRACE (offscreen)\n"
    "  -h, --help         show this help\n"
    "  -v, --version      print the version and the git revision\n"
    "\n"
    "Examples:\n"
    "  steadyscope run.pt.trace.json.gz\n"
    "  steadyscope chunks/ --source run.pt.trace.json.gz\n"
    "  steadyscope run.json --split --select decode_only --screenshot split.png\n"
    "  steadyscope run.json --split --select mixed --report mixed.pdf      # and mixed.png\n"
    "  steadyscope train.json --split --kind generic --screenshot train.png\n";

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}
void applyDarkPalette() { applyTheme(Theme::Dark, /*fromCommandLine=*/true); }
}  // namespace

bool hasDisplay() { return envSet("DISPLAY") || envSet("WAYLAND_DISPLAY") || envSet("QT_QPA_PLATFORM"); }

GuiOptions parseGuiOptions(int argc, char** argv) {
  GuiOptions o;
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    auto value = [&](QString& out) {
      if (i + 1 >= argc) {
        o.error = QStringLiteral("%1 needs a value").arg(a);
        return;
      }
      out = QString::fromLocal8Bit(argv[++i]);
    };
    if (a == QLatin1String("-h") || a == QLatin1String("--help"))
      o.help = true;
    else if (a == QLatin1String("-v") || a == QLatin1String("--version"))
      o.version = true;
    else if (a == QLatin1String("--split"))
      o.split = true;
    else if (a == QLatin1String("--dark"))
      o.dark = true;
    else if (a == QLatin1String("--partial"))
      o.partial = true;
    else if (a == QLatin1String("--kind")) {
      value(o.kind);
      if (o.error.isEmpty() && !analysis::parseWorkloadKind(o.kind.toStdString()))
        o.error = QStringLiteral("--kind wants auto, llm or generic (got \"%1\")").arg(o.kind);
    } else if (a == QLatin1String("--find"))
      value(o.find);
    else if (a == QLatin1String("--compare"))
      value(o.compare);
    else if (a == QLatin1String("--raise"))
      value(o.raise);
    else if (a == QLatin1String("--range-ms")) {
      QString s;
      value(s);
      const QStringList ab = s.split(QLatin1Char(':'));
      bool ok1 = false, ok2 = false;
      if (ab.size() == 2) {
        o.rangeFromMs = ab[0].toDouble(&ok1);
        o.rangeToMs = ab[1].toDouble(&ok2);
      }
      if (!ok1 || !ok2 || o.rangeToMs <= o.rangeFromMs)
        o.error = QStringLiteral("--range-ms wants A:B in ms from the trace start, A < B (got \"%1\")").arg(s);
    } else if (a == QLatin1String("--select"))
      value(o.selectMode);
    else if (a == QLatin1String("--source"))
      value(o.source);
    else if (a == QLatin1String("--screenshot"))
      value(o.screenshot);
    else if (a == QLatin1String("--report"))
      value(o.report);
    else if (a == QLatin1String("--bench-timeline"))
      value(o.benchTrace);
    else if (a == QLatin1String("--bench-charts"))
      value(o.benchCharts);
    else if (a == QLatin1String("--bench-export"))
      value(o.benchExport);
    else if (a == QLatin1String("--size")) {
      QString s;
      value(s);
      const QStringList wh = s.split(QLatin1Char('x'));
      bool ok1 = false, ok2 = false;
      if (wh.size() == 2) o.size = QSize(wh[0].toInt(&ok1), wh[1].toInt(&ok2));
      if (!ok1 || !ok2 || o.size.width() < 200 || o.size.height() < 150 || o.size.width() > 8000 ||
          o.size.height() > 8000)
        o.error = QStringLiteral("--size wants WxH, e.g. 1920x1080 (got \"%1\")").arg(s);
    } else if (a.startsWith(QLatin1String("-")) && a.size() > 1 && !a.startsWith(QLatin1String("-platform")) &&
               !a.startsWith(QLatin1String("-style")) && !a.startsWith(QLatin1String("--style"))) {
      o.error = QStringLiteral("unknown option %1").arg(a);
    } else if (a.startsWith(QLatin1String("-platform")) || a.startsWith(QLatin1String("-style")) ||
               a.startsWith(QLatin1String("--style"))) {
      ++i;  // Qt's own options, handled by QApplication
    } else if (o.input.isEmpty()) {
      o.input = a;
    } else {
      o.error = QStringLiteral("more than one file given (%1)").arg(a);
    }
    if (!o.error.isEmpty()) break;
  }
  return o;
}

int runSteadyscope(int argc, char** argv) {
  const GuiOptions o = parseGuiOptions(argc, argv);
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (o.version) {
    std::printf("steadyscope %s\n", qPrintable(AboutDialog::versionText()));
    return 0;
  }
  if (!o.error.isEmpty()) {
    std::fprintf(stderr, "steadyscope: %s (see steadyscope --help)\n", qPrintable(o.error));
    return 2;
  }
  const bool headless = !o.screenshot.isEmpty() || !o.report.isEmpty() || !o.benchTrace.isEmpty() ||
                        !o.benchExport.isEmpty() || !o.benchCharts.isEmpty();
  // Headless work renders offscreen unless a display is there (then the real
  // window is captured, e.g. under xvfb-run).
  if (headless && !hasDisplay()) qputenv("QT_QPA_PLATFORM", "offscreen");
  if (!headless && !hasDisplay()) {
    std::fputs(
        "steadyscope: no display ($DISPLAY / $WAYLAND_DISPLAY unset); run `xvfb-run -a steadyscope ...`, "
        "render offscreen with `steadyscope TRACE --screenshot OUT.png`, or use `steadyscope-cli`\n",
        stderr);
    return 3;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("steadyscope"));
  QApplication::setOrganizationName(QStringLiteral("Steadyscope"));
  QApplication::setApplicationVersion(QStringLiteral(STEADYSCOPE_VERSION_STRING));
  // Lets Wayland compositors find the .desktop file (icon, name) for the window.
  QGuiApplication::setDesktopFileName(QStringLiteral(STEADYSCOPE_APP_ID));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/steadyscope.svg")));
  if (o.dark) applyDarkPalette();
  if (!o.benchTrace.isEmpty()) return runTimelineBench(o.benchTrace, o.find);
  if (!o.benchCharts.isEmpty()) return runChartsBench(o.benchCharts);
  if (!o.benchExport.isEmpty())
    return runExportBench(o.benchExport, o.selectMode.isEmpty() ? QStringLiteral("mixed") : o.selectMode);
  if (!o.screenshot.isEmpty() || !o.report.isEmpty()) return takeScreenshot(o);

  MainWindow w;
  w.show();
  if (!o.input.isEmpty()) {
    if (QFileInfo(o.input).isDir())
      w.openSplitDirectory(o.input, o.source);
    else if (o.partial)
      w.openPartially(o.input);
    else
      w.openFile(o.input);
  }
  return app.exec();
}

int takeScreenshot(const GuiOptions& o) {
  // Screenshots must not depend on (or change) the user's saved layout: a
  // scratch settings file (not /dev/null, which QSettings' atomic save would
  // replace with a regular file when run as root).
  QTemporaryDir scratch;
  MainWindow w(std::make_unique<AppSettings>(
      std::make_unique<QSettings>(scratch.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat)));
  w.resize(o.size);
  w.show();
  QCoreApplication::processEvents();
  if (o.input.isEmpty()) {
    // The welcome screen.
  } else if (QFileInfo(o.input).isDir()) {
    w.openSplitDirectory(o.input, o.source);
  } else if (o.partial) {
    w.openPartially(o.input);
  } else {
    w.openFile(o.input);
  }
  QElapsedTimer opening;
  opening.start();
  if (!w.waitForJobs()) {
    std::fprintf(stderr, "steadyscope: timed out loading %s\n", qPrintable(o.input));
    return 1;
  }
  // With --compare, what opening side A cost, to set beside what side B costs.
  if (!o.compare.isEmpty()) std::printf("open: %lld ms (load and timeline index)\n", opening.elapsed());
  if (!o.input.isEmpty() && !w.document() && !QFileInfo(o.input).isDir()) {
    std::fprintf(stderr, "steadyscope: %s\n",
                 qPrintable(w.lastError().isEmpty() ? QStringLiteral("nothing loaded") : w.lastError()));
    return 1;
  }
  // --select alone on a split directory selects among its chunk files; on a
  // trace (or with --split) the split runs first.
  const bool haveRows = !w.chunksPanel()->model()->chunks().isEmpty();
  qint64 splitMs = -1;
  if (!o.kind.isEmpty()) w.runPanel()->setKind(*analysis::parseWorkloadKind(o.kind.toStdString()));
  if (w.document() && (o.split || !o.kind.isEmpty() || (!o.selectMode.isEmpty() && !haveRows))) {
    QElapsedTimer clock;
    clock.start();
    w.runSplit();
    if (!w.waitForJobs()) {
      std::fprintf(stderr, "steadyscope: timed out splitting %s\n", qPrintable(o.input));
      return 1;
    }
    splitMs = clock.elapsed();
  }
  if (!o.selectMode.isEmpty() && (w.document() || haveRows)) {
    if (!w.selectMode(o.selectMode))
      std::fprintf(stderr, "steadyscope: --select %s: the split has no window for that mode\n",
                   qPrintable(o.selectMode));
  }
  if (w.document() && o.rangeToMs > o.rangeFromMs) {
    const qint64 t0 = w.document().index->firstNs;
    w.selection()->setRange(t0 + qint64(o.rangeFromMs * 1e6), t0 + qint64(o.rangeToMs * 1e6));
  }
  if (w.document() && !o.find.isEmpty()) {
    w.findEdit()->setText(o.find);
    w.findNext();
  }
  if (!o.compare.isEmpty() && !compareForScreenshot(w, o)) return 1;
  if (!o.raise.isEmpty() && !w.raiseDock(o.raise)) {
    std::fprintf(stderr, "steadyscope: --raise %s: no such tab (chunks, anomalies, charts, ab)\n", qPrintable(o.raise));
    return 1;
  }
  w.resize(o.size);
  for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
  return o.report.isEmpty() ? saveScreenshot(w, o, splitMs) : saveReport(w, o);
}

bool compareForScreenshot(MainWindow& w, const GuiOptions& o) {
  QElapsedTimer clock;
  clock.start();
  w.compareWith(o.compare);
  const bool done = w.waitForJobs();
  std::printf("compare: %lld ms (load, timeline index and split of %s)\n", clock.elapsed(),
              qPrintable(QFileInfo(o.compare).fileName()));
  if (!done || !w.compared()) {
    std::fprintf(stderr, "steadyscope: --compare %s: %s\n", qPrintable(o.compare),
                 qPrintable(w.lastError().isEmpty() ? QStringLiteral("not loaded") : w.lastError()));
    return false;
  }
  if (o.selectMode.isEmpty()) return true;
  if (!w.compareModes(o.selectMode)) {
    std::fprintf(stderr, "steadyscope: --compare: no %s chunk on both sides\n", qPrintable(o.selectMode));
    return false;
  }
  return true;
}

int saveReport(MainWindow& w, const GuiOptions& o) {
  if (!w.waitForJobs()) {  // the selected chunk's gate
    std::fprintf(stderr, "steadyscope: timed out gating %s\n", qPrintable(o.input));
    return 1;
  }
  const QString error = w.saveReport(o.report, o.size);
  if (!error.isEmpty()) {
    std::fprintf(stderr, "steadyscope: --report %s: %s\n", qPrintable(o.report), qPrintable(error));
    return 1;
  }
  std::printf("report: %s and %s (%dx%d)\nstatus: %s\n", qPrintable(o.report), qPrintable(pngPathFor(o.report)),
              o.size.width(), o.size.height(), qPrintable(w.statusText()));
  return 0;
}

int saveScreenshot(MainWindow& w, const GuiOptions& o, qint64 splitMs) {
  const QPixmap pm = w.grab();
  QImage img = pm.toImage();
  if (img.size() != o.size) img = img.scaled(o.size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
  if (!img.save(o.screenshot, "PNG")) {
    std::fprintf(stderr, "steadyscope: cannot write %s\n", qPrintable(o.screenshot));
    return 1;
  }
  std::printf("screenshot: %s (%dx%d)\ntitle: %s\nstatus: %s\n", qPrintable(o.screenshot), img.width(), img.height(),
              qPrintable(w.windowTitle()), qPrintable(w.statusText()));
  if (w.currentResult() >= 0) std::printf("result: %s\n", qPrintable(w.resultBox()->currentText()));
  if (splitMs >= 0) std::printf("split: %lld ms from Run split to the gate's verdicts\n", splitMs);
  return 0;
}

}  // namespace steadyscope::app
