#pragma once
// The one selection shared by the timeline, the chunk table, the charts and the
// details pane: a selected event, a selected time range, a selected step and a
// selected chunk. Setters are no-ops (no signal) when nothing changes.
#include <QObject>
#include <QVector>

#include <cstdint>

namespace steadyscope::widgets {

class SelectionModel : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  qint64 event() const { return event_; }
  bool hasRange() const { return rangeEnd_ > rangeBegin_; }
  qint64 rangeBegin() const { return rangeBegin_; }
  qint64 rangeEnd() const { return rangeEnd_; }
  int step() const { return step_; }
  int chunk() const { return chunk_; }
  /// Steps a finding points at (ruler positions, sorted), marked on the ruler and the lanes.
  const QVector<int>& markedSteps() const { return marked_; }
  bool isEmpty() const { return event_ < 0 && !hasRange() && step_ < 0 && chunk_ < 0; }

 public slots:
  void setEvent(qint64 e);
  void setRange(qint64 beginNs, qint64 endNs);
  void clearRange() { setRange(0, 0); }
  void setStep(int s);
  void setChunk(int c);
  void setMarkedSteps(QVector<int> positions);
  /// Clears everything (Esc).
  void clear();

 signals:
  void eventChanged(qint64 event);
  void rangeChanged(qint64 beginNs, qint64 endNs);
  void stepChanged(int step);
  void chunkChanged(int chunk);
  void markedStepsChanged();
  /// Any of the above.
  void changed();
  /// A pane asks the timeline to show [begin, end) (e.g. double-click a chunk).
  void zoomRequested(qint64 beginNs, qint64 endNs);

 private:
  qint64 event_ = -1;
  qint64 rangeBegin_ = 0, rangeEnd_ = 0;
  int step_ = -1;
  int chunk_ = -1;
  QVector<int> marked_;
};

}  // namespace steadyscope::widgets
