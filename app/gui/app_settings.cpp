#include "app_settings.hpp"

#include <QFileInfo>

#include <steadyscope/io.hpp>

namespace steadyscope::app {

AppSettings::AppSettings(std::unique_ptr<QSettings> settings)
    : settings_(settings ? std::move(settings)
                         : std::make_unique<QSettings>(QStringLiteral("Steadyscope"), QStringLiteral("steadyscope"))) {}

QStringList AppSettings::recentFiles() const { return settings_->value(QStringLiteral("recentFiles")).toStringList(); }

void AppSettings::addRecentFile(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  QStringList l = recentFiles();
  l.removeAll(abs);
  l.prepend(abs);
  while (l.size() > kMaxRecent) l.removeLast();
  settings_->setValue(QStringLiteral("recentFiles"), l);
}

void AppSettings::removeRecentFile(const QString& path) {
  QStringList l = recentFiles();
  l.removeAll(path);
  settings_->setValue(QStringLiteral("recentFiles"), l);
}

void AppSettings::clearRecentFiles() { settings_->remove(QStringLiteral("recentFiles")); }

QByteArray AppSettings::geometry() const { return settings_->value(QStringLiteral("window/geometry")).toByteArray(); }
void AppSettings::setGeometry(const QByteArray& g) { settings_->setValue(QStringLiteral("window/geometry"), g); }
QByteArray AppSettings::windowState() const { return settings_->value(QStringLiteral("window/state")).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& s) { settings_->setValue(QStringLiteral("window/state"), s); }

bool AppSettings::showBookkeeping() const {
  return settings_->value(QStringLiteral("timeline/showBookkeeping"), false).toBool();
}
void AppSettings::setShowBookkeeping(bool on) { settings_->setValue(QStringLiteral("timeline/showBookkeeping"), on); }

QString AppSettings::exportFolder() const { return settings_->value(QStringLiteral("export/folder")).toString(); }
void AppSettings::setExportFolder(const QString& dir) { settings_->setValue(QStringLiteral("export/folder"), dir); }

quint64 AppSettings::jobMemoryBudget() const {
  return settings_->value(QStringLiteral("job/memoryBudget"), 0).toULongLong();
}
void AppSettings::setJobMemoryBudget(quint64 bytes) { settings_->setValue(QStringLiteral("job/memoryBudget"), bytes); }

bool AppSettings::traceCacheEnabled() const {
  return settings_->value(QStringLiteral("cache/enabled"), true).toBool();
}
void AppSettings::setTraceCacheEnabled(bool on) { settings_->setValue(QStringLiteral("cache/enabled"), on); }
quint64 AppSettings::traceCacheLimit() const {
  return settings_->value(QStringLiteral("cache/limitBytes"), quint64(TraceCacheOptions{}.limitBytes)).toULongLong();
}
void AppSettings::setTraceCacheLimit(quint64 bytes) { settings_->setValue(QStringLiteral("cache/limitBytes"), bytes); }

std::shared_ptr<TraceCache> makeTraceCache(const AppSettings& settings) {
  if (!settings.traceCacheEnabled() || settings.traceCacheLimit() == 0) return nullptr;
  TraceCacheOptions o;
  o.limitBytes = settings.traceCacheLimit();
  return std::make_shared<TraceCache>(o);
}

void AppSettings::sync() { settings_->sync(); }

}  // namespace steadyscope::app
