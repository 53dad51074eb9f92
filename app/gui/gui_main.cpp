#include "gui_main.hpp"

#include "about_dialog.hpp"
#include "compare_controller.hpp"
#include "export_controller.hpp"
#include "find_controller.hpp"
#include "main_window.hpp"
#include "open_controller.hpp"
#include "panels/ab_panel.hpp"
#include "panels/by_op_model.hpp"
#include "panels/chunks_panel.hpp"
#include "report.hpp"
#include "review_controller.hpp"
#include "run_panel.hpp"
#include "split_controller.hpp"
#include "theme.hpp"

#include <steadyscope/split.hpp>

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLineEdit>
#include <QPalette>
#include <QPixmap>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace steadyscope::app {

// The two headless outputs, from a window that is loaded, split and selected.
int saveScreenshot(MainWindow& w, const GuiOptions& o, qint64 splitMs);
int saveReport(MainWindow& w, const GuiOptions& o);
int saveJobScreenshot(MainWindow& w, const GuiOptions& o, qint64 openMs);
void openInputs(MainWindow& w, const GuiOptions& o);
bool compareForScreenshot(MainWindow& w, const GuiOptions& o);

namespace {
const char* kDescription =
    "  steadyscope [TRACE [--partial] | SPLIT_DIR [--source TRACE]]\n"
    "  steadyscope RANK0 RANK1 … | JOB_DIR [--screenshot OUT.png [--size WxH]]\n"
    "  steadyscope [TRACE] [--split [--kind K]] [--select MODE] --screenshot OUT.png [--size WxH]\n"
    "              [--dark] [--find REGEX] [--range-ms A:B] [--compare OTHER [--op OP]] [--raise DOCK]\n"
    "  steadyscope TRACE --split --select MODE --report OUT.pdf [--size WxH]\n"
    "  steadyscope --bench-timeline TRACE | --bench-charts TRACE | --bench-export TRACE [--select MODE]\n"
    "\n"
    "Opens a PyTorch-profiler / Kineto trace (.json, .json.gz, .zip, .json.zst) or a split\n"
    "directory for review. Several traces, a folder of rank traces or a many-rank split\n"
    "directory (with summary.tsv) open in the Job view, every rank side by side. --screenshot\n"
    "renders the window offscreen into a PNG and exits\n"
    "(no display needed). --report writes the selected chunk's one-page report, OUT.pdf, and\n"
    "OUT.png, the timeline view, the same way. For scripts without a GUI use steadyscope-cli.";

const char* kExamples =
    "Examples:\n"
    "  steadyscope run.pt.trace.json.gz\n"
    "  steadyscope chunks/ --source run.pt.trace.json.gz\n"
    "  steadyscope rank*.json --screenshot job.png                          # the Job view\n"
    "  steadyscope run.json --split --select decode_only --screenshot split.png\n"
    "  steadyscope run.json --split --select mixed --report mixed.pdf      # and mixed.png\n"
    "  steadyscope train.json --split --kind generic --screenshot train.png\n";

QCommandLineOption option(std::initializer_list<const char*> names, const char* description,
                          const char* valueName = nullptr) {
  QStringList n;
  for (const char* x : names) n << QString::fromLatin1(x);
  const QString d = QString::fromUtf8(description);
  return valueName ? QCommandLineOption(n, d, QString::fromLatin1(valueName)) : QCommandLineOption(n, d);
}

/// Every option of the program, as --help lists them (and the man page, made from --help).
struct Options {
  QCommandLineOption help = option({"h", "help"}, "Show this help.");
  QCommandLineOption version = option({"v", "version"}, "Print the version and the git revision.");
  QCommandLineOption source = option({"source"}, "The source trace of a split directory (adds the evidence).", "TRACE");
  QCommandLineOption partial = option({"partial"}, "A trace that ends early: open the complete events before the cut.");
  QCommandLineOption split = option({"split"}, "Split the trace before the screenshot or report.");
  QCommandLineOption kind =
      option({"kind"},
             "The workload the split assumes: auto (LLM inference when the trace has serving step "
             "annotations, else generic; the default), llm or generic.",
             "K");
  QCommandLineOption select =
      option({"select"}, "Select the chunk of a mode (mixed, decode_only, prefilldecode, generic).", "MODE");
  QCommandLineOption compare = option({"compare"},
                                      "Compare with another trace or split directory: with --select, the A/B of MODE's "
                                      "chunk in TRACE against MODE's chunk in OTHER.",
                                      "OTHER");
  QCommandLineOption op = option({"op"},
                                 "With --compare: choose OP's row in the A/B pane's By op table; its kernels are "
                                 "marked on both timelines.",
                                 "OP");
  QCommandLineOption raise = option({"raise"}, "Bring a tab to the front: chunks, anomalies, charts or ab.", "DOCK");
  QCommandLineOption screenshot = option({"screenshot"}, "Render the window offscreen into PNG and exit.", "PNG");
  QCommandLineOption report =
      option({"report"},
             "Write the selected chunk's report: PDF (one page: trace, sha256, parameters, chunks, "
             "verdict, per-step chart) and beside it the timeline as a PNG of --size; then exit.",
             "PDF");
  QCommandLineOption size = option({"size"}, "The screenshot's or the report PNG's size (default 1920x1080).", "WxH");
  QCommandLineOption dark = option({"dark"}, "A dark palette.");
  QCommandLineOption find = option({"find"}, "Select the first event whose name matches (as Ctrl+F).", "REGEX");
  QCommandLineOption rangeMs = option({"range-ms"}, "Select a time range, in ms from the trace start.", "A:B");
  QCommandLineOption benchTimeline = option(
      {"bench-timeline"}, "Measure the timeline's frame times (offscreen; with --find, matches highlighted).", "TRACE");
  QCommandLineOption benchCharts =
      option({"bench-charts"}, "Measure showing the Charts tab after a split (offscreen).", "TRACE");
  QCommandLineOption benchExport =
      option({"bench-export"}, "Measure Chunk > Export and Save report on a split of TRACE (offscreen).", "TRACE");

  void addTo(QCommandLineParser& p) const {
    p.setApplicationDescription(QString::fromUtf8(kDescription));
    p.addPositionalArgument(QStringLiteral("TRACE"),
                            QStringLiteral("A trace file or a split directory; several traces or a folder of "
                                           "rank traces: the Job view."),
                            QStringLiteral("[TRACE… | SPLIT_DIR | JOB_DIR]"));
    for (const QCommandLineOption* o :
         {&help, &version, &source, &partial, &split, &kind, &select, &compare, &op, &raise, &screenshot, &report,
          &size, &dark, &find, &rangeMs, &benchTimeline, &benchCharts, &benchExport})
      p.addOption(*o);
  }
};

bool envSet(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}
void applyDarkPalette() { applyTheme(Theme::Dark, /*fromCommandLine=*/true); }

/// Qt's own options (QApplication reads them from argv): left out of our parse.
bool isQtOption(const QString& a) {
  for (const char* o : {"-platform", "-style", "--style", "-qwindowgeometry", "-reverse"})
    if (a == QLatin1String(o)) return true;
  return a.startsWith(QLatin1String("-style=")) || a.startsWith(QLatin1String("--style="));
}
bool qtOptionTakesValue(const QString& a) { return !a.contains(QLatin1Char('=')) && a != QLatin1String("-reverse"); }

QString checkSize(const QString& s, QSize& out) {
  const QStringList wh = s.split(QLatin1Char('x'));
  bool ok1 = false, ok2 = false;
  if (wh.size() == 2) out = QSize(wh[0].toInt(&ok1), wh[1].toInt(&ok2));
  if (!ok1 || !ok2 || out.width() < 200 || out.height() < 150 || out.width() > 8000 || out.height() > 8000)
    return QStringLiteral("--size wants WxH, e.g. 1920x1080 (got \"%1\")").arg(s);
  return {};
}

QString checkRange(const QString& s, double& from, double& to) {
  const QStringList ab = s.split(QLatin1Char(':'));
  bool ok1 = false, ok2 = false;
  if (ab.size() == 2) {
    from = ab[0].toDouble(&ok1);
    to = ab[1].toDouble(&ok2);
  }
  if (!ok1 || !ok2 || to <= from)
    return QStringLiteral("--range-ms wants A:B in ms from the trace start, A < B (got \"%1\")").arg(s);
  return {};
}

/// The parsed options' values into `o`; a usage error in o.error.
void readOptions(const QCommandLineParser& p, const Options& opt, GuiOptions& o) {
  o.help = p.isSet(opt.help);
  o.version = p.isSet(opt.version);
  o.split = p.isSet(opt.split);
  o.dark = p.isSet(opt.dark);
  o.partial = p.isSet(opt.partial);
  o.kind = p.value(opt.kind);
  o.find = p.value(opt.find);
  o.compare = p.value(opt.compare);
  o.raise = p.value(opt.raise);
  o.op = p.value(opt.op);
  o.selectMode = p.value(opt.select);
  o.source = p.value(opt.source);
  o.screenshot = p.value(opt.screenshot);
  o.report = p.value(opt.report);
  o.benchTrace = p.value(opt.benchTimeline);
  o.benchCharts = p.value(opt.benchCharts);
  o.benchExport = p.value(opt.benchExport);
  const QStringList files = p.positionalArguments();
  if (!files.isEmpty()) o.input = files.first();
  o.inputs = files;
  if (o.error.isEmpty() && p.isSet(opt.kind) && !analysis::parseWorkloadKind(o.kind.toStdString()))
    o.error = QStringLiteral("--kind wants auto, llm or generic (got \"%1\")").arg(o.kind);
  if (o.error.isEmpty() && p.isSet(opt.size)) o.error = checkSize(p.value(opt.size), o.size);
  if (o.error.isEmpty() && p.isSet(opt.rangeMs)) o.error = checkRange(p.value(opt.rangeMs), o.rangeFromMs, o.rangeToMs);
}
}  // namespace

bool hasDisplay() { return envSet("DISPLAY") || envSet("WAYLAND_DISPLAY") || envSet("QT_QPA_PLATFORM"); }

GuiOptions parseGuiOptions(int argc, char** argv) {
  QStringList args;
  for (int i = 0; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (i > 0 && isQtOption(a)) {
      if (qtOptionTakesValue(a)) ++i;
      continue;
    }
    args << a;
  }
  QCommandLineParser p;
  const Options opt;
  opt.addTo(p);
  GuiOptions o;
  if (!p.parse(args)) {
    o.error = p.errorText();
    return o;
  }
  readOptions(p, opt, o);
  return o;
}

QString guiHelpText() {
  // QCommandLineParser's help names the program after the application's argv[0].
  int argc = 1;
  char name[] = "steadyscope";
  char* argv[] = {name, nullptr};
  QCoreApplication app(argc, argv);
  QCommandLineParser p;
  Options().addTo(p);
  return p.helpText() + QLatin1Char('\n') + QString::fromUtf8(kExamples);
}

void openInputs(MainWindow& w, const GuiOptions& o) {
  if (o.input.isEmpty()) return;
  if (o.inputs.size() > 1)
    w.openPaths(o.inputs);
  else if (QFileInfo(o.input).isDir() && !o.source.isEmpty())
    w.controllers().review->openSplitDirectory(o.input, o.source);
  else if (o.partial)
    w.controllers().open->openPartially(o.input);
  else
    w.openFile(o.input);  // a folder: a job, else a split directory
}

int runSteadyscope(int argc, char** argv) {
  reportOutOfMemoryOnTerminate("steadyscope");
  const GuiOptions o = parseGuiOptions(argc, argv);
  if (o.help) {
    std::fputs(qPrintable(guiHelpText()), stdout);
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
  w.showAsLastClosed();
  openInputs(w, o);
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
  openInputs(w, o);  // none: the welcome screen
  QElapsedTimer opening;
  opening.start();
  if (!w.waitForJobs()) {
    std::fprintf(stderr, "steadyscope: timed out loading %s\n", qPrintable(o.input));
    return 1;
  }
  if (o.inputs.size() > 1 || w.isJobViewShown()) return saveJobScreenshot(w, o, opening.elapsed());
  // With --compare, what opening side A cost, to set beside what side B costs.
  if (!o.compare.isEmpty()) std::printf("open: %lld ms (load and timeline index)\n", opening.elapsed());
  if (!o.input.isEmpty() && !w.document() && !QFileInfo(o.input).isDir()) {
    std::fprintf(
        stderr, "steadyscope: %s\n",
        qPrintable(w.document().lastError().isEmpty() ? QStringLiteral("nothing loaded") : w.document().lastError()));
    return 1;
  }
  // --select alone on a split directory selects among its chunk files; on a
  // trace (or with --split) the split runs first.
  const bool haveRows = !w.document().rows().isEmpty();
  qint64 splitMs = -1;
  if (!o.kind.isEmpty()) w.panes().run->setKind(*analysis::parseWorkloadKind(o.kind.toStdString()));
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
    if (!w.controllers().split->selectMode(o.selectMode))
      std::fprintf(stderr, "steadyscope: --select %s: the split has no window for that mode\n",
                   qPrintable(o.selectMode));
  }
  if (w.document() && o.rangeToMs > o.rangeFromMs) {
    const qint64 t0 = w.document().index()->firstNs;
    w.selection()->setRange(t0 + qint64(o.rangeFromMs * 1e6), t0 + qint64(o.rangeToMs * 1e6));
  }
  if (w.document() && !o.find.isEmpty()) {
    w.panes().findEdit->setText(o.find);
    w.controllers().find->findNext();
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

// The By op row of `op`, chosen as a click would (the pane tells the compare controller).
bool chooseOpRow(MainWindow& w, const QString& op) {
  QTreeView* v = w.panes().ab->byOpView();
  const QAbstractItemModel* m = v->model();
  for (int r = 0; r < m->rowCount(); ++r)
    if (m->index(r, 0).data(widgets::ByOpModel::OpRole).toString() == op) {
      v->setCurrentIndex(m->index(r, 0));
      return true;
    }
  return false;
}

bool compareForScreenshot(MainWindow& w, const GuiOptions& o) {
  QElapsedTimer clock;
  clock.start();
  w.controllers().compare->compareWith(o.compare);
  const bool done = w.waitForJobs();
  std::printf("compare: %lld ms (load, timeline index and split of %s)\n", clock.elapsed(),
              qPrintable(QFileInfo(o.compare).fileName()));
  if (!done || !w.document().comparison().compared()) {
    std::fprintf(
        stderr, "steadyscope: --compare %s: %s\n", qPrintable(o.compare),
        qPrintable(w.document().lastError().isEmpty() ? QStringLiteral("not loaded") : w.document().lastError()));
    return false;
  }
  if (!o.op.isEmpty() && !chooseOpRow(w, o.op)) {
    std::fprintf(stderr, "steadyscope: --op %s: no such op in the By op table\n", qPrintable(o.op));
    return false;
  }
  if (o.selectMode.isEmpty()) return true;
  if (!w.controllers().compare->compareModes(o.selectMode)) {
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
  const QString error = w.controllers().exporting->saveReport(o.report, o.size);
  if (!error.isEmpty()) {
    std::fprintf(stderr, "steadyscope: --report %s: %s\n", qPrintable(o.report), qPrintable(error));
    return 1;
  }
  std::printf("report: %s and %s (%dx%d)\nstatus: %s\n", qPrintable(o.report), qPrintable(pngPathFor(o.report)),
              o.size.width(), o.size.height(), qPrintable(w.statusText()));
  return 0;
}

int saveJobScreenshot(MainWindow& w, const GuiOptions& o, qint64 openMs) {
  if (!w.isJobViewShown()) {
    const QString why = w.document().lastError();
    std::fprintf(stderr, "steadyscope: %s\n", qPrintable(why.isEmpty() ? QStringLiteral("no job opened") : why));
    return 1;
  }
  w.resize(o.size);
  for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
  const int rc = saveScreenshot(w, o, -1);
  std::printf("open: %lld ms (every rank's row, to the Job view shown)\n", openMs);
  const auto& job = w.document().job();
  std::printf("job: %lld ranks, %d did not load%s\n", static_cast<long long>(job.ranks.size()), job.failedRanks,
              job.stragglerRank ? qPrintable(QStringLiteral(", straggler rank %1").arg(*job.stragglerRank)) : "");
  return rc;
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
  if (w.document().currentResult() >= 0) std::printf("result: %s\n", qPrintable(w.panes().results->currentText()));
  if (splitMs >= 0) std::printf("split: %lld ms from Run split to the gate's verdicts\n", splitMs);
  return 0;
}

}  // namespace steadyscope::app
