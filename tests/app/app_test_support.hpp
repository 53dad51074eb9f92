#pragma once
// Helpers shared by the offscreen window tests.
#include "main_window.hpp"

#include <QSettings>
#include <QString>

#include <memory>

namespace steadyscope::app::testsupport {

/// Settings in an ini file of the test's own (never the user's).
inline std::unique_ptr<AppSettings> tempSettings(const QString& file) {
  return std::make_unique<AppSettings>(std::make_unique<QSettings>(file, QSettings::IniFormat));
}

/// Shows `w`, opens the bundled sample, waits for the load, runs the split and
/// waits for it. True when every step succeeded.
[[nodiscard]] inline bool openSampleAndSplit(MainWindow& w) {
  w.show();
  w.openSample();
  if (!w.loader()->waitForFinished() || !w.document()) return false;
  w.runSplit();
  return w.waitForSplit();
}

}  // namespace steadyscope::app::testsupport
