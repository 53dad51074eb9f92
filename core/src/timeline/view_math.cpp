#include <steadyscope/core/timeline/view_math.hpp>

#include <algorithm>
#include <cmath>

namespace steadyscope::timeline {

TimeMapper::TimeMapper(int64_t origin, double beginRel, double endRel, double widthPx)
    : origin_(origin), begin_(beginRel), width_(std::max(1.0, widthPx)) {
  const double span = std::max(endRel - beginRel, 1e-9);
  pxPerNs_ = width_ / span;
}

int64_t TimeMapper::nsAt(double px) const { return origin_ + std::llround(relAt(px)); }
int64_t TimeMapper::beginNs() const { return origin_ + int64_t(std::floor(begin_)); }
int64_t TimeMapper::endNs() const { return origin_ + int64_t(std::ceil(relAt(width_))); }

void ViewControl::setBounds(int64_t firstNs, int64_t lastNs) {
  origin_ = firstNs;
  boundsSpan_ = std::max(double(lastNs - firstNs), kMinSpanNs);
  fitAll();
}

void ViewControl::setWidth(double px) { width_ = std::max(1.0, px); }

bool ViewControl::setWindowRel(double b, double e) {
  if (!(e > b)) return false;
  double span = std::clamp(e - b, kMinSpanNs, boundsSpan_ * 1.5);
  double centre = (b + e) / 2.0;
  // Keep the centre inside the data (plus the fit-all margin) so the view
  // never drifts into nothing.
  const double margin = boundsSpan_ * 0.02;
  centre = std::clamp(centre, -margin, boundsSpan_ + margin);
  const double nb = centre - span / 2.0, ne = centre + span / 2.0;
  if (nb == begin_ && ne == end_) return false;
  begin_ = nb;
  end_ = ne;
  return true;
}

bool ViewControl::setWindowAbs(int64_t b, int64_t e, double margin) {
  double rb = double(b - origin_), re = double(e - origin_);
  if (re <= rb) re = rb + kMinSpanNs;
  const double m = (re - rb) * margin;
  return setWindowRel(rb - m, re + m);
}

bool ViewControl::fitAll() {
  const double m = boundsSpan_ * 0.01;
  return setWindowRel(-m, boundsSpan_ + m);
}

bool ViewControl::zoomAt(double px, double factor) {
  if (!(factor > 0.0)) return false;
  const double anchor = begin_ + px / width_ * span();
  const double newSpan = std::clamp(span() / factor, kMinSpanNs, boundsSpan_ * 1.5);
  const double s = newSpan / span();
  // b' = a - (a - b) * s keeps the anchor at the same pixel.
  return setWindowRel(anchor - (anchor - begin_) * s, anchor + (end_ - anchor) * s);
}

bool ViewControl::panPx(double dx) {
  const double dt = dx / width_ * span();
  return setWindowRel(begin_ - dt, end_ - dt);
}

bool ViewControl::panFraction(double f) {
  const double dt = f * span();
  return setWindowRel(begin_ + dt, end_ + dt);
}

}  // namespace steadyscope::timeline
