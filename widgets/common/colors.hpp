#pragma once
// Colours: Okabe–Ito (colour-blind safe) for step kinds, verdicts and slice
// kinds, chosen against the current palette so light and dark themes both
// read well. Nothing here hard-codes white or black backgrounds.
#include <steadyscope/timeline.hpp>

#include <QColor>
#include <QPalette>

namespace steadyscope::widgets::colors {

bool isDark(const QPalette& p);

QColor stepKind(timeline::StepKind k);
QColor sliceKind(timeline::SliceKind k);
/// A per-name variation of the kind colour (stable hash of the name).
QColor sliceColor(timeline::SliceKind k, uint32_t nameHash);
QColor gpuBusy(const QPalette& p);
QColor idleGap(const QPalette& p);
QColor chunkMode(const QString& mode);
QColor selection(const QPalette& p);
/// Frames of find matches on the timeline: magenta on light, yellow on dark (apart from every slice colour).
QColor findMatch(const QPalette& p);
/// Black or white, whichever reads on `fill`.
QColor textOn(const QColor& fill);

enum class Verdict { Accepted, LowQuality, Refused, Missing };
QColor verdict(Verdict v);
QString verdictWord(Verdict v);
QString verdictIcon(Verdict v);  // a glyph, so a verdict is never told by colour alone

}  // namespace steadyscope::widgets::colors
