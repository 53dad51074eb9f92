#pragma once
// The one conversion from core's UTF-8 strings to QString, and counts said
// with the noun that agrees with them.
#include <QString>

#include <string_view>

namespace steadyscope::widgets {

inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// "1 step", "2 steps", "1,234 events" (thousands separated as timeline::formatCount).
/// Both forms are passed (tr() each): English has no rule that makes one from the other.
QString countOf(qint64 n, const QString& one, const QString& many);

}  // namespace steadyscope::widgets
