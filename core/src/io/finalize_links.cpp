// Links: kernel <-> launch correlations and flow peers, and their anomalies.
#include "io/finalize.hpp"

#include <algorithm>

namespace steadyscope::io {

LinkIds::LinkIds(size_t events) : denseLimit_(static_cast<int64_t>(4 * events + (1u << 20))) {
  // Address space only (huge-page aligned): the array grows in place, without
  // copies or 4 KiB pages on the way up.
  dense_.reserve(static_cast<size_t>(denseLimit_));
}

bool LinkIds::hasCpuCorrelation(int64_t id) const {
  if (id >= 0 && id < denseLimit_)
    return static_cast<size_t>(id) < dense_.size() && (dense_[static_cast<size_t>(id)] & kCpuCorr);
  return cpuCorrSparse_.count(id) > 0;
}

bool LinkIds::flowHasBothEnds(int64_t id) const {
  uint8_t bits = 0;
  if (id >= 0 && id < denseLimit_) {
    if (static_cast<size_t>(id) < dense_.size()) bits = dense_[static_cast<size_t>(id)] & (kFlowStart | kFlowEnd);
  } else if (auto it = flowSparse_.find(id); it != flowSparse_.end()) {
    bits = it->second;
  }
  return bits == (kFlowStart | kFlowEnd);
}

void collectIdsAndKernels(Trace& tr, LinkIds& ids, KernelIntervals& kernels) {
  const size_t n = tr.size();
  for (EventIdx i = 0; i < n; ++i) {
    CatClass c = tr.classOf(i);
    uint16_t fl = tr.flags[i];
    if (isGpuWork(c)) {
      const uint32_t l = tr.lane[i];
      tr.lanes[l].gpu = true;
      if ((fl & ev::HasTs) && (fl & ev::HasDur) && tr.durNs[i] > 0) kernels.add(tr, l, tr.tsNs[i], tr.durNs[i]);
    } else if ((fl & ev::HasCorr) && c != CatClass::GpuUserAnnotation) {
      if (!(fl & ev::CorrIsStr))
        ids.noteCpuCorrelation(tr.corr[i]);
      else
        ids.noteCpuStringCorrelation(tr.corr[i]);
    }
    if ((tr.ph[i] == Ph::FlowStart || tr.ph[i] == Ph::FlowEnd) && (fl & ev::HasId) && !(fl & ev::CorrIsStr))
      ids.noteFlow(tr.corr[i], tr.ph[i] == Ph::FlowStart);
  }
}

void flagLinkAnomalies(const Trace& tr, const LinkIds& ids, Anomalies& anomalies) {
  const size_t n = tr.size();
  for (EventIdx i = 0; i < n; ++i) {
    Ph ph = tr.ph[i];
    if (ph == Ph::FlowStart || ph == Ph::FlowEnd) {
      if ((tr.flags[i] & ev::HasId) && !(tr.flags[i] & ev::CorrIsStr) && !ids.flowHasBothEnds(tr.corr[i]))
        addAnomaly(anomalies, A_FlowWithoutPeer, i);
      continue;
    }
    if (!isGpuWork(tr.classOf(i))) continue;
    if (!(tr.flags[i] & ev::HasCorr))
      addAnomaly(anomalies, A_GpuWithoutCorrelation, i);
    else if (!(tr.flags[i] & ev::CorrIsStr ? ids.hasCpuStringCorrelation(tr.corr[i])
                                           : ids.hasCpuCorrelation(tr.corr[i])))
      addAnomaly(anomalies, A_KernelWithoutLaunch, i);
  }
}

}  // namespace steadyscope::io
