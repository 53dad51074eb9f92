#include "common/colors.hpp"

#include <steadyscope/common.hpp>

namespace steadyscope::widgets::colors {

namespace {
// Okabe & Ito, "Color Universal Design".
const QColor kOrange(0xE6, 0x9F, 0x00);
const QColor kSkyBlue(0x56, 0xB4, 0xE9);
const QColor kGreen(0x00, 0x9E, 0x73);
const QColor kYellow(0xF0, 0xE4, 0x42);
const QColor kBlue(0x00, 0x72, 0xB2);
const QColor kVermillion(0xD5, 0x5E, 0x00);
const QColor kPurple(0xCC, 0x79, 0xA7);
const QColor kGrey(0x99, 0x99, 0x99);
}  // namespace

bool isDark(const QPalette& p) { return p.color(QPalette::Base).lightness() < 128; }

QColor stepKind(timeline::StepKind k) {
  switch (k) {
    case timeline::StepKind::DecodeOnly: return kSkyBlue;
    case timeline::StepKind::PrefillDecode: return kOrange;
    case timeline::StepKind::PrefillOnly: return kVermillion;
    case timeline::StepKind::Generic: return kGreen;
  }
  return kGrey;
}

QColor sliceKind(timeline::SliceKind k) {
  using timeline::SliceKind;
  switch (k) {
    case SliceKind::Kernel: return kBlue;
    case SliceKind::Memcpy: return kPurple;
    case SliceKind::Memset: return kYellow;
    case SliceKind::GpuAnnotation: return kGreen;
    case SliceKind::Annotation: return kGreen;
    case SliceKind::CpuOp: return kOrange;
    case SliceKind::Runtime: return kVermillion;
    case SliceKind::Python: return kGrey;
    case SliceKind::Other: return kGrey;
  }
  return kGrey;
}

QColor sliceColor(timeline::SliceKind k, uint32_t h) {
  QColor c = sliceKind(k);
  // Vary lightness a little (±12%) per name so neighbours stay distinguishable
  // without leaving the kind's hue.
  const int delta = int(h % 25) - 12;
  return delta >= 0 ? c.lighter(100 + delta * 2) : c.darker(100 - delta * 2);
}

QColor gpuBusy(const QPalette& p) { return isDark(p) ? kSkyBlue : kBlue; }
QColor idleGap(const QPalette&) { return kVermillion; }

QColor findMatch(const QPalette& p) { return isDark(p) ? QColor(0xF5, 0xE0, 0x50) : QColor(0xE0, 0x10, 0x80); }

QColor chunkMode(const QString& mode) {
  switch (names::parseModeName(mode.toStdString()).value_or(names::ChunkMode::Generic)) {
    case names::ChunkMode::Mixed: return kPurple;
    case names::ChunkMode::DecodeOnly: return kSkyBlue;
    case names::ChunkMode::PrefillDecode: return kOrange;
    case names::ChunkMode::Generic: return kGreen;
  }
  return kGreen;
}

QColor selection(const QPalette& p) { return p.color(QPalette::Highlight); }

QColor textOn(const QColor& fill) {
  const double l = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
  return l > 0.55 ? QColor(0x11, 0x11, 0x11) : QColor(0xF8, 0xF8, 0xF8);
}

QColor verdict(Verdict v) {
  switch (v) {
    case Verdict::Accepted: return kGreen;
    case Verdict::LowQuality: return kOrange;
    case Verdict::Refused: return kVermillion;
    case Verdict::Missing: return kGrey;
  }
  return kGrey;
}

QString verdictWord(Verdict v) {
  switch (v) {
    case Verdict::Accepted: return QStringLiteral("accepted");
    case Verdict::LowQuality: return QStringLiteral("low quality");
    case Verdict::Refused: return QStringLiteral("refused");
    case Verdict::Missing: return QStringLiteral("missing");
  }
  return {};
}

QString verdictIcon(Verdict v) {
  switch (v) {
    case Verdict::Accepted: return QStringLiteral("\u2714");
    case Verdict::LowQuality: return QStringLiteral("\u26A0");
    case Verdict::Refused: return QStringLiteral("\u2716");
    case Verdict::Missing: return QStringLiteral("\u2205");
  }
  return {};
}

}  // namespace steadyscope::widgets::colors
