// Painting of TimelineView: the base layer (tracks, busy strips, ruler, axis,
// labels) and the overlay pass (range, selection, hover, link arrow, rubber
// band). Work per frame is bounded by the pixels, not by the events: draw
// lists come from core/timeline (LOD folding), busy strips are one run per
// change of coverage height, and no container grows per event.
#include "common/colors.hpp"
#include "common/text.hpp"
#include "timeline/timeline_view.hpp"

#include <steadyscope/timeline.hpp>

#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

namespace {

QColor blend(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                          float(a.blueF() * (1 - t) + b.blueF() * t));
}
}  // namespace

void TimelineView::paintBase(QPainter& p, QSize size) {
  stats_ = {};
  const QPalette& pal = palette();
  p.fillRect(QRect(QPoint(0, 0), size), pal.color(QPalette::Base));
  if (!doc_) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("No trace open"));
    return;
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  const TimeMapper m = mapper();
  const int width = size.width() - labelWidth_;
  const int top = headerHeight();
  // Tracks, clipped to the lanes area.
  p.save();
  p.setClipRect(QRect(labelWidth_, top, width, size.height() - top));
  p.translate(labelWidth_, 0);
  paintShades(p, m, width, QRect(0, top, width, size.height() - top));
  paintTracks(p, m, size);
  p.restore();
  paintLabels(p, size);
  paintHeader(p, m, size);
}

void TimelineView::paintShades(QPainter& p, const TimeMapper& m, int width, QRect lanes) {
  // Steady-state regions and the selected chunk, shaded behind the tracks.
  if (!overlays_) return;
  auto shadeSpan = [&](int64_t b, int64_t e, const QColor& c) {
    const double x0 = std::max(-10.0, m.toPx(b)), x1 = std::min(width + 10.0, m.toPx(e));
    if (x1 > x0) p.fillRect(QRectF(x0, lanes.top(), x1 - x0, lanes.height()), c);
  };
  QColor shade = palette().color(QPalette::Text);
  shade.setAlpha(14);
  for (const RegionBand& r : overlays_->steadyRegions) shadeSpan(r.beginNs, r.endNs, shade);
  if (selection_ && selection_->chunk() >= 0 && size_t(selection_->chunk()) < overlays_->chunks.size()) {
    const ChunkBand& c = overlays_->chunks[size_t(selection_->chunk())];
    QColor cc = colors::chunkMode(qs(c.mode));
    cc.setAlpha(18);
    shadeSpan(c.beginNs, c.endNs, cc);
  }
  if (selection_) {  // steps a finding points at
    QColor mark = colors::idleGap(palette());
    mark.setAlpha(40);
    for (int pos : selection_->markedSteps())
      if (pos >= 0 && size_t(pos) < overlays_->steps.size()) {
        const StepBand& st = overlays_->steps[size_t(pos)];
        const double x0 = m.toPx(st.beginNs), x1 = m.toPx(st.endNs);
        if (x1 >= -2 && x0 <= width + 2)
          p.fillRect(QRectF(x0, lanes.top(), std::max(2.0, x1 - x0), lanes.height()), mark);
      }
  }
}

void TimelineView::paintTracks(QPainter& p, const TimeMapper& m, QSize size) {
  const int width = size.width() - labelWidth_;
  const int top = headerHeight();
  const int scroll = verticalScrollBar()->value();
  const int firstY = scroll, lastY = scroll + size.height() - top;
  int t = std::max(0, layout_.trackAt(firstY));
  if (layout_.trackAt(firstY) < 0) {
    // firstY falls in a gap: find the first track below it.
    t = int(std::upper_bound(layout_.tracks.begin(), layout_.tracks.end(), firstY,
                             [](int v, const Track& tr) { return v < tr.y; }) -
            layout_.tracks.begin());
    if (t > 0 && layout_.tracks[size_t(t - 1)].y + layout_.tracks[size_t(t - 1)].height > firstY) --t;
  }
  for (; size_t(t) < layout_.tracks.size(); ++t) {
    const Track& tk = layout_.tracks[size_t(t)];
    if (tk.y >= lastY) break;
    const int y = top + tk.y - scroll;
    ++stats_.tracksDrawn;
    switch (tk.kind) {
      case TrackKind::GroupHeader:
        p.fillRect(QRect(-labelWidth_, y, width + labelWidth_, tk.height), palette().color(QPalette::AlternateBase));
        break;
      case TrackKind::DeviceBusy: paintBusyTrack(p, tk, y, m); break;
      case TrackKind::Slices: paintSliceTrack(p, tk, y, m); break;
    }
  }
}

void TimelineView::paintHeader(QPainter& p, const TimeMapper& m, QSize size) {
  // Ruler, chunk bands, axis (not scrolled), and their labels on the left.
  const QPalette& pal = palette();
  const int width = size.width() - labelWidth_;
  const int top = headerHeight();
  p.fillRect(QRect(0, 0, size.width(), top), pal.color(QPalette::Window));
  p.save();
  p.setClipRect(QRect(labelWidth_, 0, width, top));
  p.translate(labelWidth_, 0);
  paintRuler(p, m, width);
  paintChunkBands(p, m, width);
  paintAxis(p, m, width);
  p.restore();
  p.setPen(pal.color(QPalette::WindowText));
  QFont f = p.font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  p.setFont(f);
  p.drawText(QRect(6, 0, labelWidth_ - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("steps"));
  if (chunkBandHeight())
    p.drawText(QRect(6, chunkBandTop(), labelWidth_ - 8, kChunkBandHeight), Qt::AlignVCenter | Qt::AlignLeft,
               tr("chunks"));
  p.drawText(QRect(6, kRulerHeight + chunkBandHeight(), labelWidth_ - 8, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
             qs(formatDuration(m.nsPerPx() * width)) + tr(" shown"));
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(0, top - 1, size.width(), top - 1);
  p.drawLine(labelWidth_ - 1, 0, labelWidth_ - 1, size.height());
}

void TimelineView::paintSliceTrack(QPainter& p, const Track& tk, int y, const TimeMapper& m) {
  const Trace& tr = *doc_.trace;
  const TimelineIndex& ix = *doc_.index;
  items_.clear();
  appendRowDrawList(tr, ix, tk.row, m, lod_, items_);
  stats_.items += qint64(items_.size());
  const SliceRow& row = ix.rows[tk.row];
  const int h = tk.height - 1;
  const QFontMetrics fm = p.fontMetrics();
  // While a find is on, what does not match fades so the matches stand out (their marks come last).
  const bool fade = found_ && !found_->empty();
  const QColor base = palette().color(QPalette::Base);
  for (const DrawItem& it : items_) {
    const EventIdx e = row.events[it.first];
    const SliceKind kind = ix.kindOf(tr, e);
    if (it.folded) {
      ++stats_.folded;
      // Density mark: the kind colour, darker when many events are folded.
      QColor c = colors::sliceKind(kind);
      if (it.count > 1) c = c.darker(110 + std::min<int>(60, int(std::log2(double(it.count)) * 8)));
      if (fade) c = blend(c, base, 0.75);
      p.fillRect(QRectF(it.x0, y + 1, std::max(1.0f, it.x1 - it.x0), h - 1), c);
      continue;
    }
    QColor c = QColor::fromRgb(shadeTable_[int(kind)][nameShade_.empty() ? 0 : nameShade_[tr.name[e]]]);
    if (fade && !found_->matches(tr, e)) c = blend(c, base, 0.75);
    const QRectF r(it.x0, y + 1, it.x1 - it.x0, h - 1);
    p.fillRect(r, c);
    if (tk.collapsed) continue;  // a thin strip: no room for names
    // Label the visible part of the slice (long slices start off-screen).
    const QRectF vis(std::max(r.left(), 0.0), r.top(), std::min(r.right(), m.widthPx()) - std::max(r.left(), 0.0),
                     r.height());
    if (vis.width() > 36) {
      p.setPen(colors::textOn(c));
      const QString name =
          QString::fromUtf8(tr.nameOf(e).data(), qsizetype(std::min<size_t>(tr.nameOf(e).size(), 256)));
      p.drawText(vis.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(name, Qt::ElideRight, int(vis.width()) - 5));
    }
  }
  if (found_) paintMatchMarks(p, tk, y, m);
}

void TimelineView::paintMatchMarks(QPainter& p, const Track& tk, int y, const TimeMapper& m) {
  // Every match in view: a bar above and below it in the highlight colour, one per pixel column at most.
  marks_.clear();
  appendRowMatchMarks(*doc_.index, *found_, tk.row, m, marks_);
  if (marks_.empty()) return;
  const QColor c = colors::findMatch(palette());
  const int h = tk.height;
  for (const MatchMark& mk : marks_) {  // a frame: top and bottom bars, sides when wide enough
    const double w = std::max(1.0f, mk.x1 - mk.x0);
    p.fillRect(QRectF(mk.x0, y, w, 2), c);
    if (tk.collapsed) continue;
    p.fillRect(QRectF(mk.x0, y + h - 2, w, 2), c);
    if (w >= 6) {
      p.fillRect(QRectF(mk.x0, y, 2, h), c);
      p.fillRect(QRectF(mk.x0 + w - 2, y, 2, h), c);
    }
  }
  stats_.items += qint64(marks_.size());
}

void TimelineView::paintBusyTrack(QPainter& p, const Track& tk, int y, const TimeMapper& m) {
  const DeviceIndex& d = doc_.index->devices[size_t(tk.device)];
  const int width = int(std::ceil(m.widthPx()));
  // Idle gaps of 0.5 ms or more are hatched once a pixel column spans more
  // than half of that, so they stay visible when zoomed out (inside one column
  // they would only lower its busy fraction).
  const int64_t gapNs = 500000;
  coverageColumns(d.busy, m, width, gapNs, coverage_, longGap_);
  const QPalette& pal = palette();
  const QColor busy = colors::gpuBusy(pal);
  QColor track = pal.color(QPalette::Text);
  track.setAlpha(18);
  const int h = tk.height - 3;
  p.fillRect(QRect(0, y + 1, width, h), track);
  // Run-length: one rect per run of equal bar height.
  int x = 0;
  while (x < width) {
    const int bh = int(std::lround(coverage_[size_t(x)] * h));
    int x2 = x + 1;
    while (x2 < width && int(std::lround(coverage_[size_t(x2)] * h)) == bh) ++x2;
    if (bh > 0) p.fillRect(QRect(x, y + 1 + h - bh, x2 - x, bh), busy);
    x = x2;
  }
  // Hatch columns that hide an idle gap longer than the threshold.
  const QColor idle = colors::idleGap(pal);
  x = 0;
  while (x < width) {
    if (!longGap_[size_t(x)]) {
      ++x;
      continue;
    }
    int x2 = x + 1;
    while (x2 < width && longGap_[size_t(x2)]) ++x2;
    p.fillRect(QRect(x, y + 1, std::max(2, x2 - x), 4), idle);
    x = x2;
  }
  paintGpuSpans(p, tk, y, m);
}

void TimelineView::paintGpuSpans(QPainter& p, const Track& tk, int y, const TimeMapper& m) {
  // The selected chunk's steps' GPU spans on this device: what GPU time sums, beside the CPU window's shade.
  if (!selection_ || !overlays_ || selection_->chunk() < 0 || size_t(selection_->chunk()) >= overlays_->chunks.size())
    return;
  const ChunkBand& c = overlays_->chunks[size_t(selection_->chunk())];
  // Brackets in the text colour: they read over the busy bars in both themes.
  const QColor col = palette().color(QPalette::WindowText);
  const int width = int(std::ceil(m.widthPx()));
  const int bottom = y + tk.height - 3;
  for (const GpuSpan& s : c.gpuSpans) {
    if (s.device != tk.device) continue;
    const double x0 = m.toPx(s.beginNs), x1 = m.toPx(s.endNs);
    if (x1 < 0 || x0 > width) continue;
    p.fillRect(QRectF(x0, bottom - 2, std::max(1.0, x1 - x0), 2), col);
    if (x1 - x0 >= 6) {  // ends drawn so neighbouring spans stay apart
      p.fillRect(QRectF(x0, y + 2, 1.5, bottom - y - 2), col);
      p.fillRect(QRectF(x1 - 1.5, y + 2, 1.5, bottom - y - 2), col);
    }
  }
}

void TimelineView::paintRuler(QPainter& p, const TimeMapper& m, int width) {
  const QPalette& pal = palette();
  if (!overlays_ || overlays_->steps.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(6, 0, width - 12, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
               tr("Steps appear here after a split (Split ▸ Run split)"));
    return;
  }
  const auto& steps = overlays_->steps;
  size_t i = overlays_->firstStepEndingAfter(m.beginNs());
  const int h = kRulerHeight - 4;
  QFont f = p.font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  p.setFont(f);
  while (i < steps.size() && steps[i].beginNs <= m.endNs()) {
    const StepBand& s = steps[i];
    const double x0 = std::max(-2.0, m.toPx(s.beginNs)), x1 = std::min(width + 2.0, m.toPx(s.endNs));
    QColor c = colors::stepKind(s.kind);
    if (selection_ && selection_->step() == int(i)) c = c.darker(150);
    if (x1 - x0 >= 3.0) {
      p.fillRect(QRectF(x0 + 0.5, 2, x1 - x0 - 1.0, h), c);
      if (x1 - x0 > 40) {
        p.setPen(colors::textOn(c));
        p.drawText(QRectF(x0 + 3, 2, x1 - x0 - 5, h), Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(
                       QStringLiteral("%1 %2").arg(s.index).arg(QString::fromLatin1(stepKindName(s.kind))),
                       Qt::ElideRight, int(x1 - x0) - 5));
      } else if (x1 - x0 > 14) {
        p.setPen(colors::textOn(c));
        p.drawText(QRectF(x0 + 1, 2, x1 - x0 - 2, h), Qt::AlignCenter, QString::number(s.index));
      }
      ++i;
    } else {
      // Sub-pixel steps: one mark per pixel column in the colour of its first
      // step, then jump past the column (bounded by the width).
      const double col = std::floor(x0);
      p.fillRect(QRectF(col, 2, 1.0, h), c);
      const int64_t next = m.nsAt(col + 1.0);
      i = std::max(i + 1, overlays_->firstStepEndingAfter(next));
      if (i < steps.size() && steps[i].beginNs < next) ++i;
    }
  }
  if (!selection_) return;
  p.setPen(QPen(colors::idleGap(palette()), 2));
  for (int pos : selection_->markedSteps())  // a finding's steps: outlined, at least 4 px wide
    if (pos >= 0 && size_t(pos) < steps.size()) {
      const double x0 = m.toPx(steps[size_t(pos)].beginNs), x1 = m.toPx(steps[size_t(pos)].endNs);
      if (x1 < -4 || x0 > width + 4) continue;
      const double w = std::max(4.0, x1 - x0);
      p.drawRect(QRectF((x0 + x1 - w) / 2, 1, w, h + 2));
    }
}

void TimelineView::paintChunkBands(QPainter& p, const TimeMapper& m, int width) {
  if (!chunkBandHeight()) return;
  for (size_t c = 0; c < overlays_->chunks.size(); ++c) {
    const ChunkBand& ch = overlays_->chunks[c];
    const int top = chunkBandTop() + kChunkBandHeight * overlays_->chunkRow(c);  // one row per mode
    const double x0 = std::max(-2.0, m.toPx(ch.beginNs)), x1 = std::min(width + 2.0, m.toPx(ch.endNs));
    if (x1 < 0 || x0 > width) continue;
    QColor col = colors::chunkMode(qs(ch.mode));
    const bool sel = selection_ && selection_->chunk() == int(c);
    const QRectF r(x0, top + 2, std::max(2.0, x1 - x0), kChunkBandHeight - 4);
    p.fillRect(r, sel ? col : blend(col, palette().color(QPalette::Window), 0.45));
    if (sel) {
      p.setPen(QPen(palette().color(QPalette::WindowText), 2));
      p.drawRect(r);
    }
    p.setPen(colors::textOn(col));
    p.drawText(
        r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
        p.fontMetrics().elidedText(qs(ch.label.empty() ? ch.mode : ch.label), Qt::ElideRight, int(r.width()) - 4));
  }
}

void TimelineView::paintAxis(QPainter& p, const TimeMapper& m, int width) {
  const int top = kRulerHeight + chunkBandHeight();
  const QPalette& pal = palette();
  const double step = niceTickStep(m.nsPerPx(), 110.0);
  const double firstRel = std::floor(m.relAt(0) / step) * step;
  p.setPen(pal.color(QPalette::WindowText));
  const QFontMetrics fm = p.fontMetrics();
  int legendWidth = 0;  // the step kinds' legend, right-aligned over the axis: labels stop short of it
  if (overlays_ && !overlays_->steps.empty()) {
    legendWidth = 8;
    for (int k = 0; k < kStepKindCount; ++k)
      legendWidth += 14 + fm.horizontalAdvance(QString::fromLatin1(stepKindName(StepKind(k)))) + 10;
  }
  for (double rel = firstRel;; rel += step) {
    const double x = (rel - m.relAt(0)) * m.pxPerNs();
    if (x > width) break;
    if (x < -1) continue;
    p.drawLine(QPointF(x, top + kAxisHeight - 6), QPointF(x, top + kAxisHeight - 1));
    const QString label = qs(formatTick(rel, step));
    if (x + 3 + fm.horizontalAdvance(label) > width - legendWidth) continue;  // would be cut: the tick alone
    p.drawText(QRectF(x + 3, top, 120, kAxisHeight - 2), Qt::AlignVCenter | Qt::AlignLeft, label);
  }
  // Legend of the step kinds (colour + word), right-aligned over the axis.
  if (legendWidth > 0) {
    int x = width - legendWidth;
    p.fillRect(QRect(x, top + 1, legendWidth, kAxisHeight - 2), pal.color(QPalette::Window));
    x += 6;
    for (int k = 0; k < kStepKindCount; ++k) {
      const QString word = QString::fromLatin1(stepKindName(StepKind(k)));
      p.fillRect(QRect(x, top + kAxisHeight / 2 - 5, 10, 10), colors::stepKind(StepKind(k)));
      p.setPen(pal.color(QPalette::WindowText));
      p.drawText(QRect(x + 14, top, fm.horizontalAdvance(word) + 4, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 word);
      x += 14 + fm.horizontalAdvance(word) + 10;
    }
  }
}

void TimelineView::paintLabels(QPainter& p, QSize size) {
  const QPalette& pal = palette();
  const int top = headerHeight();
  const int scroll = verticalScrollBar()->value();
  p.save();
  p.setClipRect(QRect(0, top, labelWidth_, size.height() - top));
  p.fillRect(QRect(0, top, labelWidth_, size.height() - top), pal.color(QPalette::Window));
  const QFontMetrics fm = p.fontMetrics();
  const int lastY = scroll + size.height() - top;
  for (const Track& tk : layout_.tracks) {
    if (tk.y + tk.height < scroll) continue;
    if (tk.y >= lastY) break;
    const int y = top + tk.y - scroll;
    QString text;
    QColor fg = pal.color(QPalette::WindowText);
    int indent = 18;
    switch (tk.kind) {
      case TrackKind::GroupHeader: {
        const TrackGroup& g = groups_[tk.group];
        p.fillRect(QRect(0, y, labelWidth_, tk.height), pal.color(QPalette::AlternateBase));
        // A process known by its name only has nothing to fold: no triangle, and it says so.
        if (g.lanes.empty() && g.device < 0)
          text = tr("%1 (no events)").arg(qs(g.label));
        else
          text = (g.collapsed ? QStringLiteral("\u25B8 ") : QStringLiteral("\u25BE ")) + qs(g.label);
        indent = 4;
        QFont bf = p.font();
        bf.setBold(true);
        p.setFont(bf);
        p.setPen(fg);
        p.drawText(QRect(indent, y, labelWidth_ - indent - 4, tk.height), Qt::AlignVCenter | Qt::AlignLeft,
                   QFontMetrics(bf).elidedText(text, Qt::ElideRight, labelWidth_ - indent - 4));
        bf.setBold(false);
        p.setFont(bf);
        continue;
      }
      case TrackKind::DeviceBusy:
        text = tr("GPU busy (%1)")
                   .arg(qs(formatRatio(doc_.index->devices[size_t(tk.device)].busy.totalBusy() /
                                       std::max(1.0, double(doc_.index->devices[size_t(tk.device)].busy.lastNs() -
                                                            doc_.index->devices[size_t(tk.device)].busy.firstNs())))));
        fg = colors::gpuBusy(pal);
        indent = 10;
        break;
      case TrackKind::Slices:
        if (tk.laneStart) paintLaneLabel(p, tk, y, indent);
        continue;
    }
    p.setPen(fg);
    p.drawText(QRect(indent, y, labelWidth_ - indent - 4, std::max(tk.height, 16)), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(text, Qt::ElideRight, labelWidth_ - indent - 4));
  }
  p.restore();
}

void TimelineView::paintLaneLabel(QPainter& p, const Track& tk, int y, int indent) {
  // The lane's ▸ / ▾ and its name; a collapsed lane's name in a small font that fits its strip.
  const QPalette& pal = palette();
  const LaneView& v = groups_[tk.group].lanes[tk.view];
  const QString text = (v.pinned ? QStringLiteral("\u2191 ") : QString()) + qs(v.label);
  p.save();
  QFont sf = p.font();
  if (tk.collapsed) sf.setPixelSize(9);
  p.setFont(sf);
  const int lh = tk.collapsed ? tk.height + 2 : std::max(tk.height, 16);
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(4, y, 14, lh), Qt::AlignVCenter | Qt::AlignLeft,
             v.collapsed ? QStringLiteral("\u25B8") : QStringLiteral("\u25BE"));
  p.setPen(pal.color(QPalette::WindowText));
  p.drawText(QRect(indent, y, labelWidth_ - indent - 4, lh), Qt::AlignVCenter | Qt::AlignLeft,
             QFontMetrics(sf).elidedText(text, Qt::ElideRight, labelWidth_ - indent - 4));
  p.restore();
}

void TimelineView::paintSelectedEvent(QPainter& p, const TimeMapper& m, EventIdx e) {
  // The selected event outlined, and every flow of it as an arrow (launch -> kernel, forward -> backward, ...).
  const QRectF r = eventRect(e, m);
  const QColor sc = colors::selection(palette());
  if (!r.isNull()) {
    p.setPen(QPen(sc, 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(-1, -1, 1, 1));
  }
  if (r.isNull()) return;
  for (const FlowLink& l : flowLinks(*doc_.trace, *doc_.index, e)) {
    const QRectF o = eventRect(l.other, m);
    if (o.isNull()) continue;
    if (l.outgoing)
      paintFlowArrow(p, r, o);
    else
      paintFlowArrow(p, o, r);
    p.setPen(QPen(sc, 2));
    p.drawRect(o.adjusted(-1, -1, 1, 1));
  }
}

void TimelineView::paintFlowArrow(QPainter& p, const QRectF& from, const QRectF& to) {
  const QColor sc = colors::selection(palette());
  const QPointF a(from.left(), from.center().y()), b(to.left(), to.center().y());
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(sc, 1.5));
  p.setBrush(Qt::NoBrush);
  QPainterPath path(a);
  path.cubicTo(a + QPointF(30, 0), b - QPointF(30, 0), b);
  p.drawPath(path);
  const QPointF d(b.x() - 7, b.y() - 4), d2(b.x() - 7, b.y() + 4);  // the head at the flow's end
  p.setBrush(sc);
  p.drawPolygon(QPolygonF({b, d, d2}));
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setBrush(Qt::NoBrush);
}

void TimelineView::paintOverlay(QPainter& p, QSize size) {
  if (!doc_) return;
  const QPalette& pal = palette();
  const TimeMapper m = mapper();
  const int top = headerHeight();
  const int width = size.width() - labelWidth_;
  p.save();
  p.setClipRect(QRect(labelWidth_, 0, width, size.height()));
  // Selected time range: shaded over everything, edges drawn.
  if (selection_ && selection_->hasRange()) {
    const double x0 = labelWidth_ + m.toPx(selection_->rangeBegin());
    const double x1 = labelWidth_ + m.toPx(selection_->rangeEnd());
    QColor c = colors::selection(pal);
    c.setAlpha(40);
    p.fillRect(QRectF(x0, 0, x1 - x0, size.height()), c);
    p.setPen(QPen(colors::selection(pal), 1));
    p.drawLine(QPointF(x0, 0), QPointF(x0, size.height()));
    p.drawLine(QPointF(x1, 0), QPointF(x1, size.height()));
    p.drawText(QRectF(x0 + 4, top + 2, std::max(80.0, x1 - x0), 16), Qt::AlignLeft | Qt::AlignTop,
               qs(formatDuration(double(selection_->rangeEnd() - selection_->rangeBegin()))));
  }
  p.setClipRect(QRect(labelWidth_, top, width, size.height() - top));
  // Hover outline.
  if (hoverEvent_ >= 0) {
    const QRectF r = eventRect(EventIdx(hoverEvent_), m);
    if (!r.isNull()) {
      p.setPen(QPen(pal.color(QPalette::Text), 1));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r.adjusted(0, 0, -1, -1));
    }
  }
  if (selection_ && selection_->event() >= 0 && selection_->event() < qint64(doc_.trace->size()))
    paintSelectedEvent(p, m, EventIdx(selection_->event()));
  p.restore();
  // Rubber bands while dragging.
  if (drag_ == DragMode::Range || drag_ == DragMode::BoxZoom) {
    const int x0 = std::max(labelWidth_, std::min(pressPos_.x(), lastPos_.x()));
    const int x1 = std::max(pressPos_.x(), lastPos_.x());
    QColor c = colors::selection(pal);
    c.setAlpha(drag_ == DragMode::BoxZoom ? 60 : 40);
    p.fillRect(QRect(x0, drag_ == DragMode::BoxZoom ? top : 0, x1 - x0, size.height()), c);
  }
}

}  // namespace steadyscope::widgets
