// The window's Export and report, offscreen: Chunk ▸ Export… writes what
// exporting::exportChunk and `steadyscope-cli export` write for the same mode;
// an earlier export is replaced only after a Yes; Cancel and a failing write
// leave nothing; a target that is the source is refused; the action says why
// it is disabled. The report: a one-page PDF whose text names the chunk, its
// verdict and busy ratio; a PNG of the requested size with the busy colour
// where the GPU is busy; the headless --report.
#include "app_test_support.hpp"
#include "export_dialog.hpp"
#include "main_window.hpp"

#include "common/colors.hpp"
#include "panels/chunks_panel.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/core/export/chunk_export.hpp>
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/io/loader.hpp>
#include <steadyscope/core/timeline/format.hpp>
#include <steadyscope/core/util/paths.hpp>

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>

#include <zlib.h>

#include <cerrno>
#include <map>
#include <sys/stat.h>

using namespace steadyscope;
using app::ExportDialog;
using app::MainWindow;
using app::testsupport::kJobTimeoutMs;
using app::testsupport::StageHold;
using app::testsupport::tempSettings;

namespace {

const QString kSample = QStringLiteral(STEADYSCOPE_SAMPLE_TRACE);

QByteArray gunzip(const QString& path) {
  QByteArray out;
  gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
  if (!f) return out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, n);
  gzclose(f);
  return out;
}

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The CSV's one row as column -> cell, output_path left out (it names each export's own folder).
std::map<std::string, std::string> csvRow(const QString& path) {
  std::map<std::string, std::string> row;
  auto t = gate::readCsvFile(path.toStdString());
  if (!t || t->records.size() != 1) return row;
  for (const auto& h : t->header)
    if (h != "output_path") row[h] = t->cell(t->records[0], h).value_or("");
  return row;
}

QJsonObject manifestOf(const QString& dir) {
  return QJsonDocument::fromJson(readFile(dir + QStringLiteral("/steadyscope-export.json"))).object();
}

QStringList filesIn(const QString& dir) { return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System); }

// The staging folders beside `dir` (an export writes there first, D-067).
QStringList stagedBeside(const QString& dir) {
  const QFileInfo f(dir);
  return f.dir().entryList({QLatin1Char('.') + f.fileName() + QStringLiteral(".staging-*")},
                           QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
}

ino_t inodeOf(const QString& path) {
  struct stat st {};
  return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? st.st_ino : 0;
}

// Answers the next QMessageBox with `button` once it is shown (exec() runs its own loop).
void answerNextMessageBox(QMessageBox::StandardButton button, bool* asked) {
  auto* timer = new QTimer(qApp);
  timer->setInterval(20);
  QObject::connect(timer, &QTimer::timeout, timer, [timer, button, asked] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    *asked = true;
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::No));
    box->button(button)->click();
    timer->deleteLater();
  });
  timer->start();
}

}  // namespace

class TstExportWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void init();
  void cleanup();
  void exportDisabledSaysWhy();
  void exportWritesWhatCoreAndCliWrite();
  void overwriteAsksFirst();
  void cancelLeavesNothing();
  void failingWriteLeavesNothing();
  void sourceAsTargetRefused();
  void exportFromAReviewedDirectory();
  void reportPdfAndPng();
  void headlessReport();

 private:
  ExportDialog* openDialog();
  void runExport(ExportDialog* d, const QString& dir);
  std::unique_ptr<QTemporaryDir> tmp_;
  std::unique_ptr<MainWindow> w_;
};

void TstExportWindow::initTestCase() {
  if (!QFileInfo::exists(kSample)) QSKIP("the bundled sample trace is missing");
}

void TstExportWindow::init() {
  tmp_ = std::make_unique<QTemporaryDir>();
  w_ = std::make_unique<MainWindow>(tempSettings(tmp_->filePath(QStringLiteral("s.ini"))));
  STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(*w_);
  QVERIFY(w_->controllers().split->selectMode(QStringLiteral("mixed")));
  STEADYSCOPE_WAIT_IDLE(*w_);  // the selected chunk's gate, for the report
}

void TstExportWindow::cleanup() {
  w_.reset();
  tmp_.reset();
}

ExportDialog* TstExportWindow::openDialog() {
  auto* a = w_->findChild<QAction*>(QStringLiteral("action.export"));
  if (!a || !a->isEnabled()) return nullptr;
  a->trigger();
  return w_->findChild<ExportDialog*>();
}

void TstExportWindow::runExport(ExportDialog* d, const QString& dir) {
  d->folderEdit()->setText(dir);
  QVERIFY2(d->exportButton()->isEnabled(), qPrintable(d->messageText()));
  d->exportButton()->click();
  QTRY_VERIFY_WITH_TIMEOUT(!w_->jobs()->lane(app::JobKind::Export)->isRunning(), kJobTimeoutMs);
}

void TstExportWindow::exportDisabledSaysWhy() {
  auto* a = w_->findChild<QAction*>(QStringLiteral("action.export"));
  QVERIFY(a && a->isEnabled());
  QCOMPARE(a->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
  w_->selection()->setChunk(-1);
  QVERIFY(!a->isEnabled());
  QVERIFY2(a->toolTip().contains(QStringLiteral("Select a chunk")), qPrintable(a->toolTip()));
  w_->controllers().open->closeTrace();
  QVERIFY(!a->isEnabled());
  QVERIFY2(a->toolTip().contains(QStringLiteral("Open a trace")), qPrintable(a->toolTip()));
}

void TstExportWindow::exportWritesWhatCoreAndCliWrite() {
  ExportDialog* d = openDialog();
  QVERIFY(d);
  const QString win = tmp_->filePath(QStringLiteral("window"));
  runExport(d, win);
  QCOMPARE(d->writtenFiles().size(), 4);
  QVERIFY(d->showFolderButton()->isEnabled());
  QVERIFY2(d->messageText().startsWith(QStringLiteral("Exported")), qPrintable(d->messageText()));

  // The core with the result's own split, and the CLI's pipeline split for the mode.
  const analysis::SplitOptions options = *w_->document().results().back().options;
  auto trace = loadTrace(kSample.toStdString());
  QVERIFY(trace.ok());
  startSourceDigest(*trace.value());
  analysis::Splitter splitter(trace.value());
  const analysis::SplitResult plan = splitter.plan(options);
  exporting::ExportRequest req;
  req.mode = names::ChunkMode::Mixed;
  req.targetDir = tmp_->filePath(QStringLiteral("core")).toStdString();
  req.toolVersion = "test";
  QVERIFY(exporting::exportChunk(splitter, plan, options, req).ok());
  const QString cli = tmp_->filePath(QStringLiteral("cli"));
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_CLI), {QStringLiteral("export"), kSample, QStringLiteral("--mode"),
                                            QStringLiteral("mixed"), QStringLiteral("-o"), cli});
  QVERIFY(p.waitForFinished(kJobTimeoutMs));
  QCOMPARE(p.exitCode(), 0);

  const QString leaf = QFileInfo(d->writtenFiles()[0]).fileName();
  const QByteArray chunk = gunzip(win + QLatin1Char('/') + leaf);
  QVERIFY(chunk.size() > 1000);
  for (const QString& other : {tmp_->filePath(QStringLiteral("core")), cli}) {
    QCOMPARE(gunzip(other + QLatin1Char('/') + leaf), chunk);
    QCOMPARE(csvRow(other + QStringLiteral("/execution_details.csv")),
             csvRow(win + QStringLiteral("/execution_details.csv")));
    const QJsonObject a = manifestOf(win), b = manifestOf(other);
    QCOMPARE(a[QStringLiteral("source")].toObject()[QStringLiteral("sha256")],
             b[QStringLiteral("source")].toObject()[QStringLiteral("sha256")]);
    QCOMPARE(a[QStringLiteral("chunk")], b[QStringLiteral("chunk")]);
    QCOMPARE(a[QStringLiteral("figures")].toObject()[QStringLiteral("verdict")],
             b[QStringLiteral("figures")].toObject()[QStringLiteral("verdict")]);
  }
  QVERIFY(csvRow(win + QStringLiteral("/execution_details.csv")).size() > 5);
  QCOMPARE(manifestOf(win)[QStringLiteral("split_parameters")],
           manifestOf(tmp_->filePath(QStringLiteral("core")))[QStringLiteral("split_parameters")]);
  // The folder is remembered for the next export.
  QCOMPARE(w_->settings()->exportFolder(), win);
}

void TstExportWindow::overwriteAsksFirst() {
  const QString dir = tmp_->filePath(QStringLiteral("again"));
  ExportDialog* d = openDialog();
  QVERIFY(d);
  runExport(d, dir);
  QCOMPARE(d->writtenFiles().size(), 4);
  QVERIFY(d->filesText().contains(QStringLiteral("steadyscope-export.json")));
  d->refresh();
  QVERIFY2(d->filesText().contains(QStringLiteral("replaces")), qPrintable(d->filesText()));
  QVERIFY2(d->messageText().contains(QStringLiteral("asks before replacing")), qPrintable(d->messageText()));
  const QString manifest = dir + QStringLiteral("/steadyscope-export.json");
  const QByteArray before = readFile(manifest);
  const ino_t inode = inodeOf(manifest);

  bool asked = false;
  answerNextMessageBox(QMessageBox::No, &asked);
  d->exportButton()->click();
  QVERIFY(asked);
  QVERIFY(!w_->jobs()->lane(app::JobKind::Export)->isRunning());
  QVERIFY2(d->messageText().contains(QStringLiteral("unchanged")), qPrintable(d->messageText()));
  QCOMPARE(readFile(manifest), before);
  QCOMPARE(inodeOf(manifest), inode);
  QCOMPARE(filesIn(dir).size(), 4);

  asked = false;
  answerNextMessageBox(QMessageBox::Yes, &asked);
  d->exportButton()->click();
  QVERIFY(asked);
  QTRY_VERIFY_WITH_TIMEOUT(!w_->jobs()->lane(app::JobKind::Export)->isRunning(), kJobTimeoutMs);
  QCOMPARE(d->writtenFiles().size(), 4);
  QVERIFY(inodeOf(manifest) != inode);  // replaced by a rename
  QCOMPARE(filesIn(dir).size(), 4);
}

void TstExportWindow::cancelLeavesNothing() {
  const QString dir = tmp_->filePath(QStringLiteral("cancelled"));
  ExportDialog* d = openDialog();
  QVERIFY(d);
  StageHold hold("manifest");  // the chunk and the details are staged by then
  w_->jobs()->lane(app::JobKind::Export)->setStageObserverForTests(hold.observer());
  d->folderEdit()->setText(dir);
  d->exportButton()->click();
  QTRY_VERIFY_WITH_TIMEOUT(hold.reached(), kJobTimeoutMs);
  QVERIFY(d->cancelButton()->isVisible());
  QVERIFY(!QFileInfo::exists(dir));  // staged in a folder beside it
  QCOMPARE(stagedBeside(dir).size(), 1);
  d->cancelButton()->click();
  hold.release();
  QTRY_VERIFY_WITH_TIMEOUT(!w_->jobs()->lane(app::JobKind::Export)->isRunning(), kJobTimeoutMs);
  QTRY_COMPARE_WITH_TIMEOUT(w_->jobs()->lane(app::JobKind::Export)->inFlight(), 0, kJobTimeoutMs);
  QVERIFY2(d->messageText().contains(QStringLiteral("cancelled")), qPrintable(d->messageText()));
  QVERIFY(d->writtenFiles().isEmpty());
  QVERIFY2(!QFileInfo::exists(dir), qPrintable(filesIn(dir).join(QLatin1Char(' '))));
  QVERIFY2(stagedBeside(dir).isEmpty(), qPrintable(stagedBeside(dir).join(QLatin1Char(' '))));
  QVERIFY(d->isVisible());  // Cancel stops the export, not the dialog
}

void TstExportWindow::failingWriteLeavesNothing() {
  const QString dir = tmp_->filePath(QStringLiteral("full"));
  QDir().mkpath(dir);
  ExportDialog* d = openDialog();
  QVERIFY(d);
  d->setWriteFaultForTests([](const std::string& path, uint64_t) {
    return path.find("steadyscope-export.json") != std::string::npos ? ENOSPC : 0;
  });
  runExport(d, dir);
  QVERIFY(d->writtenFiles().isEmpty());
  QVERIFY2(d->messageText().startsWith(QStringLiteral("Not exported")), qPrintable(d->messageText()));
  QVERIFY2(d->messageText().contains(QStringLiteral("steadyscope-export.json")), qPrintable(d->messageText()));
  QTRY_COMPARE_WITH_TIMEOUT(w_->jobs()->lane(app::JobKind::Export)->inFlight(), 0, kJobTimeoutMs);
  QCOMPARE(filesIn(dir), QStringList());
}

void TstExportWindow::sourceAsTargetRefused() {
  ExportDialog* d = openDialog();
  QVERIFY(d);
  // A folder where the chunk's name is a link to the source trace: writing it would replace the source.
  const QString dir = tmp_->filePath(QStringLiteral("source"));
  QDir().mkpath(dir);
  d->folderEdit()->setText(dir);
  const QString leaf = d->filesText().section(QStringLiteral("<tt>"), 1, 1).section(QStringLiteral("</tt>"), 0, 0);
  QVERIFY2(leaf.endsWith(QStringLiteral(".json.gz")), qPrintable(d->filesText()));
  const QByteArray before = readFile(kSample);
  QVERIFY(QFile::link(kSample, dir + QLatin1Char('/') + leaf));
  d->refresh();
  QVERIFY2(d->messageText().contains(QStringLiteral("source trace")), qPrintable(d->messageText()));
  QVERIFY(!d->exportButton()->isEnabled());
  d->startExport();  // refused even when asked directly
  QVERIFY(!w_->jobs()->lane(app::JobKind::Export)->isRunning());
  QCOMPARE(readFile(kSample), before);
  QCOMPARE(filesIn(dir), QStringList{leaf});
}

// A split directory opened with its source: its chunks placed on a re-plan of the source, which Export uses.
void TstExportWindow::exportFromAReviewedDirectory() {
  const QString split = tmp_->filePath(QStringLiteral("split"));
  QProcess p;
  p.start(QStringLiteral(STEADYSCOPE_CLI),
          {QStringLiteral("split"), kSample, QStringLiteral("-o"), split, QStringLiteral("--find-steady-state"),
           QStringLiteral("--num-steps"), QStringLiteral("32")});
  QVERIFY(p.waitForFinished(kJobTimeoutMs));
  QCOMPARE(p.exitCode(), 0);
  w_ = std::make_unique<MainWindow>(tempSettings(tmp_->filePath(QStringLiteral("s2.ini"))));
  w_->show();
  w_->controllers().review->openSplitDirectory(split, kSample);
  QTRY_VERIFY_WITH_TIMEOUT(w_->isIdle() && w_->document() && !w_->document().results().empty() &&
                               w_->document().results()[size_t(w_->document().currentResult())].planned,
                           kJobTimeoutMs);
  STEADYSCOPE_WAIT_IDLE(*w_);
  QVERIFY(w_->controllers().split->selectMode(QStringLiteral("mixed")));
  ExportDialog* d = openDialog();
  QVERIFY2(d, qPrintable(w_->controllers().exporting->exportBlocker()));
  const QString dir = tmp_->filePath(QStringLiteral("from-dir"));
  runExport(d, dir);
  QCOMPARE(d->writtenFiles().size(), 4);
  const QString leaf = QFileInfo(d->writtenFiles()[0]).fileName();
  QVERIFY(QFileInfo::exists(split + QLatin1Char('/') + leaf));  // the directory's own chunk file
  const QString cli = tmp_->filePath(QStringLiteral("cli"));
  p.start(QStringLiteral(STEADYSCOPE_CLI), {QStringLiteral("export"), kSample, QStringLiteral("--mode"),
                                            QStringLiteral("mixed"), QStringLiteral("-o"), cli});
  QVERIFY(p.waitForFinished(kJobTimeoutMs));
  QCOMPARE(p.exitCode(), 0);
  QCOMPARE(gunzip(dir + QLatin1Char('/') + leaf), gunzip(cli + QLatin1Char('/') + leaf));
  QCOMPARE(csvRow(dir + QStringLiteral("/execution_details.csv")),
           csvRow(cli + QStringLiteral("/execution_details.csv")));
}

void TstExportWindow::reportPdfAndPng() {
  const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
  const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
  if (pdftotext.isEmpty() || pdfinfo.isEmpty()) QSKIP("pdftotext / pdfinfo missing (Debian: poppler-utils)");
  const QString pdf = tmp_->filePath(QStringLiteral("r.pdf"));
  const QSize size(1280, 720);
  QCOMPARE(w_->controllers().exporting->saveReport(pdf, size), QString());
  const widgets::ChunkRow row = w_->panes().chunks->model()->chunks()[w_->selection()->chunk()];

  QProcess info;
  info.start(pdfinfo, {pdf});
  QVERIFY(info.waitForFinished(60000));
  QVERIFY2(
      QString::fromUtf8(info.readAllStandardOutput()).contains(QRegularExpression(QStringLiteral("Pages:\\s+1\\n"))),
      "the report is not one page");
  QProcess text;
  text.start(pdftotext, {pdf, QStringLiteral("-")});
  QVERIFY(text.waitForFinished(60000));
  const QString words = QString::fromUtf8(text.readAllStandardOutput());
  QVERIFY2(words.contains(row.file), qPrintable(words));
  QVERIFY2(words.contains(widgets::colors::verdictWord(row.verdict).toUpper()), qPrintable(words));
  QVERIFY2(words.contains(QStringLiteral("busy ratio ") + QString::fromStdString(timeline::formatRatio(row.busyRef))),
           qPrintable(words));

  // The PNG: the requested size, and the busy colour in the GPU's busy strip over a busy interval.
  const QImage png(tmp_->filePath(QStringLiteral("r.png")));
  QCOMPARE(png.size(), size);
  widgets::TimelineView* tv = w_->panes().timeline;
  const auto& busy = w_->document().index()->devices.at(0).busy;
  const int lw = tv->labelWidth();
  const timeline::ViewControl& vc = tv->viewControl();
  const timeline::TimeMapper m(vc.origin(), vc.beginRel(), vc.endRel(), size.width() - lw);
  // The pixel column the device is busiest in (its bar is drawn that high).
  int bestX = -1;
  double best = 0;
  for (int x = 0; x < size.width() - lw; ++x) {
    const int64_t a = m.nsAt(x), b = m.nsAt(x + 1);
    const double f = b > a ? double(busy.busyIn(a, b)) / double(b - a) : 0.0;
    if (f > best) {
      best = f;
      bestX = lw + x;
    }
  }
  QVERIFY2(best >= 0.5, "no pixel column in view is half busy");
  const QRgb want = widgets::colors::gpuBusy(tv->palette()).rgb();
  const int y0 = tv->busyStripY(0);
  QVERIFY(y0 >= 0);
  bool found = false;
  for (int y = y0; y < std::min(size.height(), y0 + 40) && !found; ++y) found = png.pixel(bestX, y) == want;
  QVERIFY2(found, "no busy colour over the busy interval");
}

void TstExportWindow::headlessReport() {
  const QString out = tmp_->filePath(QStringLiteral("headless.pdf"));
  QProcess p;
  app::testsupport::withoutDisplay(p);
  p.start(QStringLiteral(STEADYSCOPE_GUI_BIN),
          {kSample, QStringLiteral("--split"), QStringLiteral("--select"), QStringLiteral("mixed"),
           QStringLiteral("--report"), out, QStringLiteral("--size"), QStringLiteral("1000x600")});
  QVERIFY(p.waitForFinished(kJobTimeoutMs));
  QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  QVERIFY(readFile(out).startsWith("%PDF"));
  QCOMPARE(QImage(tmp_->filePath(QStringLiteral("headless.png"))).size(), QSize(1000, 600));
  QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains(QStringLiteral("headless.png")));
}

QTEST_MAIN(TstExportWindow)
#include "tst_export_window.moc"
