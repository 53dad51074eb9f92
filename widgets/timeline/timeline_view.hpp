#pragma once
// The per-step timeline: a step ruler, chunk bands and a time axis on top;
// below them, per-process groups with a GPU-busy coverage strip per device and
// one track per (lane, depth). Custom QPainter drawing over the core's draw
// lists (core/timeline does the math, this class only paints and routes
// input). The base layer is cached in an image; hover, selection and the
// rubber band are painted over it, so hovering never rebuilds draw lists.
#include "common/selection_model.hpp"
#include "common/trace_document.hpp"

#include <steadyscope/timeline.hpp>

#include <QAbstractScrollArea>
#include <QImage>
#include <QPointer>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace steadyscope::widgets {

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  void setDocument(const TraceDocument& doc);
  const TraceDocument& document() const { return doc_; }
  void setOverlays(std::shared_ptr<const timeline::TimelineOverlays> overlays);
  void setSelectionModel(SelectionModel* model);
  SelectionModel* selectionModel() const { return selection_; }

  timeline::ViewControl& viewControl() { return view_; }
  const timeline::ViewControl& viewControl() const { return view_; }
  timeline::TimeMapper mapper() const;

  // Geometry of the viewport (tests and the benchmark use these).
  int labelWidth() const { return labelWidth_; }
  int headerHeight() const;
  int rulerTop() const { return 0; }
  int rulerHeight() const { return kRulerHeight; }
  int chunkBandTop() const { return kRulerHeight; }
  /// Viewport point at the middle of an event's slice (or nullopt if its
  /// track is scrolled away or collapsed).
  std::optional<QPoint> pointOfEvent(EventIdx e) const;
  /// Viewport y of the busy strip of a device, or -1.
  int busyStripY(int device) const;
  /// The event drawn at a viewport point, or -1.
  qint64 eventAt(QPoint p) const;

  /// The groups and lanes as shown (names, collapsed, pinned).
  const std::vector<timeline::TrackGroup>& trackGroups() const { return groups_; }
  const timeline::TrackLayout& trackLayout() const { return layout_; }
  /// Shows only lanes whose name (or process name) contains `text`, any case.
  void setLaneFilter(const QString& text);
  QString laneFilter() const { return laneFilter_; }
  /// Also shows the processes with no event of the run (names only, the profiler's own span).
  void setShowBookkeeping(bool show);
  bool showsBookkeeping() const { return showBookkeeping_; }
  void setLaneCollapsed(int group, int lane, bool collapsed);
  void setLanePinned(int group, int lane, bool pinned);
  /// Matches to highlight (null: none). Drawn in every visible row, at most one mark per pixel column.
  void setFindResults(std::shared_ptr<const timeline::FindResults> found);
  const std::shared_ptr<const timeline::FindResults>& findResults() const { return found_; }

  /// Renders the full view (base + overlays) with `painter` into a
  /// `size`-sized area; used by paintEvent's cache, screenshots and the
  /// benchmark. Does not touch the cache.
  void renderTo(QPainter& painter, QSize size);

  /// Statistics of the last render (for tests and the benchmark).
  struct FrameStats {
    qint64 items = 0;  // slice + fold draw items
    qint64 folded = 0;
    qint64 tracksDrawn = 0;
  };
  FrameStats lastFrameStats() const { return stats_; }

 public slots:
  void fitAll();
  void zoomToRange(qint64 beginNs, qint64 endNs);
  void zoomToSelection();
  void zoomIn();
  void zoomOut();
  void panLeft();
  void panRight();
  /// Selects `e` and scrolls/zooms so it is visible (find results).
  void revealEvent(qint64 e);
  /// Selects the other end of the selected event's flow (launch <-> kernel,
  /// forward -> backward); false when it has none.
  bool followFlow();

 signals:
  void viewChanged();
  void hoverTextChanged(const QString& text);

 protected:
  void paintEvent(QPaintEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void leaveEvent(QEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;
  void scrollContentsBy(int dx, int dy) override;
  bool viewportEvent(QEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  static constexpr int kRulerHeight = 22;
  static constexpr int kChunkBandHeight = 16;
  static constexpr int kAxisHeight = 20;
  static constexpr int kMinLabelWidth = 210, kMaxLabelWidth = 320;

  enum class DragMode { None, Pending, Pan, Range, BoxZoom };

  void relayout();
  void fitLabelWidth();
  std::pair<int64_t, int64_t> shownSpan() const;  // first and last ns of the lanes but the bookkeeping ones
  void updateScrollBar();
  void invalidate();  // base layer dirty + repaint
  void viewMoved();   // after any view_ mutation
  void buildNameColors();
  int chunkBandHeight() const;
  int contentWidth() const;

  // painting (timeline_paint.cpp)
  void paintBase(QPainter& p, QSize size);
  void paintShades(QPainter& p, const timeline::TimeMapper& m, int width, QRect lanes);
  void paintTracks(QPainter& p, const timeline::TimeMapper& m, QSize size);
  void paintHeader(QPainter& p, const timeline::TimeMapper& m, QSize size);
  void paintSelectedEvent(QPainter& p, const timeline::TimeMapper& m, EventIdx e);
  void paintOverlay(QPainter& p, QSize size);
  void paintSliceTrack(QPainter& p, const timeline::Track& t, int y, const timeline::TimeMapper& m);
  void paintMatchMarks(QPainter& p, const timeline::Track& t, int y, const timeline::TimeMapper& m);
  void paintFlowArrow(QPainter& p, const QRectF& from, const QRectF& to);
  void paintBusyTrack(QPainter& p, const timeline::Track& t, int y, const timeline::TimeMapper& m);
  void paintGpuSpans(QPainter& p, const timeline::Track& t, int y, const timeline::TimeMapper& m);
  void paintRuler(QPainter& p, const timeline::TimeMapper& m, int width);
  void paintChunkBands(QPainter& p, const timeline::TimeMapper& m, int width);
  void paintAxis(QPainter& p, const timeline::TimeMapper& m, int width);
  void paintLabels(QPainter& p, QSize size);
  void paintLaneLabel(QPainter& p, const timeline::Track& tk, int y, int indent);
  QRectF eventRect(EventIdx e, const timeline::TimeMapper& m) const;  // viewport coords, may be empty

  // input helpers
  int trackIndexAt(int viewportY) const;
  int viewportYOfTrack(int track) const;
  QString tooltipAt(QPoint p) const;
  QString labelTooltip(const timeline::Track& track) const;  // the lane or process name in full, with its ids
  qint64 stepAt(QPoint p) const;

  TraceDocument doc_;
  std::shared_ptr<const timeline::TimelineOverlays> overlays_;
  QPointer<SelectionModel> selection_;
  SelectionModel ownSelection_;
  timeline::ViewControl view_;
  std::vector<timeline::TrackGroup> groups_;
  timeline::TrackLayout layout_;
  std::vector<int> rowToTrack_;
  timeline::LodParams lod_;

  // Event text for tooltips, kept across hovers (a gzip reader caches re-inflated segments).
  mutable std::unique_ptr<EventText> eventText_;
  mutable const Trace* eventTextOf_ = nullptr;
  std::vector<uint8_t> nameShade_;         // per StrId: shade 0..24, built once per document
  QRgb shadeTable_[9][25] = {};            // per SliceKind and shade
  std::vector<timeline::DrawItem> items_;  // reused every frame
  std::vector<float> coverage_;
  std::vector<uint8_t> longGap_;
  std::vector<QRectF> rectBatch_;
  std::vector<timeline::MatchMark> marks_;  // reused every frame
  std::shared_ptr<const timeline::FindResults> found_;
  QString laneFilter_;
  bool showBookkeeping_ = false;
  EventIdx flowFrom_ = EventIdx(-1);  // where the last followFlow came from, to go back
  FrameStats stats_;

  QImage cache_;
  bool cacheDirty_ = true;
  int labelWidth_ = 210;

  DragMode drag_ = DragMode::None;
  QPoint pressPos_;
  QPoint lastPos_;
  Qt::MouseButton pressButton_ = Qt::NoButton;
  QPoint hoverPos_{-1, -1};
  qint64 hoverEvent_ = -1;
};

}  // namespace steadyscope::widgets
