#pragma once
// Split directories built to mislead (for the gate's review and the window's):
// rows naming files outside the directory, chunk files that are links, names
// with control or shell characters, a million rows, a BOM with CRLF line ends.
// Each directory has a decoy outside it that a review must neither read nor write.
#include "gate_fixture.hpp"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

#include <fcntl.h>
#include <sys/stat.h>

#include <utility>
#include <vector>

namespace gatetest {

struct HostileCase {
  const char* what;  // the test row's name
  const char* kind;
  const char* code;  // the gate finding that reports it
};

inline const std::vector<HostileCase>& hostileCases() {
  static const std::vector<HostileCase> cases = {
      {"output_path climbing out (../../)", "climb", "row_outside_directory"},
      {"absolute output_path elsewhere", "absolute", "row_outside_directory"},
      {"chunk file is a symlink out of the directory", "symlink", "chunk_is_symlink"},
      {"chunk name with a newline", "newline", "unusual_file_name"},
      {"chunk name with shell characters", "shell", "unusual_file_name"},
      {"a million rows", "million", "details_csv_many_rows"},
      {"BOM before output_path", "bom", "details_csv_bom"},
  };
  return cases;
}

inline constexpr const char* kDecoyText = "{\"traceEvents\": []}";

/// The last access and modification times (a read moves the access time:
/// the decoy's are set to now, so relatime updates it too).
inline std::pair<qint64, qint64> timesOf(const QString& path) {
  struct stat st {};
  ::stat(path.toLocal8Bit().constData(), &st);
  return {qint64(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec,
          qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

struct HostileDir {
  QString dir;    // root + "/split"
  QString decoy;  // root + "/outside/<a mixed chunk's name>"
  bool ok = false;
};

namespace detail {
inline QByteArray hostileRow(const QString& outputPath) {
  return ("0," + outputPath + ",100,40,1000.0,800.0,32\n").toUtf8();
}
}  // namespace detail

/// Builds the split directory of one `kind` of hostileCases() under `root`
/// (a canonical path), with its decoy.
inline HostileDir buildHostileDir(const QString& root, const QString& kind) {
  const QString name = chunkFileName("mixed");
  HostileDir h{root + "/split", root + "/outside/" + name, false};
  if (!writeFile(h.decoy, kDecoyText)) return h;
  ::utimensat(AT_FDCWD, h.decoy.toLocal8Bit().constData(), nullptr, 0);
  QByteArray csv = "idx,output_path,event_count,num_gpu_events,gpu_duration,gpu_busy_duration,num_steps\n";
  QString chunk = h.dir + "/" + name;
  if (kind == "climb") csv += detail::hostileRow("split/../../outside/" + name);
  if (kind == "absolute") csv += detail::hostileRow(h.decoy);
  if (kind == "symlink") {
    QDir().mkpath(h.dir);
    if (!QFile::link(h.decoy, chunk)) return h;
    csv += detail::hostileRow(chunk);
  }
  if (kind == "newline" || kind == "shell") {
    chunk = h.dir + "/" +
            QString(name).replace("_x.json.gz", kind == "newline" ? "_a\nb.json.gz" : "_$(touch x);`y`.json.gz");
    csv += detail::hostileRow("\"" + chunk + "\"");
  }
  if (kind == "million") {
    csv.reserve(60 << 20);
    for (int k = 0; k < 1000000; ++k) csv += detail::hostileRow(h.dir + "/" + name);
  }
  if (kind == "bom")  // the pipeline then reads the first column under another name
    csv = "\xEF\xBB\xBFoutput_path,idx,event_count,num_gpu_events,gpu_duration,gpu_busy_duration\r\n" +
          (chunk + ",0,100,40,1000.0,800.0\r\n").toUtf8();
  if (kind != "symlink" && !writeFile(chunk, "{}")) return h;
  h.ok = writeFile(h.dir + "/execution_details.csv", csv);
  return h;
}

/// The decoy is as built: same times (neither read nor written) and bytes.
inline bool decoyUntouched(const HostileDir& h, std::pair<qint64, qint64> timesBefore) {
  if (timesOf(h.decoy) != timesBefore) return false;
  QFile file(h.decoy);
  return file.open(QIODevice::ReadOnly) && file.readAll() == QByteArray(kDecoyText);
}

}  // namespace gatetest
