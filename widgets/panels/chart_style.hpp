#pragma once
// How every chart of the window draws its value axes: the palette's text and
// grid colours, labels and title a little smaller than the window's font.
#include <QFont>
#include <QPalette>
#include <QValueAxis>

namespace steadyscope::widgets {

inline void styleValueAxis(QValueAxis* a, const QPalette& pal, const QString& format) {
  a->setLabelFormat(format);
  a->setLabelsColor(pal.color(QPalette::Text));
  a->setTitleBrush(pal.color(QPalette::Text));
  a->setGridLineColor(pal.color(QPalette::Mid));
  QFont f = a->labelsFont();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  a->setLabelsFont(f);
  a->setTitleFont(f);
}

}  // namespace steadyscope::widgets
