#include "timeline/timeline_view.hpp"
#include "common/text.hpp"

#include "common/colors.hpp"

#include <steadyscope/timeline.hpp>

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace steadyscope::widgets {

using namespace steadyscope::timeline;

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent) {
  setSelectionModel(&ownSelection_);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setFrameShape(QFrame::NoFrame);
  setMinimumSize(300, 150);
  buildNameColors();
}

TimelineView::~TimelineView() = default;

void TimelineView::setDocument(const TraceDocument& doc) {
  doc_ = doc;
  overlays_ = doc.overlays;
  groups_.clear();
  if (doc_) {
    groups_ = buildTrackGroups(*doc_.trace, *doc_.index);
    fitLabelWidth();
    auto [first, last] = shownSpan();
    if (last <= first) {
      first = doc_.trace->stats.firstTsNs;
      last = std::max(first + 1000, doc_.trace->stats.lastEndNs);
    }
    view_.setBounds(first, last);
  }
  buildNameColors();
  hoverEvent_ = -1;
  found_.reset();
  flowFrom_ = EventIdx(-1);
  relayout();
  view_.setWidth(contentWidth());
  view_.fitAll();
  verticalScrollBar()->setValue(0);
  viewMoved();
}

void TimelineView::setOverlays(std::shared_ptr<const TimelineOverlays> overlays) {
  overlays_ = std::move(overlays);
  doc_.overlays = overlays_;
  updateScrollBar();  // the chunk bands change the header's height, so the lanes' visible height
  invalidate();
}

std::pair<int64_t, int64_t> TimelineView::shownSpan() const {
  // Fit all fits the lanes shown: the profiler's own span often outlasts every event of the run.
  int64_t first = INT64_MAX, last = INT64_MIN;
  auto take = [&](const Coverage& c) {
    if (c.lastNs() <= c.firstNs()) return;
    first = std::min(first, c.firstNs());
    last = std::max(last, c.lastNs());
  };
  for (const TrackGroup& g : groups_) {
    if (g.bookkeeping) continue;
    if (g.device >= 0) take(doc_.index->devices[size_t(g.device)].busy);
    for (const LaneView& v : g.lanes)
      for (uint32_t l : v.lanes) take(doc_.index->lanes[l].coverage);
  }
  if (last <= first) return {doc_.index->firstNs, doc_.index->lastNs};
  return {std::max(first, doc_.index->firstNs), std::min(last, doc_.index->lastNs)};
}

void TimelineView::fitLabelWidth() {
  // Wide enough for the longest name up to a limit; a longer one is elided, whole in its tooltip.
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics fm(font()), bm(bold);
  int widest = 0;
  for (const TrackGroup& g : groups_) {
    // The text's room is the column less its indent and 4 px; 4 px more for rounding.
    widest = std::max(widest, bm.horizontalAdvance(QStringLiteral("\u25BE ") + qs(g.label)) + 4 + 4 + 4);
    for (const LaneView& v : g.lanes) widest = std::max(widest, fm.horizontalAdvance(qs(v.label)) + 18 + 4 + 4);
  }
  labelWidth_ = std::clamp(widest, kMinLabelWidth, kMaxLabelWidth);
}

void TimelineView::setSelectionModel(SelectionModel* model) {
  if (selection_) disconnect(selection_, nullptr, this, nullptr);
  selection_ = model ? model : &ownSelection_;
  connect(selection_, &SelectionModel::changed, this, [this] { invalidate(); });
  connect(selection_, &SelectionModel::zoomRequested, this, &TimelineView::zoomToRange);
  invalidate();
}

TimeMapper TimelineView::mapper() const { return view_.mapper(); }

int TimelineView::chunkBandHeight() const { return overlays_ ? kChunkBandHeight * overlays_->chunkRowCount() : 0; }
int TimelineView::headerHeight() const { return kRulerHeight + chunkBandHeight() + kAxisHeight; }
int TimelineView::contentWidth() const { return std::max(1, viewport()->width() - labelWidth_); }

void TimelineView::buildNameColors() {
  for (int k = 0; k < 9; ++k)
    for (int s = 0; s < 25; ++s) shadeTable_[k][s] = colors::sliceColor(SliceKind(k), uint32_t(s)).rgb();
  nameShade_.clear();
  if (!doc_) return;
  const StringPool& pool = doc_.trace->strings;
  nameShade_.resize(pool.size());
  for (size_t i = 0; i < pool.size(); ++i) {
    uint32_t h = 2166136261u;  // FNV-1a: stable across runs
    for (unsigned char c : pool.view(StrId(i))) h = (h ^ c) * 16777619u;
    nameShade_[i] = uint8_t(h % 25);
  }
}

void TimelineView::relayout() {
  if (doc_) {
    LayoutParams params;
    params.filter = laneFilter_.toStdString();
    params.showBookkeeping = showBookkeeping_;
    layout_ = layoutTracks(*doc_.index, groups_, params);
  } else
    layout_ = {};
  rowToTrack_.assign(doc_ ? doc_.index->rows.size() : 0, -1);
  for (size_t t = 0; t < layout_.tracks.size(); ++t)
    if (layout_.tracks[t].kind == TrackKind::Slices) rowToTrack_[layout_.tracks[t].row] = int(t);
  updateScrollBar();
}

void TimelineView::updateScrollBar() {
  const int visible = std::max(0, viewport()->height() - headerHeight());
  verticalScrollBar()->setRange(0, std::max(0, layout_.totalHeight - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(16);
}

void TimelineView::invalidate() {
  cacheDirty_ = true;
  viewport()->update();
}

void TimelineView::viewMoved() {
  invalidate();
  emit viewChanged();
}

int TimelineView::viewportYOfTrack(int track) const {
  return headerHeight() + layout_.tracks[size_t(track)].y - verticalScrollBar()->value();
}

int TimelineView::trackIndexAt(int vy) const {
  if (vy < headerHeight()) return -1;
  return layout_.trackAt(vy - headerHeight() + verticalScrollBar()->value());
}

int TimelineView::busyStripY(int device) const {
  for (size_t t = 0; t < layout_.tracks.size(); ++t)
    if (layout_.tracks[t].kind == TrackKind::DeviceBusy && layout_.tracks[t].device == device)
      return viewportYOfTrack(int(t));
  return -1;
}

QRectF TimelineView::eventRect(EventIdx e, const TimeMapper& m) const {
  if (!doc_ || e >= doc_.trace->size()) return {};
  const Trace& tr = *doc_.trace;
  const std::optional<uint32_t> row = doc_.index->rowOf(tr, e);
  if (!row) return {};
  int track = rowToTrack_[*row];
  if (track < 0) {  // a collapsed lane: its strip stands for every row
    const LaneIndex& li = doc_.index->lanes[tr.lane[e]];
    track = rowToTrack_[li.firstRow];
    if (track < 0 || !layout_.tracks[size_t(track)].collapsed) return {};
  }
  const double x0 = labelWidth_ + m.toPx(tr.tsNs[e]);
  const double x1 = labelWidth_ + m.toPx(tr.tsNs[e] + std::max<int64_t>(0, tr.durNs[e]));
  const int y = viewportYOfTrack(track);
  return QRectF(QPointF(x0, y + 1), QPointF(std::max(x1, x0 + 1.0), y + layout_.tracks[size_t(track)].height - 1));
}

std::optional<QPoint> TimelineView::pointOfEvent(EventIdx e) const {
  const QRectF r = eventRect(e, mapper());
  if (r.isEmpty() && r.width() <= 0) return std::nullopt;
  const QPoint c = r.center().toPoint();
  if (c.y() < headerHeight() || c.y() >= viewport()->height()) return std::nullopt;
  return c;
}

qint64 TimelineView::eventAt(QPoint p) const {
  if (!doc_ || p.x() < labelWidth_) return -1;
  const int t = trackIndexAt(p.y());
  if (t < 0 || layout_.tracks[size_t(t)].kind != TrackKind::Slices) return -1;
  return hitTestRow(*doc_.trace, *doc_.index, layout_.tracks[size_t(t)].row, mapper(), p.x() - labelWidth_, 3.0);
}

qint64 TimelineView::stepAt(QPoint p) const {
  if (!overlays_ || p.y() >= kRulerHeight || p.x() < labelWidth_) return -1;
  return overlays_->stepAt(mapper().nsAt(p.x() - labelWidth_));
}

// ------------------------------------------------------------ view actions

void TimelineView::fitAll() {
  view_.fitAll();
  viewMoved();
}

void TimelineView::zoomToRange(qint64 b, qint64 e) {
  if (e <= b) return;
  view_.setWindowAbs(b, e, 0.02);
  viewMoved();
}

void TimelineView::zoomToSelection() {
  if (!doc_ || !selection_) return;
  if (selection_->event() >= 0 && selection_->event() < qint64(doc_.trace->size())) {
    const EventIdx e = EventIdx(selection_->event());
    zoomToRange(doc_.trace->tsNs[e], doc_.trace->tsNs[e] + std::max<int64_t>(doc_.trace->durNs[e], 1000));
  } else if (selection_->hasRange()) {
    zoomToRange(selection_->rangeBegin(), selection_->rangeEnd());
  } else if (overlays_ && selection_->chunk() >= 0 && size_t(selection_->chunk()) < overlays_->chunks.size()) {
    const ChunkBand& c = overlays_->chunks[size_t(selection_->chunk())];
    zoomToRange(c.beginNs, c.endNs);
  } else if (overlays_ && selection_->step() >= 0 && size_t(selection_->step()) < overlays_->steps.size()) {
    const StepBand& s = overlays_->steps[size_t(selection_->step())];
    zoomToRange(s.beginNs, s.endNs);
  } else {
    fitAll();
  }
}

void TimelineView::zoomIn() {
  const QPoint m = viewport()->mapFromGlobal(QCursor::pos());
  const double x = viewport()->rect().contains(m) && m.x() > labelWidth_ ? m.x() - labelWidth_ : contentWidth() / 2.0;
  if (view_.zoomAt(x, 1.5)) viewMoved();
}

void TimelineView::zoomOut() {
  const QPoint m = viewport()->mapFromGlobal(QCursor::pos());
  const double x = viewport()->rect().contains(m) && m.x() > labelWidth_ ? m.x() - labelWidth_ : contentWidth() / 2.0;
  if (view_.zoomAt(x, 1.0 / 1.5)) viewMoved();
}

void TimelineView::panLeft() {
  if (view_.panFraction(-0.15)) viewMoved();
}

void TimelineView::panRight() {
  if (view_.panFraction(0.15)) viewMoved();
}

void TimelineView::revealEvent(qint64 e) {
  if (!doc_ || e < 0 || e >= qint64(doc_.trace->size())) return;
  const Trace& tr = *doc_.trace;
  const EventIdx ev = EventIdx(e);
  // Expand the group holding the event.
  const uint32_t lane = tr.lane[ev];
  for (TrackGroup& g : groups_)
    for (LaneView& v : g.lanes)
      if (std::find(v.lanes.begin(), v.lanes.end(), lane) != v.lanes.end() && (g.collapsed || v.collapsed)) {
        g.collapsed = v.collapsed = false;
        relayout();
      }
  const int64_t ts = tr.tsNs[ev], end = ts + std::max<int64_t>(0, tr.durNs[ev]);
  const TimeMapper m = mapper();
  if (m.toPx(ts) < 0 || m.toPx(end) > m.widthPx() || (m.toPx(end) - m.toPx(ts)) < 3) {
    const double span = std::max<double>(double(end - ts) * 20.0, 10000.0);
    const double mid = double(ts - view_.origin()) + double(end - ts) / 2.0;
    view_.setWindowRel(mid - span / 2, mid + span / 2);
  }
  if (const std::optional<uint32_t> row = doc_.index->rowOf(tr, ev)) {
    const int track = rowToTrack_[*row];
    if (track >= 0) {
      const int y = layout_.tracks[size_t(track)].y;
      const int visible = viewport()->height() - headerHeight();
      if (y < verticalScrollBar()->value() || y > verticalScrollBar()->value() + visible - 20)
        verticalScrollBar()->setValue(y - visible / 3);
    }
  }
  if (selection_) selection_->setEvent(e);
  viewMoved();
}

bool TimelineView::followFlow() {
  if (!doc_ || !selection_ || selection_->event() < 0 || selection_->event() >= qint64(doc_.trace->size()))
    return false;
  const EventIdx e = EventIdx(selection_->event());
  const std::vector<FlowLink> links = flowLinks(*doc_.trace, *doc_.index, e);
  if (links.empty()) return false;
  // Outgoing first (launch -> kernel); back to where we came from when asked again.
  const FlowLink* pick = &links.front();
  for (const FlowLink& l : links)
    if (l.other == flowFrom_) {
      pick = &l;
      break;
    } else if (l.outgoing && !pick->outgoing) {
      pick = &l;
    }
  revealEvent(pick->other);
  flowFrom_ = e;
  return true;
}

void TimelineView::setLaneFilter(const QString& text) {
  if (text == laneFilter_) return;
  laneFilter_ = text;
  relayout();
  verticalScrollBar()->setValue(0);
  invalidate();
}

void TimelineView::setShowBookkeeping(bool show) {
  if (show == showBookkeeping_) return;
  showBookkeeping_ = show;
  relayout();
  invalidate();
}

void TimelineView::setLaneCollapsed(int group, int lane, bool collapsed) {
  if (group < 0 || size_t(group) >= groups_.size() || lane < 0 || size_t(lane) >= groups_[size_t(group)].lanes.size())
    return;
  groups_[size_t(group)].lanes[size_t(lane)].collapsed = collapsed;
  relayout();
  invalidate();
}

void TimelineView::setLanePinned(int group, int lane, bool pinned) {
  if (group < 0 || size_t(group) >= groups_.size() || lane < 0 || size_t(lane) >= groups_[size_t(group)].lanes.size())
    return;
  groups_[size_t(group)].lanes[size_t(lane)].pinned = pinned;
  relayout();
  invalidate();
}

void TimelineView::setFindResults(std::shared_ptr<const FindResults> found) {
  found_ = std::move(found);
  invalidate();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  // Lane names: collapse, pin to the top (Perfetto's track menu).
  const int t = trackIndexAt(e->pos().y());
  if (e->pos().x() >= labelWidth_ || t < 0 || layout_.tracks[size_t(t)].kind != TrackKind::Slices) {
    QAbstractScrollArea::contextMenuEvent(e);
    return;
  }
  const Track tk = layout_.tracks[size_t(t)];
  const LaneView& v = groups_[tk.group].lanes[tk.view];
  QMenu menu(this);
  menu.addAction(v.collapsed ? tr("Expand lane") : tr("Collapse lane"), this,
                 [this, tk, c = v.collapsed] { setLaneCollapsed(int(tk.group), int(tk.view), !c); });
  menu.addAction(v.pinned ? tr("Unpin lane") : tr("Pin lane to the top"), this,
                 [this, tk, p = v.pinned] { setLanePinned(int(tk.group), int(tk.view), !p); });
  menu.exec(e->globalPos());
}

// ------------------------------------------------------------ events

void TimelineView::resizeEvent(QResizeEvent* e) {
  QAbstractScrollArea::resizeEvent(e);
  // Keep the same time window when the width changes.
  const double b = view_.beginRel(), en = view_.endRel();
  view_.setWidth(contentWidth());
  view_.setWindowRel(b, en);
  updateScrollBar();
  invalidate();
}

void TimelineView::scrollContentsBy(int, int) { invalidate(); }

void TimelineView::changeEvent(QEvent* e) {
  if (e->type() == QEvent::PaletteChange || e->type() == QEvent::StyleChange) invalidate();
  QAbstractScrollArea::changeEvent(e);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  const QSize size = viewport()->size();
  const qreal dpr = viewport()->devicePixelRatioF();
  if (cacheDirty_ || cache_.size() != size * dpr) {
    if (cache_.size() != size * dpr) {
      cache_ = QImage(size * dpr, QImage::Format_ARGB32_Premultiplied);
      cache_.setDevicePixelRatio(dpr);
    }
    QPainter cp(&cache_);
    paintBase(cp, size);
    cacheDirty_ = false;
  }
  p.drawImage(0, 0, cache_);
  paintOverlay(p, size);
}

void TimelineView::renderTo(QPainter& p, QSize size) {
  const double oldWidth = view_.widthPx();
  const double b = view_.beginRel(), e = view_.endRel();
  view_.setWidth(std::max(1, size.width() - labelWidth_));
  view_.setWindowRel(b, e);
  paintBase(p, size);
  paintOverlay(p, size);
  view_.setWidth(oldWidth);
  view_.setWindowRel(b, e);
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  if (e->modifiers() & Qt::ShiftModifier) {
    QAbstractScrollArea::wheelEvent(e);
    return;
  }
  const QPointF pos = e->position();
  const QPoint ad = e->angleDelta();
  bool moved = false;
  if (std::abs(ad.x()) > std::abs(ad.y())) {
    moved = view_.panPx(ad.x() / 2.0);
  } else if (ad.y() != 0) {
    const double x = std::max(0.0, pos.x() - labelWidth_);
    moved = view_.zoomAt(x, std::pow(1.25, ad.y() / 120.0));
  }
  if (moved) viewMoved();
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  setFocus(Qt::MouseFocusReason);
  pressPos_ = lastPos_ = e->pos();
  pressButton_ = e->button();
  QToolTip::hideText();
  if (e->pos().x() < labelWidth_ && e->button() == Qt::LeftButton) {
    const int t = trackIndexAt(e->pos().y());
    if (t >= 0 && layout_.tracks[size_t(t)].kind == TrackKind::GroupHeader) {
      TrackGroup& g = groups_[layout_.tracks[size_t(t)].group];
      g.collapsed = !g.collapsed;
      relayout();
      invalidate();
    } else if (t >= 0 && layout_.tracks[size_t(t)].kind == TrackKind::Slices && e->pos().x() < 18) {
      const Track& tk = layout_.tracks[size_t(t)];  // the lane's ▸ / ▾
      if (tk.laneStart) setLaneCollapsed(int(tk.group), int(tk.view), !groups_[tk.group].lanes[tk.view].collapsed);
    }
    drag_ = DragMode::None;
    return;
  }
  if (e->button() == Qt::RightButton || (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)))
    drag_ = DragMode::BoxZoom;
  else if (e->button() == Qt::LeftButton && e->pos().y() < headerHeight())
    drag_ = DragMode::Range;
  else if (e->button() == Qt::LeftButton)
    drag_ = DragMode::Pending;
  else
    drag_ = DragMode::None;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->pos();
  if (drag_ == DragMode::Pending && (pos - pressPos_).manhattanLength() > 3) drag_ = DragMode::Pan;
  if (drag_ == DragMode::Pan) {
    const QPoint d = pos - lastPos_;
    bool moved = view_.panPx(d.x());
    if (d.y() != 0) {
      verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
      moved = true;
    }
    if (moved) viewMoved();
  } else if (drag_ == DragMode::Range || drag_ == DragMode::BoxZoom) {
    viewport()->update();  // overlay only
  } else if (drag_ == DragMode::None) {
    hoverPos_ = pos;
    const qint64 h = eventAt(pos);
    if (h != hoverEvent_) {
      hoverEvent_ = h;
      viewport()->update();
    }
    const QString tip = tooltipAt(pos);
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(e->globalPosition().toPoint(), tip, viewport());
    emit hoverTextChanged(tip);
  }
  lastPos_ = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  const DragMode mode = drag_;
  drag_ = DragMode::None;
  const TimeMapper m = mapper();
  const double xa = std::min(pressPos_.x(), e->pos().x()) - labelWidth_;
  const double xb = std::max(pressPos_.x(), e->pos().x()) - labelWidth_;
  const bool smallDrag = std::abs(e->pos().x() - pressPos_.x()) < 4;
  switch (mode) {
    case DragMode::Pending: {  // a click
      if (selection_) selection_->setEvent(eventAt(e->pos()));
      break;
    }
    case DragMode::Range:
      if (smallDrag) {
        const qint64 s = stepAt(e->pos());
        if (selection_) {
          if (s >= 0)
            selection_->setStep(int(s));
          else if (e->pos().y() >= chunkBandTop() && e->pos().y() < chunkBandTop() + chunkBandHeight() && overlays_) {
            const int64_t t = m.nsAt(e->pos().x() - labelWidth_);
            const int row = (e->pos().y() - chunkBandTop()) / kChunkBandHeight;
            int hit = -1;
            for (size_t c = 0; c < overlays_->chunks.size(); ++c)
              if (overlays_->chunkRow(c) == row && overlays_->chunks[c].beginNs <= t && t < overlays_->chunks[c].endNs)
                hit = int(c);
            selection_->setChunk(hit);
          } else {
            selection_->clearRange();
          }
        }
      } else if (selection_) {
        selection_->setRange(m.nsAt(std::max(0.0, xa)), m.nsAt(xb));
      }
      viewport()->update();
      break;
    case DragMode::BoxZoom:
      if (!smallDrag) zoomToRange(m.nsAt(std::max(0.0, xa)), m.nsAt(xb));
      viewport()->update();
      break;
    default: break;
  }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e) {
  const qint64 s = stepAt(e->pos());
  if (s >= 0 && overlays_) {
    zoomToRange(overlays_->steps[size_t(s)].beginNs, overlays_->steps[size_t(s)].endNs);
    return;
  }
  const qint64 ev = eventAt(e->pos());
  if (ev >= 0) {
    if (selection_) selection_->setEvent(ev);
    zoomToSelection();
  }
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_W: zoomIn(); return;
    case Qt::Key_S: zoomOut(); return;
    case Qt::Key_A: panLeft(); return;
    case Qt::Key_D: panRight(); return;
    case Qt::Key_F: fitAll(); return;
    case Qt::Key_Z: zoomToSelection(); return;
    case Qt::Key_G: followFlow(); return;
    case Qt::Key_Escape:
      if (selection_) selection_->clear();
      return;
    default: break;
  }
  QAbstractScrollArea::keyPressEvent(e);
}

void TimelineView::leaveEvent(QEvent* e) {
  hoverPos_ = {-1, -1};
  if (hoverEvent_ >= 0) {
    hoverEvent_ = -1;
    viewport()->update();
  }
  QAbstractScrollArea::leaveEvent(e);
}

bool TimelineView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip) return true;  // we show tooltips on move
  return QAbstractScrollArea::viewportEvent(e);
}

}  // namespace steadyscope::widgets
