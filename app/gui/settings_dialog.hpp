#pragma once
// File ▸ Settings: the choices that outlive a session and belong to no trace —
// how much memory the Job view may use for ranks loading together, and the
// trace cache (on or off, its size cap, emptying it). Reads and writes
// AppSettings; the window applies the result to its controllers.
#include "app_settings.hpp"

#include <QDialog>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;

namespace steadyscope::app {

class SettingsDialog : public QDialog {
  Q_OBJECT
 public:
  /// `freeBytes`: the machine's free memory now, shown beside "Automatic".
  SettingsDialog(AppSettings* settings, quint64 freeBytes, QWidget* parent = nullptr);

  /// The budget the dialog shows (0: automatic), in bytes.
  quint64 jobMemoryBudget() const;
  void setJobMemoryBudget(quint64 bytes);
  /// Writes the shown values into the settings (what OK does).
  void save();
  /// Removes every entry of the trace cache now (the Empty button).
  void emptyCache();
  /// What the cache's folder holds, as shown.
  QString cacheUsageText() const;

 private:
  QWidget* cacheGroup();
  void showCacheUsage();

  AppSettings* settings_;
  QDoubleSpinBox* budget_;
  QCheckBox* cacheOn_ = nullptr;
  QDoubleSpinBox* cacheLimit_ = nullptr;
  QLabel* cacheUsage_ = nullptr;
};

}  // namespace steadyscope::app
