#pragma once
// The one conversion from core's UTF-8 strings to QString.
#include <QString>

#include <string_view>

namespace steadyscope::widgets {

inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

}  // namespace steadyscope::widgets
