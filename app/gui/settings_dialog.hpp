#pragma once
// File ▸ Settings: the choices that outlive a session and belong to no trace —
// how much memory the Job view may use for ranks loading together. Reads and
// writes AppSettings; the window applies the result to its controllers.
#include "app_settings.hpp"

#include <QDialog>

class QDoubleSpinBox;

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

 private:
  AppSettings* settings_;
  QDoubleSpinBox* budget_;
};

}  // namespace steadyscope::app
