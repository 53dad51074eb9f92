#pragma once
// The GUI entry point, kept out of main.cpp so tests can drive it.
//   steadyscope [TRACE | SPLIT_DIR [--source TRACE]]
//   steadyscope RANK… | JOB_DIR [--screenshot OUT.png]   (the Job view)
//   steadyscope [TRACE] [--split [--kind K]] [--select MODE] --screenshot OUT.png [--size 1920x1080] [--dark]
//   steadyscope TRACE --split --select MODE --report OUT.pdf [--size 1920x1080]
//   steadyscope TRACE --split --select MODE --compare OTHER --screenshot OUT.png  (A/B of MODE's chunks)
//   (no TRACE: the welcome screen)
//   steadyscope --bench-timeline TRACE
//   steadyscope --bench-export TRACE [--select MODE]
#include <QSize>
#include <QString>
#include <QStringList>

namespace steadyscope::app {

struct GuiOptions {
  QString input;                            // trace file or split directory (the first of inputs)
  QStringList inputs;                       // every file given: several open as a job
  QString source;                           // --source: the split directory's source trace
  bool split = false;                       // --split
  QString kind;                             // --kind auto|llm|generic: the Run panel's workload
  QString selectMode;                       // --select MODE
  QString screenshot;                       // --screenshot OUT.png
  QString report;                           // --report OUT.pdf (and OUT.png)
  QSize size{1920, 1080};                   // --size WxH
  QString benchTrace;                       // --bench-timeline TRACE
  QString benchCharts;                      // --bench-charts TRACE
  QString benchExport;                      // --bench-export TRACE
  QString compare;                          // --compare OTHER: a second trace or split directory for A/B
  QString raise;                            // --raise DOCK: chunks, anomalies, charts or ab in front
  QString op;                               // --op OP: with --compare, the By op row chosen (marked on both timelines)
  QString find;                             // --find REGEX: select the first matching event (as Ctrl+F)
  double rangeFromMs = -1, rangeToMs = -1;  // --range-ms A:B: select a range (ms from the start)
  bool dark = false;                        // --dark: Fusion style with a dark palette (docs, checks)
  bool partial = false;                     // --partial: a file that ends early opens in part
  bool help = false, version = false;
  QString error;  // a usage error, one line
};

/// Parses argv without a QApplication (it decides which platform to use);
/// Qt's own options (-platform, -style) are left to QApplication.
GuiOptions parseGuiOptions(int argc, char** argv);
/// What --help prints: every option, then examples.
QString guiHelpText();
/// True when Qt can open a window: $DISPLAY, $WAYLAND_DISPLAY or $QT_QPA_PLATFORM is set.
bool hasDisplay();
/// The whole program; returns the exit status.
int runSteadyscope(int argc, char** argv);

/// Headless: loads, (splits, selects,) renders the window offscreen, saves
/// the PNG (--screenshot) or the report (--report). Requires a QApplication.
/// Prints a summary to stdout.
int takeScreenshot(const GuiOptions& o);
/// Frame-time benchmark of the timeline widget (offscreen, 1920x1080).
/// `find`: a name pattern whose matches are highlighted in every frame (empty: none).
int runTimelineBench(const QString& trace, const QString& find = {});
/// What showing the Charts tab costs after a split (offscreen).
int runChartsBench(const QString& trace);
/// Times Chunk ▸ Export… and Save report on the window (offscreen), `mode`'s chunk of a split of `trace`.
int runExportBench(const QString& trace, const QString& mode);

}  // namespace steadyscope::app
