#include "panels/details_panel.hpp"
#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

namespace {

class NumItem : public QTableWidgetItem {  // sorts by the raw number
 public:
  NumItem(const QString& text, double v) : QTableWidgetItem(text), v_(v) {
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& o) const override {
    if (auto* n = dynamic_cast<const NumItem*>(&o)) return v_ < n->v_;
    return QTableWidgetItem::operator<(o);
  }

 private:
  double v_;
};
}  // namespace

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedWidget(this);
  text_ = new QTextBrowser(this);
  text_->setObjectName(QStringLiteral("detailsText"));
  text_->setOpenLinks(false);
  rangePage_ = new QWidget(this);
  rangeHeader_ = new QLabel(rangePage_);
  rangeHeader_->setWordWrap(true);
  rangeHeader_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(rangePage_);
  table_->setObjectName(QStringLiteral("rangeStats"));
  table_->setColumnCount(6);
  table_->setHorizontalHeaderLabels({tr("name"), tr("count"), tr("total"), tr("avg"), tr("min"), tr("max")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  // The name takes what the figures leave (they are sized to their text), elided in the middle.
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < 6; ++c) table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  auto* rl = new QVBoxLayout(rangePage_);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(rangeHeader_);
  rl->addWidget(table_);
  stack_->addWidget(text_);
  stack_->addWidget(rangePage_);
  auto* l = new QVBoxLayout(this);
  l->setContentsMargins(2, 2, 2, 2);
  l->addWidget(stack_);
  refresh();
}

void DetailsPanel::setDocument(const TraceDocument& doc) {
  doc_ = doc;
  refresh();
}

void DetailsPanel::setSelectionModel(SelectionModel* model) {
  if (selection_) disconnect(selection_, nullptr, this, nullptr);
  selection_ = model;
  if (model) connect(model, &SelectionModel::changed, this, &DetailsPanel::refresh);
  refresh();
}

QString DetailsPanel::text() const {
  return stack_->currentWidget() == text_ ? text_->toPlainText() : rangeHeader_->text();
}

void DetailsPanel::refresh() {
  range_ = {};
  if (!doc_) {
    stack_->setCurrentWidget(text_);
    text_->setHtml(tr("<p>No trace open.</p>"));
    return;
  }
  if (selection_ && selection_->event() >= 0 && selection_->event() < qint64(doc_.trace->size()))
    showEvent(EventIdx(selection_->event()));
  else if (selection_ && selection_->hasRange())
    showRange(selection_->rangeBegin(), selection_->rangeEnd());
  else if (selection_ && selection_->step() >= 0)
    showStep(selection_->step());
  else if (selection_ && selection_->chunk() >= 0)
    showChunk(selection_->chunk());
  else {
    stack_->setCurrentWidget(text_);
    text_->setHtml(
        tr("<p>Nothing selected.</p><p>Click a slice to see its fields and args; drag on the ruler to "
           "get statistics for a time range; click a step to see its numbers.</p>"));
  }
}

void DetailsPanel::showEvent(EventIdx e) {
  const Trace& t = *doc_.trace;
  stack_->setCurrentWidget(text_);
  QString h = QStringLiteral("<h3>%1</h3><table cellspacing=2>").arg(qs(t.nameOf(e)).toHtmlEscaped());
  auto row = [&h](const QString& k, const QString& v) {
    h += QStringLiteral("<tr><td><i>%1</i></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
  };
  row(tr("category"), qs(t.catOf(e)));
  row(tr("phase"), QString::fromLatin1(phName(t.ph[e])));
  row(tr("start"), QStringLiteral("%1 µs (+%2)")
                       .arg(t.tsUs(e), 0, 'f', 3)
                       .arg(qs(formatDuration(double(t.tsNs[e] - doc_.index->firstNs)))));
  row(tr("duration"), qs(formatDuration(double(t.durNs[e]))));
  row(tr("lane"), qs(t.keyText(t.lanes[t.lane[e]].pid)) + QStringLiteral(" / ") + qs(laneLabel(t, t.lane[e])));
  row(tr("depth"), QString::number(t.depth.empty() ? 0 : t.depth[e]));
  row(tr("event index"), QString::number(e));
  if (t.has(e, ev::HasCorr) && !t.has(e, ev::CorrIsStr)) row(tr("correlation"), QString::number(t.corr[e]));
  if (auto o = doc_.index->linkedEvent(t, e))
    row(isGpuWork(t.classOf(e)) ? tr("launched by") : tr("launches"),
        QStringLiteral("%1 (#%2)").arg(qs(t.nameOf(*o))).arg(*o));
  h += QStringLiteral("</table>");
  EventText reader(t);  // cheap for mapped text; gzip re-inflates one segment (a few ms)
  std::string_view raw;
  if (!reader.read(e, raw)) {
    h += tr("<p><b>Source text</b>: cannot be read — %1</p>").arg(qs(reader.error()).toHtmlEscaped());
    text_->setHtml(h);
    return;
  }
  const QByteArray bytes(raw.data(), qsizetype(raw.size()));
  QJsonParseError err{};
  const QJsonDocument jd = QJsonDocument::fromJson(bytes, &err);
  const QString pretty = err.error == QJsonParseError::NoError ? QString::fromUtf8(jd.toJson(QJsonDocument::Indented))
                                                               : QString::fromUtf8(bytes);
  h += tr("<p><b>Source text</b> (as written in the file)</p><pre>%1</pre>").arg(pretty.left(20000).toHtmlEscaped());
  text_->setHtml(h);
}

void DetailsPanel::showRange(qint64 b, qint64 e) {
  range_ = computeRangeStats(*doc_.trace, *doc_.index, b, e);
  stack_->setCurrentWidget(rangePage_);
  QString head =
      tr("<b>Range</b> %1 – %2 (%3) · %4, each counted for its time inside the range")
          .arg(qs(formatDuration(double(b - doc_.index->firstNs))), qs(formatDuration(double(e - doc_.index->firstNs))),
               qs(formatDuration(double(e - b))), countOf(qint64(range_.sliceCount), tr("slice"), tr("slices")));
  for (const DeviceRangeBusy& d : range_.devices)
    head += tr("<br>GPU %1 busy ratio <b>%2</b> (%3 busy)")
                .arg(qs(doc_.trace->keyText(d.pid)), qs(formatRatio(d.ratio)), qs(formatDuration(double(d.busyNs))));
  if (range_.devices.empty()) head += tr("<br>No GPU activity in this trace.");
  rangeHeader_->setText(head);
  table_->setSortingEnabled(false);
  const int n = int(std::min<size_t>(range_.perName.size(), 5000));
  table_->setRowCount(n);
  for (int r = 0; r < n; ++r) {
    const NameStats& s = range_.perName[size_t(r)];
    auto* name = new QTableWidgetItem(qs(doc_.trace->strings.view(s.name)));
    name->setToolTip(name->text());
    table_->setItem(r, 0, name);
    table_->setItem(r, 1, new NumItem(qs(formatCount(s.count)), double(s.count)));
    table_->setItem(r, 2, new NumItem(qs(formatDuration(double(s.totalNs))), double(s.totalNs)));
    table_->setItem(r, 3, new NumItem(qs(formatDuration(s.avgNs())), s.avgNs()));
    table_->setItem(r, 4, new NumItem(qs(formatDuration(double(s.minNs))), double(s.minNs)));
    table_->setItem(r, 5, new NumItem(qs(formatDuration(double(s.maxNs))), double(s.maxNs)));
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(2, Qt::DescendingOrder);
}

void DetailsPanel::setChunks(QVector<ChunkRow> rows) {
  chunks_ = std::move(rows);
  refresh();
}

void DetailsPanel::showChunk(int c) {
  // The chunk table's figures of the row, then the kernels its steps ran, by GPU time.
  stack_->setCurrentWidget(text_);
  if (c >= chunks_.size()) {
    text_->setHtml(tr("<p>Chunk %1</p>").arg(c));
    return;
  }
  const ChunkRow& r = chunks_[c];
  QString h = tr("<h3>%1 chunk</h3><p>%2</p><table cellspacing=2>").arg(r.mode.toHtmlEscaped(), r.file.toHtmlEscaped());
  auto row = [&h](const QString& k, const QString& v) {
    h += QStringLiteral("<tr><td><i>%1</i></td><td>%2</td></tr>").arg(k, v.toHtmlEscaped());
  };
  auto ratio = [](double v) { return v < 0 ? QStringLiteral("–") : qs(formatRatio(v)); };
  if (r.firstStep >= 0) row(tr("steps"), QStringLiteral("%1–%2").arg(r.firstStep).arg(r.lastStep));
  if (r.endNs > r.beginNs) row(tr("CPU window"), qs(formatDuration(double(r.endNs - r.beginNs))));
  if (r.gpuTimeUs >= 0) row(tr("GPU time (sum of the steps' GPU spans)"), qs(formatDuration(r.gpuTimeUs * 1000.0)));
  if (r.gpuBusyUs >= 0) row(tr("GPU busy time (plain sum)"), qs(formatDuration(r.gpuBusyUs * 1000.0)));
  row(tr("busy (ref): busy time ÷ GPU time"), ratio(r.busyRef));
  row(tr("busy (union): union ÷ GPU time"), ratio(r.busyUnion));
  row(tr("busy (window): busy inside the CPU window ÷ its length"), ratio(r.busyWindow));
  if (r.longestGapNs >= 0) row(tr("longest GPU-idle gap in the window"), qs(formatDuration(double(r.longestGapNs))));
  if (!r.note.isEmpty()) row(tr("note"), r.note);
  h += QStringLiteral("</table>");
  if (!r.busyNote.isEmpty())
    h += tr("<p><b>Why the busy figures differ:</b> %1</p>").arg(r.busyNote.toHtmlEscaped());
  if (doc_.overlays && c < qsizetype(doc_.overlays->chunks.size())) {
    const std::vector<NameStats> top =
        gpuNameStatsInSpans(*doc_.trace, *doc_.index, doc_.overlays->chunks[size_t(c)].gpuSpans);
    if (!top.empty()) {
      h += tr("<p><b>Top kernels by GPU time</b> (inside the steps' GPU spans)</p><table cellspacing=2>");
      for (size_t k = 0; k < std::min<size_t>(top.size(), 10); ++k)
        h += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>× %3</td></tr>")
                 .arg(qs(doc_.trace->strings.view(top[k].name)).toHtmlEscaped(),
                      qs(formatDuration(double(top[k].totalNs))), qs(formatCount(top[k].count)));
      h += QStringLiteral("</table>");
    }
  }
  text_->setHtml(h);
}

void DetailsPanel::showStep(int s) {
  stack_->setCurrentWidget(text_);
  if (!doc_.overlays || size_t(s) >= doc_.overlays->steps.size()) {
    text_->setHtml(tr("<p>Step %1</p>").arg(s));
    return;
  }
  const StepBand& st = doc_.overlays->steps[size_t(s)];
  QString h = tr("<h3>Step %1</h3><p>%2 · %3</p>")
                  .arg(st.index)
                  .arg(QString::fromLatin1(stepKindName(st.kind)))
                  .arg(qs(formatDuration(double(st.endNs - st.beginNs))));
  for (const DeviceIndex& d : doc_.index->devices)
    h += tr("<p>GPU %1 busy ratio %2</p>")
             .arg(qs(doc_.trace->keyText(d.pid)), qs(formatRatio(double(d.busy.busyIn(st.beginNs, st.endNs)) /
                                                                 double(std::max<int64_t>(1, st.endNs - st.beginNs)))));
  text_->setHtml(h);
}

}  // namespace steadyscope::widgets
