#include "common/text.hpp"

#include <steadyscope/timeline.hpp>

namespace steadyscope::widgets {

QString countOf(qint64 n, const QString& one, const QString& many) {
  const QString number = n < 0 ? QString::number(n) : qs(timeline::formatCount(quint64(n)));
  return number + QLatin1Char(' ') + (n == 1 ? one : many);
}

}  // namespace steadyscope::widgets
