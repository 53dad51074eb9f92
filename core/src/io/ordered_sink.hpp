#pragma once
// Where parsed pieces go: the model's columns, strictly in text order.
#include "io/event_parser.hpp"
#include "io/finalize.hpp"

#include <steadyscope/core/model/trace.hpp>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace steadyscope::io {

/// Workers parse pieces in any order into their own reused buffers; the sink
/// appends each piece's events to the model's columns strictly in text order
/// (a piece that arrives early is parked until its predecessors are in). So
/// every column is written once, into its final place: no second copy of the
/// model, and no per-thread columns to merge.
class OrderedSink {
 public:
  struct Range {
    EventIdx begin, end;
    uint16_t worker;
  };  // events of one piece, and who interned them
  struct Meta {
    EventIdx event;
    MetaKind kind;
    uint32_t nameStr;
    uint16_t worker;
  };

  OrderedSink(Trace& tr, uint64_t expectedBytes, size_t workers)
      : tr_(tr), expectedBytes_(expectedBytes), wide_(std::max<size_t>(1, workers)) {}

  /// Hands over piece `k` parsed by `worker` into `buf`. If it is next in text
  /// order, its place in the columns (and that of any parked successors) is
  /// claimed under the lock and the events are copied outside it, in parallel
  /// with the other workers' copies; otherwise it is parked. On return `buf`
  /// is an empty buffer for the caller's next piece.
  void deliver(size_t k, unsigned worker, std::unique_ptr<LocalColumns>& buf);
  bool tooMany() const { return tooMany_; }
  /// Frees the parked spare buffers once every piece is in.
  void releaseBuffers();
  /// Installs the side tables of the compact columns (after the last piece).
  void adoptSideTables();

  std::vector<Range> ranges;
  std::vector<Meta> meta;
  std::vector<std::pair<EventIdx, double>> exactTs, exactDur;
  Anomalies anomalies{};

 private:
  struct Wide {  // values that do not fit their narrow column, by event
    std::vector<std::pair<EventIdx, int64_t>> corr, ext, dur;
    std::vector<std::pair<EventIdx, uint32_t>> len, name, lane, offsetChanges;
  };
  struct Dest {
    size_t base = 0;
    int64_t* ts = nullptr;
    int32_t *dur = nullptr, *corr = nullptr, *ext = nullptr;
    uint32_t* off = nullptr;
    uint16_t *name = nullptr, *lane = nullptr;
    uint16_t *len = nullptr, *cat = nullptr, *flags = nullptr;
    Ph* ph = nullptr;
  };

  template <typename F>
  void eachColumn(F&& f);
  /// Under the lock: reserves [size, size + c.size()) for `c` and records its
  /// side lists with global indices. Columns only reallocate when no copy is
  /// in flight (grownCapacity says by how much).
  size_t claim(std::unique_lock<std::mutex>& lock, const LocalColumns& c, unsigned worker);
  /// The capacity for `need` events and, by the text so far, the rest of the trace.
  size_t grownCapacity(size_t need) const;
  Dest dest(size_t base);
  static void copy(const LocalColumns& c, const Dest& d, Wide& wide);

  Trace& tr_;
  uint64_t expectedBytes_;
  bool tooMany_ = false;
  std::mutex m_;
  std::condition_variable idle_;
  int inflight_ = 0;
  size_t size_ = 0, cap_ = 0;
  uint64_t bytesClaimed_ = 0;  // text of the pieces claimed so far
  size_t next_ = 0;
  std::map<size_t, std::pair<unsigned, std::unique_ptr<LocalColumns>>> parked_;
  std::vector<std::unique_ptr<LocalColumns>> spare_;
  std::vector<Wide> wide_;  // per worker
};

}  // namespace steadyscope::io
