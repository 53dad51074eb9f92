#pragma once
// Persistent settings: recent files, window geometry and dock layout, the
// timeline's view options, the last export folder, the Job view's memory
// budget, the trace cache.
// Tests pass their own QSettings (an INI file in a temporary directory).
#include <QByteArray>
#include <QSettings>
#include <QStringList>

#include <memory>

namespace steadyscope {
class TraceCache;
}

namespace steadyscope::app {

class AppSettings {
 public:
  static constexpr int kMaxRecent = 10;
  /// Takes ownership; null means the user's QSettings("Steadyscope", "steadyscope").
  explicit AppSettings(std::unique_ptr<QSettings> settings = nullptr);

  QStringList recentFiles() const;
  void addRecentFile(const QString& path);  // most recent first, de-duplicated
  void removeRecentFile(const QString& path);
  void clearRecentFiles();

  QByteArray geometry() const;
  void setGeometry(const QByteArray& g);
  QByteArray windowState() const;
  void setWindowState(const QByteArray& s);

  /// View ▸ Show processes without events (off until chosen).
  bool showBookkeeping() const;
  void setShowBookkeeping(bool on);

  /// The folder of the last export ("" before the first).
  QString exportFolder() const;
  void setExportFolder(const QString& dir);

  /// At most this many bytes for the ranks a Job view loads at once (0: the free memory).
  quint64 jobMemoryBudget() const;
  void setJobMemoryBudget(quint64 bytes);

  /// File ▸ Settings: keep parsed traces in the trace cache (on until turned off), and its size cap.
  bool traceCacheEnabled() const;
  void setTraceCacheEnabled(bool on);
  quint64 traceCacheLimit() const;  // bytes; 10 GB until chosen
  void setTraceCacheLimit(quint64 bytes);

  void sync();
  QSettings& raw() { return *settings_; }

 private:
  std::unique_ptr<QSettings> settings_;
};

/// The trace cache the settings ask for (null: turned off).
std::shared_ptr<TraceCache> makeTraceCache(const AppSettings& settings);

}  // namespace steadyscope::app
