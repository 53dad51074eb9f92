// The timeline's tooltips: an event's name, times and args, a lane's full name.
#include "common/text.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/timeline.hpp>

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

namespace {

QString argsSummary(std::string_view raw) {
  // The "args" object of the raw event text, shortened for a tooltip.
  const size_t k = raw.find("\"args\"");
  if (k == std::string_view::npos) return {};
  std::string_view a = raw.substr(k + 6);
  const size_t open = a.find('{');
  if (open == std::string_view::npos) return {};
  a = a.substr(open);
  int depth = 0;
  size_t end = 0;
  bool inStr = false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char c = a[i];
    if (inStr) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inStr = false;
    } else if (c == '"')
      inStr = true;
    else if (c == '{')
      ++depth;
    else if (c == '}' && --depth == 0) {
      end = i + 1;
      break;
    }
  }
  QString s = qs(a.substr(0, end ? end : a.size()));
  if (s.size() > 300) s = s.left(300) + QStringLiteral(" …");
  return s.toHtmlEscaped();
}
}  // namespace

QString TimelineView::labelTooltip(const Track& track) const {
  // Names are elided to the label column; the tooltip has them whole, and the ids as the trace writes them.
  const Trace& trace = *doc_.trace;
  const TrackGroup& g = groups_[track.group];
  const QString pid = qs(trace.keyText(g.pid)).toHtmlEscaped();
  if (track.kind == TrackKind::GroupHeader) {
    QString t = QStringLiteral("<b>%1</b><br>pid %2").arg(qs(g.label).toHtmlEscaped(), pid);
    if (g.bookkeeping) t += tr("<br>No event of the run here: only its name, or the profiler's own span.");
    return t;
  }
  if (track.kind != TrackKind::Slices) return {};
  const LaneView& v = g.lanes[track.view];
  QStringList tids;
  for (uint32_t l : v.lanes) tids << qs(trace.keyText(trace.lanes[l].tid)).toHtmlEscaped();
  tids.removeDuplicates();
  return QStringLiteral("<b>%1</b><br>pid %2 · tid %3")
      .arg(qs(v.label).toHtmlEscaped(), pid, tids.join(QStringLiteral(", ")));
}

QString TimelineView::tooltipAt(QPoint p) const {
  if (!doc_) return {};
  const Trace& tr = *doc_.trace;
  const TimeMapper m = mapper();
  if (p.y() < kRulerHeight && overlays_) {
    const qint64 s = stepAt(p);
    if (s < 0) return {};
    const StepBand& st = overlays_->steps[size_t(s)];
    QString t = QStringLiteral("<b>step %1</b> · %2<br>duration %3")
                    .arg(st.index)
                    .arg(QString::fromLatin1(stepKindName(st.kind)))
                    .arg(qs(formatDuration(double(st.endNs - st.beginNs))));
    for (const DeviceIndex& d : doc_.index->devices) {
      const double r =
          double(d.busy.busyIn(st.beginNs, st.endNs)) / double(std::max<int64_t>(1, st.endNs - st.beginNs));
      t += QStringLiteral("<br>GPU %1 busy ratio %2").arg(qs(tr.keyText(d.pid)), qs(formatRatio(r)));
    }
    return t;
  }
  const int ti = trackIndexAt(p.y());
  if (ti < 0) return {};
  const Track& track = layout_.tracks[size_t(ti)];
  if (p.x() < labelWidth_) return labelTooltip(track);
  const double x = p.x() - labelWidth_;
  if (track.kind == TrackKind::DeviceBusy) {
    const DeviceIndex& d = doc_.index->devices[size_t(track.device)];
    const int64_t a = m.nsAt(x), b = std::max(a + 1, m.nsAt(x + 1));
    const double r = double(d.busy.busyIn(a, b)) / double(b - a);
    return QStringLiteral("GPU %1 busy %2 over %3 at this column")
        .arg(qs(tr.keyText(d.pid)), qs(formatRatio(r)), qs(formatDuration(double(b - a))));
  }
  if (track.kind != TrackKind::Slices) return {};
  // A fold under the cursor? Rebuild this row's draw list (cheap, one row).
  std::vector<DrawItem> items;
  appendRowDrawList(tr, *doc_.index, track.row, m, lod_, items);
  for (const DrawItem& it : items) {
    if (it.folded && it.count > 1 && x >= it.x0 - 1 && x <= it.x1 + 1) {
      const SliceRow& row = doc_.index->rows[track.row];
      const EventIdx f = row.events[it.first], l = row.events[it.first + it.count - 1];
      const int64_t a = tr.tsNs[f], b = tr.tsNs[l] + std::max<int64_t>(0, tr.durNs[l]);
      const int64_t busy = doc_.index->lanes[track.lane].coverage.busyIn(a, b);
      return QStringLiteral(
                 "<b>%1 events</b> folded (each narrower than %2 px)<br>span %3, busy %4<br>zoom in to see them")
          .arg(qs(formatCount(it.count)))
          .arg(lod_.minSlicePx)
          .arg(qs(formatDuration(double(b - a))), qs(formatDuration(double(busy))));
    }
  }
  const qint64 e = eventAt(p);
  if (e < 0) return {};
  const EventIdx ev = EventIdx(e);
  QString t = QStringLiteral("<b>%1</b><br>category %2<br>start %3 µs (+%4 from trace start)<br>duration %5<br>lane %6")
                  .arg(qs(tr.nameOf(ev)).toHtmlEscaped().left(200), qs(tr.catOf(ev)).toHtmlEscaped())
                  .arg(tr.tsUs(ev), 0, 'f', 3)
                  .arg(qs(formatDuration(double(tr.tsNs[ev] - view_.origin()))))
                  .arg(qs(formatDuration(double(tr.durNs[ev]))), qs(laneLabel(tr, tr.lane[ev])).toHtmlEscaped());
  if (!eventText_ || eventTextOf_ != &tr) {
    eventText_ = std::make_unique<EventText>(tr);
    eventTextOf_ = &tr;
  }
  const QString args = argsSummary((*eventText_)(ev));
  if (!args.isEmpty()) t += QStringLiteral("<br><small>args %1</small>").arg(args);
  return t;
}

}  // namespace steadyscope::widgets
