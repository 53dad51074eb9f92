#pragma once
// Qt-free view math for the timeline: the visible time window and its mapping
// onto pixels, zoom around an anchor, pan, fit.
//
// Time stays int64 ns in the model. The window is kept as doubles *relative to
// an origin* (the trace's first timestamp), so epoch-based traces (~1.7e18 ns)
// keep sub-ns precision and zoom in/out round trips are exact to ~1e-6 ns
// (style-anchors §5.12).
#include <cstdint>

namespace steadyscope::timeline {

/// Maps absolute ns onto x pixels for one frame. Cheap to copy.
class TimeMapper {
 public:
  TimeMapper() = default;
  TimeMapper(int64_t origin, double beginRel, double endRel, double widthPx);

  double toPx(int64_t absNs) const { return (double(absNs - origin_) - begin_) * pxPerNs_; }
  /// Relative ns (double) at pixel x.
  double relAt(double px) const { return begin_ + px / pxPerNs_; }
  /// Absolute ns at pixel x (rounded).
  int64_t nsAt(double px) const;
  double pxPerNs() const { return pxPerNs_; }
  double nsPerPx() const { return 1.0 / pxPerNs_; }
  double widthPx() const { return width_; }
  int64_t origin() const { return origin_; }
  /// Absolute ns bounds of the visible window (begin floor, end ceil).
  int64_t beginNs() const;
  int64_t endNs() const;

 private:
  int64_t origin_ = 0;
  double begin_ = 0.0;
  double pxPerNs_ = 1.0;
  double width_ = 1.0;
};

/// The zoom / pan state of one timeline. No signals: the widget owns one and
/// repaints when a mutator returns true (it changed something).
class ViewControl {
 public:
  static constexpr double kMinSpanNs = 20.0;

  /// Bounds of the data in absolute ns; resets the window to fit all.
  void setBounds(int64_t firstNs, int64_t lastNs);
  /// Width of the drawing area in px (>= 1).
  void setWidth(double px);

  int64_t origin() const { return origin_; }
  double beginRel() const { return begin_; }
  double endRel() const { return end_; }
  double span() const { return end_ - begin_; }
  double widthPx() const { return width_; }
  int64_t boundsBegin() const { return origin_; }
  int64_t boundsEnd() const { return origin_ + int64_t(boundsSpan_); }
  TimeMapper mapper() const { return TimeMapper(origin_, begin_, end_, width_); }

  /// Sets the window in relative ns, clamped; returns true when it changed.
  bool setWindowRel(double beginRel, double endRel);
  bool setWindowAbs(int64_t beginNs, int64_t endNs, double marginFraction = 0.0);
  bool fitAll();
  /// factor > 1 zooms in, < 1 out; the time under pixel x stays under x.
  bool zoomAt(double px, double factor);
  /// Positive dx moves the content right (shows earlier times).
  bool panPx(double dx);
  bool panFraction(double fractionOfSpan);

 private:
  int64_t origin_ = 0;
  double boundsSpan_ = 1.0;
  double begin_ = 0.0;
  double end_ = 1.0;
  double width_ = 1.0;
};

}  // namespace steadyscope::timeline
