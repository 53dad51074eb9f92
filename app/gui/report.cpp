#include "report.hpp"

#include "common/colors.hpp"
#include "common/text.hpp"
#include "panels/charts_panel.hpp"

#include <steadyscope/common.hpp>
#include <steadyscope/timeline.hpp>

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>

#include <algorithm>
#include <cmath>

namespace steadyscope::app {

namespace {

QString esc(const QString& s) { return s.toHtmlEscaped(); }

// One bar per pixel column at most: the largest value of the steps it covers, so peaks survive.
struct Columns {
  std::vector<double> duration, busy;
  std::vector<timeline::StepKind> kind;
  std::vector<uint8_t> inChunk;
};

Columns columnsOf(const timeline::TimelineOverlays& ov, const timeline::TimelineIndex& index, qint64 b, qint64 e,
                  int width) {
  const size_t n = ov.steps.size();
  const size_t cols = std::min(n, size_t(std::max(1, width)));
  Columns c;
  c.duration.assign(cols, 0);
  c.busy.assign(cols, 0);
  c.kind.assign(cols, timeline::StepKind::Generic);
  c.inChunk.assign(cols, 0);
  for (size_t i = 0; i < n; ++i) {
    const timeline::StepBand& s = ov.steps[i];
    const size_t k = i * cols / n;
    const double d = double(s.endNs - s.beginNs) / 1e6;
    if (d >= c.duration[k]) c.kind[k] = s.kind;
    c.duration[k] = std::max(c.duration[k], d);
    c.busy[k] = std::max(c.busy[k], timeline::stepBusyRatio(index, s));
    if (s.beginNs >= b && s.endNs <= e) c.inChunk[k] = 1;
  }
  return c;
}

// One panel of the chart: bars of `values` (0..maxY), a title with an optional colour legend, the y range on
// the left and, optionally, the first and last step under it.
struct Panel {
  QString title, maxLabel;
  const std::vector<double>* values = nullptr;
  double maxY = 1.0;
  bool byKind = false;          // bars in the step kind's colour, else the busy colour
  QString firstStep, lastStep;  // x labels ("" = none)
  QColor chunk;                 // the chosen chunk's colour (its mode's)
};

void paintPanel(QPainter& p, QRect r, const Columns& c, const Panel& panel, const QPalette& pal) {
  const QFontMetrics fm = p.fontMetrics();
  const int th = fm.height() + 6, left = fm.horizontalAdvance(QStringLiteral("00000")) + 10;
  const bool xLabels = !panel.firstStep.isEmpty();
  const QRect plot(r.left() + left, r.top() + th, r.width() - left - 8, r.height() - th - (xLabels ? th : 6));
  const QColor text = pal.color(QPalette::Text);
  QColor shade = panel.chunk;
  shade.setAlpha(60);
  p.setPen(text);
  p.drawText(QRect(plot.left(), r.top(), plot.width(), th), Qt::AlignLeft | Qt::AlignVCenter, panel.title);
  if (panel.byKind) {  // the legend, right-aligned on the title's line
    int x = plot.right();
    for (timeline::StepKind k : {timeline::StepKind::Generic, timeline::StepKind::PrefillOnly,
                                 timeline::StepKind::PrefillDecode, timeline::StepKind::DecodeOnly}) {
      if (std::find(c.kind.begin(), c.kind.end(), k) == c.kind.end()) continue;
      const QString name = QString::fromUtf8(timeline::stepKindName(k));
      x -= fm.horizontalAdvance(name);
      p.drawText(QRect(x, r.top(), fm.horizontalAdvance(name), th), Qt::AlignVCenter, name);
      x -= fm.height() + 4;
      p.fillRect(QRect(x, r.top() + (th - fm.height()) / 2 + 2, fm.height() - 4, fm.height() - 4),
                 widgets::colors::stepKind(k));
      x -= fm.height();
    }
  }
  p.drawText(QRect(r.left(), plot.top(), left - 6, fm.height()), Qt::AlignRight | Qt::AlignTop, panel.maxLabel);
  p.drawText(QRect(r.left(), plot.bottom() - fm.height(), left - 6, fm.height()), Qt::AlignRight | Qt::AlignBottom,
             QStringLiteral("0"));
  const std::vector<double>& values = *panel.values;
  const int cols = int(values.size());
  // The chunk's steps, at least 6 px wide so that 32 steps of 20,000 still show, with a solid left edge.
  const auto first = std::find(c.inChunk.begin(), c.inChunk.end(), uint8_t(1));
  if (first != c.inChunk.end()) {
    const auto last = std::find(first, c.inChunk.end(), uint8_t(0));
    const int x0 = plot.left() + int(first - c.inChunk.begin()) * plot.width() / cols;
    const int x1 = plot.left() + int(last - c.inChunk.begin()) * plot.width() / cols;
    p.fillRect(QRect(x0, plot.top(), std::max(6, x1 - x0), plot.height()), shade);
    p.fillRect(QRect(x0, plot.top(), 2, plot.height()), panel.chunk);
  }
  for (int k = 0; k < cols; ++k) {
    const int x0 = plot.left() + k * plot.width() / cols;
    const int x1 = std::max(x0 + 1, plot.left() + (k + 1) * plot.width() / cols);
    const int h = int(std::lround(std::clamp(values[size_t(k)] / panel.maxY, 0.0, 1.0) * plot.height()));
    const QColor fill = panel.byKind ? widgets::colors::stepKind(c.kind[size_t(k)]) : widgets::colors::gpuBusy(pal);
    if (h > 0) p.fillRect(QRect(x0, plot.bottom() - h + 1, std::max(1, x1 - x0 - (cols < 200 ? 1 : 0)), h), fill);
  }
  p.setPen(pal.color(QPalette::Mid));
  p.drawRect(plot.adjusted(0, 0, -1, -1));
  if (!xLabels) return;
  p.setPen(text);
  const QRect under(plot.left(), plot.bottom() + 2, plot.width(), th);
  p.drawText(under, Qt::AlignLeft | Qt::AlignVCenter, panel.firstStep);
  p.drawText(under, Qt::AlignHCenter | Qt::AlignVCenter, QObject::tr("steps"));
  p.drawText(under, Qt::AlignRight | Qt::AlignVCenter, panel.lastStep);
}

// The image without the rows at its bottom that repeat its last row (the timeline's empty space below its
// tracks), so the PDF's copy shows the tracks larger.
QImage withoutEmptyBottom(const QImage& img) {
  if (img.isNull()) return img;
  const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
  const int w = rgb.width();
  const auto* last = reinterpret_cast<const QRgb*>(rgb.constScanLine(rgb.height() - 1));
  int y = rgb.height() - 1;
  while (y > 0 && std::equal(last, last + w, reinterpret_cast<const QRgb*>(rgb.constScanLine(y - 1)))) --y;
  return img.copy(0, 0, w, std::min(img.height(), y + 8));
}

QString paragraph(const QString& label, const QString& text) {
  return QStringLiteral("<p style=\"margin:2px 0\"><b>%1</b> %2</p>").arg(esc(label), text);
}

QString chunkTable(const ReportContent& c) {
  QString h = QStringLiteral(
      "<table cellspacing=\"0\" cellpadding=\"3\" border=\"1\" style=\"border-color:#999; "
      "border-collapse:collapse; font-size:7.5pt\"><tr>");
  for (const QString& head : c.tableHeaders)
    h += QStringLiteral("<th align=\"left\" style=\"white-space:nowrap\">%1</th>").arg(esc(head));
  h += QStringLiteral("</tr>");
  for (int r = 0; r < c.tableRows.size(); ++r) {
    h += r == c.selectedRow ? QStringLiteral("<tr style=\"background-color:#ece3f5\">") : QStringLiteral("<tr>");
    for (const QString& cell : c.tableRows[r])
      h += QStringLiteral("<td style=\"white-space:nowrap\">%1</td>")
               .arg(r == c.selectedRow ? QStringLiteral("<b>%1</b>").arg(esc(cell)) : esc(cell));
    h += QStringLiteral("</tr>");
  }
  return h + QStringLiteral("</table>");
}

// Two sentences that differ only in case and the final full stop say the same.
bool sameSentence(QString a, QString b) {
  for (QString* s : {&a, &b}) {
    *s = s->trimmed().toLower();
    if (s->endsWith(QLatin1Char('.'))) s->chop(1);
  }
  return a == b;
}

QString explanationHtml(const ReportContent& c) {
  if (!c.explanation) return paragraph(QObject::tr("Verdict:"), QObject::tr("the gate has not judged this chunk."));
  const widgets::GateExplanation& x = *c.explanation;
  const QColor col = widgets::colors::verdict(x.verdict);
  QString h = QStringLiteral(
                  "<p style=\"margin:4px 0\"><span style=\"font-size:14pt; color:%1\"><b>%2 %3</b></span>"
                  " &nbsp; %4</p>")
                  .arg(col.name(), widgets::colors::verdictIcon(x.verdict),
                       esc(widgets::colors::verdictWord(x.verdict).toUpper()), esc(x.title));
  if (!x.headline.isEmpty()) h += QStringLiteral("<p style=\"margin:2px 0\">%1</p>").arg(esc(x.headline));
  if (!x.summary.isEmpty() && !sameSentence(x.summary, x.headline))
    h += QStringLiteral("<p style=\"margin:2px 0\">%1</p>").arg(esc(x.summary));
  QString rules;
  for (const widgets::GateRule& r : x.rules) {
    if (r.bookkeeping && r.pass) continue;  // finding and reading the chunk: not news when they pass
    const QString mark = r.outcome == QLatin1String("skipped") ? QStringLiteral("–")
                         : r.pass                              ? QStringLiteral("✔")
                                                               : QStringLiteral("✖");
    QString line = mark + QLatin1Char(' ') + esc(r.label.isEmpty() ? r.name : r.label);
    if (!r.measured.isEmpty()) line += QStringLiteral(": ") + esc(r.measured);
    if (!r.limit.isEmpty()) line += QStringLiteral(" (") + esc(r.limit) + QLatin1Char(')');
    // The sentence repeats a passing measurement; it explains a failure or a rule that measures nothing.
    if (!r.sentence.isEmpty() && (!r.pass || r.measured.isEmpty())) line += QStringLiteral(" — ") + esc(r.sentence);
    rules += QStringLiteral("<li>%1</li>").arg(r.deciding ? QStringLiteral("<b>%1</b>").arg(line) : line);
  }
  if (!rules.isEmpty())
    h += QObject::tr("<p style=\"margin:4px 0 0 0\"><b>What the gate checked</b></p><ul style=\"margin:0\">") + rules +
         QStringLiteral("</ul>");
  if (!x.findings.isEmpty()) {
    h += QObject::tr("<p style=\"margin:4px 0 0 0\"><b>Findings</b></p><ul style=\"margin:0\">");
    for (const QString& f : x.findings) h += QStringLiteral("<li>%1</li>").arg(esc(f));
    h += QStringLiteral("</ul>");
  }
  return h;
}

QString reportHtml(const ReportContent& c) {
  QString h = QObject::tr("<h2 style=\"margin:0\">Steady-state report: %1</h2>").arg(esc(c.traceName));
  h += paragraph(QObject::tr("Trace:"),
                 QObject::tr("%1 · %2 MB · %3")
                     .arg(esc(c.tracePath))
                     .arg(double(c.traceBytes) / 1e6, 0, 'f', 1)
                     .arg(widgets::countOf(qint64(c.events), QObject::tr("event"), QObject::tr("events"))));
  h += paragraph(QObject::tr("sha256:"), QStringLiteral("<tt>%1</tt>").arg(esc(c.sha256)));
  h += paragraph(QObject::tr("Split:"), QObject::tr("%1 — <tt>steadyscope-cli split %2</tt>; steps from %3")
                                            .arg(esc(c.resultTitle), esc(c.splitFlags), esc(c.stepsFrom)));
  h += paragraph(QObject::tr("Gate:"), esc(c.gateText));
  h += paragraph(QObject::tr("Chosen chunk:"),
                 QObject::tr("<tt>%1</tt> · busy ratio %2").arg(esc(c.chunkFile), esc(c.busyRatio)));
  h += explanationHtml(c);
  h += QObject::tr("<p style=\"margin:6px 0 2px 0\"><b>Chunks of the split</b> (the chosen one in bold)</p>");
  h += chunkTable(c);
  h += QObject::tr(
      "<p style=\"margin:8px 0 0 0\"><b>Per step</b> (left; the chosen chunk's steps shaded) and "
      "<b>the timeline</b> as shown in the window (right)</p>");
  return h;
}

}  // namespace

QString splitFlags(const analysis::SplitOptions& o) {
  QStringList f;
  if (o.iterations != "all") f << QStringLiteral("--iterations %1").arg(QString::fromStdString(o.iterations));
  if (o.findSteadyState) f << QStringLiteral("--find-steady-state");
  f << QStringLiteral("--num-steps %1").arg(o.numSteps);
  if (o.llmInference) f << QStringLiteral("--llm-inference");
  if (o.dividePhases) f << QStringLiteral("--divide-phases");
  if (o.noGapFill) f << QStringLiteral("--no-gap-fill");
  if (o.allowDegraded) f << QStringLiteral("--allow-degraded");
  for (const std::string& fix : analysis::enabledFixNames(o.fixes))
    f << QStringLiteral("--fix %1").arg(QString::fromStdString(fix));
  return f.join(QLatin1Char(' '));
}

QImage stepChartImage(const timeline::TimelineOverlays& ov, const timeline::TimelineIndex& index, qint64 chunkBeginNs,
                      qint64 chunkEndNs, const QString& mode, QSize size, const QPalette& pal) {
  QImage img(size, QImage::Format_RGB32);
  img.fill(pal.color(QPalette::Base));
  if (ov.steps.empty()) return img;
  QPainter p(&img);
  p.setRenderHint(QPainter::TextAntialiasing);
  QFont font = p.font();
  font.setPixelSize(std::max(11, size.height() / 26));
  p.setFont(font);
  const Columns c = columnsOf(ov, index, chunkBeginNs, chunkEndNs, size.width() - 80);
  const double maxDur = std::max(1e-3, *std::max_element(c.duration.begin(), c.duration.end()));
  const int half = size.height() * 45 / 100;
  Panel dur{QObject::tr("step duration (ms)"), QString::number(maxDur, 'g', 3), &c.duration, maxDur, true, {}, {},
            widgets::colors::chunkMode(mode)};
  paintPanel(p, QRect(0, 0, size.width(), half), c, dur, pal);
  Panel busy{QObject::tr("GPU busy ratio per step"),
             QStringLiteral("1"),
             &c.busy,
             1.0,
             false,
             QString::number(ov.steps.front().index),
             QString::number(ov.steps.back().index),
             widgets::colors::chunkMode(mode)};
  paintPanel(p, QRect(0, half, size.width(), size.height() - half), c, busy, pal);
  return img;
}

QByteArray reportPdf(const ReportContent& c) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter pdf(&buffer);
  pdf.setPageSize(QPageSize(QPageSize::A4));
  pdf.setPageOrientation(QPageLayout::Landscape);
  pdf.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout::Millimeter);
  pdf.setResolution(150);
  pdf.setTitle(QObject::tr("Steady-state report: %1").arg(c.traceName));
  pdf.setCreator(QStringLiteral("Steadyscope %1").arg(c.version));
  const QRect page(QPoint(0, 0), pdf.pageLayout().paintRectPixels(pdf.resolution()).size());
  QTextDocument doc;
  doc.documentLayout()->setPaintDevice(&pdf);
  doc.setDocumentMargin(0);
  QFont font(QStringLiteral("Sans Serif"));
  font.setPointSizeF(8.5);
  doc.setDefaultFont(font);
  doc.setTextWidth(page.width());
  doc.setHtml(reportHtml(c));
  QPainter p(&pdf);
  p.setFont(font);
  const int line = QFontMetrics(font, &pdf).height();
  // The text on top, the two images below it, the footer last; one page whatever the content: a long
  // table or explanation shrinks the text rather than adding a page.
  const int imagesHeight = page.height() * 36 / 100;
  const double room = page.height() - imagesHeight - 2 * line;
  // A table wider than the page (long chunk names do not wrap) shrinks the text too.
  double scale = std::min(1.0, page.width() / std::max(1.0, doc.size().width()));
  if (scale < 1.0) doc.setTextWidth(page.width() / scale);
  if (doc.size().height() * scale > room) {
    scale = room / doc.size().height();
    doc.setTextWidth(page.width() / scale);
  }
  p.save();
  p.scale(scale, scale);
  doc.drawContents(&p);
  p.restore();
  const int top = int(doc.size().height() * scale) + line / 2;
  const int gap = line;
  const int w = (page.width() - gap) / 2;
  const QRect area(0, top, w, page.height() - top - 2 * line);
  auto place = [&p](const QImage& img, QRect box) {
    if (img.isNull()) return;
    const QSize fit = img.size().scaled(box.size(), Qt::KeepAspectRatio);
    const QRect r(box.topLeft(), fit);
    p.drawImage(r, img);
    p.setPen(QColor(0x99, 0x99, 0x99));
    p.drawRect(r.adjusted(0, 0, -1, -1));
  };
  place(c.stepChart, area);
  place(withoutEmptyBottom(c.timeline), area.translated(w + gap, 0));
  p.setPen(QColor(0x55, 0x55, 0x55));
  p.drawText(QRect(0, page.height() - line, page.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
             QObject::tr("Steadyscope %1 · made %2 · %3").arg(c.version, c.generatedAt, c.tracePath));
  p.end();
  return bytes;
}

QString pngPathFor(const QString& pdfPath) {
  if (pdfPath.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
    return pdfPath.left(pdfPath.size() - 4) + QStringLiteral(".png");
  return pdfPath + QStringLiteral(".png");
}

QString writeReportFiles(const QString& pdfPath, const QByteArray& pdf, const QString& pngPath, const QImage& png) {
  QByteArray pngBytes;
  QBuffer buffer(&pngBytes);
  buffer.open(QIODevice::WriteOnly);
  if (!png.save(&buffer, "PNG")) return QObject::tr("%1: the image could not be encoded").arg(pngPath);
  AtomicFileWriter a, b;
  Expected<void> st = a.open(pdfPath.toStdString());
  if (st) st = a.write(std::string_view(pdf.constData(), size_t(pdf.size())));
  if (st) st = a.prepare();
  if (st) st = b.open(pngPath.toStdString());
  if (st) st = b.write(std::string_view(pngBytes.constData(), size_t(pngBytes.size())));
  if (st) st = b.prepare();
  if (st) st = a.publish();
  if (st) st = b.publish();
  return st ? QString() : QString::fromStdString(st.error().describe());
}

}  // namespace steadyscope::app
