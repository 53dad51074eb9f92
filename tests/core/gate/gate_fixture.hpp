#pragma once
// Split directories generated on the fly for the gate tests (no committed
// binaries): chunk files are a few bytes (the gate never opens them) and
// execution_details.csv is written in the reference's layout.
#include <steadyscope/core/gate/gate.hpp>

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace gatetest {

struct FixtureRow {
  QString mode;  // mixed | decode_only | prefilldecode | generic
  QString events, dur, busy;
  std::optional<QString> ratio;  // busy_ratio cell, if the row has one
};

inline QString chunkFileName(const QString& mode) {
  if (mode == "generic") return "steady_state_x.json.gz";
  return mode + "_steady_state_prefill_0_prefilldecode_1_decode_3_bs8_conc4_x.json.gz";
}

/// "mixed:160,3257719.65,2053.09,0.000630;prefilldecode:2790,4538984.0,2723452.0"
inline std::vector<FixtureRow> parseRows(const QString& spec) {
  std::vector<FixtureRow> rows;
  for (const QString& part : spec.split(';', Qt::SkipEmptyParts)) {
    FixtureRow r;
    r.mode = part.section(':', 0, 0);
    QStringList v = part.section(':', 1).split(',');
    r.events = v.value(0);
    r.dur = v.value(1);
    r.busy = v.value(2);
    if (v.size() > 3) r.ratio = v.value(3);
    rows.push_back(r);
  }
  return rows;
}

inline bool writeFile(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(bytes) == bytes.size();
}

/// Writes chunk files and execution_details.csv into `dir`. `pathPrefix` is
/// what output_path starts with (e.g. the absolute dir, or "out").
inline bool writeSplitDir(const QString& dir, const std::vector<FixtureRow>& rows, bool withCsv,
                          const QString& pathPrefix) {
  bool ratioColumn = false;
  for (const auto& r : rows) ratioColumn = ratioColumn || r.ratio.has_value();
  QByteArray csv = "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration";
  if (ratioColumn) csv += ",busy_ratio";
  csv += ",num_steps\n";
  for (const auto& r : rows) {
    const QString name = chunkFileName(r.mode);
    if (!writeFile(dir + "/" + name, "{}")) return false;
    csv += "0," + (pathPrefix + "/" + name).toUtf8() + ",100," + r.events.toUtf8() + "," + r.dur.toUtf8() + "," +
           r.busy.toUtf8();
    if (ratioColumn) csv += "," + r.ratio.value_or(QString()).toUtf8();
    csv += ",4\n";
  }
  if (withCsv && !writeFile(dir + "/execution_details.csv", csv)) return false;
  return true;
}

inline QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace gatetest
