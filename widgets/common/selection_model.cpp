#include "common/selection_model.hpp"

#include <algorithm>

namespace steadyscope::widgets {

void SelectionModel::setEvent(qint64 e) {
  if (e < 0) e = -1;
  if (e == event_) return;
  event_ = e;
  emit eventChanged(e);
  emit changed();
}

void SelectionModel::setRange(qint64 b, qint64 e) {
  if (e <= b) b = e = 0;
  if (b == rangeBegin_ && e == rangeEnd_) return;
  rangeBegin_ = b;
  rangeEnd_ = e;
  emit rangeChanged(b, e);
  emit changed();
}

void SelectionModel::setStep(int s) {
  if (s < 0) s = -1;
  if (s == step_) return;
  step_ = s;
  emit stepChanged(s);
  emit changed();
}

void SelectionModel::setChunk(int c) {
  if (c < 0) c = -1;
  if (c == chunk_) return;
  chunk_ = c;
  emit chunkChanged(c);
  emit changed();
}

void SelectionModel::setMarkedSteps(QVector<int> positions) {
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  if (positions == marked_) return;
  marked_ = std::move(positions);
  emit markedStepsChanged();
  emit changed();
}

void SelectionModel::clear() {
  setEvent(-1);
  clearRange();
  setStep(-1);
  setChunk(-1);
  setMarkedSteps({});
}

}  // namespace steadyscope::widgets
