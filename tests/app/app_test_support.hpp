#pragma once
// Helpers shared by the offscreen window tests: temporary settings, waiting
// for the window's jobs (QTRY, never a hand-written event loop) and holding a
// job at a named stage.
#include "compare_controller.hpp"
#include "export_controller.hpp"
#include "find_controller.hpp"
#include "main_window.hpp"
#include "open_controller.hpp"
#include "review_controller.hpp"
#include "run_panel.hpp"
#include "split_controller.hpp"

#include <QProcess>
#include <QSettings>
#include <QString>
#include <QTest>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace steadyscope::app::testsupport {

/// Loads and splits of the real traces take seconds (more under ASan).
inline constexpr int kJobTimeoutMs = 120000;

/// A QProcess whose environment has no display (as on a server or in CI):
/// the GUI binary must choose offscreen rendering or refuse by itself.
inline void withoutDisplay(QProcess& p) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("DISPLAY"));
  env.remove(QStringLiteral("WAYLAND_DISPLAY"));
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  p.setProcessEnvironment(env);
}

/// Settings in an ini file of the test's own (never the user's).
inline std::unique_ptr<AppSettings> tempSettings(const QString& file) {
  return std::make_unique<AppSettings>(std::make_unique<QSettings>(file, QSettings::IniFormat));
}

/// Holds a job at a named stage: installed with
/// JobLane::setStageObserverForTests, its observer (on the job thread)
/// marks the stage reached and waits for release(). It waits at most
/// `maxHold`, so a runner that wrongly runs the job on the GUI thread fails
/// the test instead of hanging it. The destructor releases.
class StageHold {
 public:
  explicit StageHold(std::string stage, std::chrono::seconds maxHold = std::chrono::seconds(20))
      : s_(std::make_shared<State>()) {
    s_->stage = std::move(stage);
    s_->maxHold = maxHold;
  }
  ~StageHold() { release(); }
  StageHold(const StageHold&) = delete;
  StageHold& operator=(const StageHold&) = delete;

  std::function<void(std::string_view)> observer() const {
    return [s = s_](std::string_view stage) {
      if (stage != s->stage) return;
      std::unique_lock lock(s->m);
      s->reached = true;
      s->cv.wait_for(lock, s->maxHold, [&] { return s->released; });
    };
  }
  bool reached() const {
    std::lock_guard lock(s_->m);
    return s_->reached;
  }
  void release() {
    {
      std::lock_guard lock(s_->m);
      s_->released = true;
    }
    s_->cv.notify_all();
  }

 private:
  struct State {
    std::string stage;
    std::chrono::seconds maxHold{20};
    std::mutex m;
    std::condition_variable cv;
    bool reached = false, released = false;
  };
  std::shared_ptr<State> s_;  // shared with the job thread, which may outlive the hold
};

}  // namespace steadyscope::app::testsupport

/// Waits until the window runs no load, split or review.
#define STEADYSCOPE_WAIT_IDLE(w) QTRY_VERIFY_WITH_TIMEOUT((w).isIdle(), steadyscope::app::testsupport::kJobTimeoutMs)

/// Opens `path` and waits for the load (it may fail: see lastError()).
#define STEADYSCOPE_OPEN_AND_WAIT(w, path) \
  do {                                     \
    (w).openFile(path);                    \
    STEADYSCOPE_WAIT_IDLE(w);              \
  } while (0)

/// Shows `w`, opens the bundled sample, runs the split and waits for it and
/// its gate review.
#define STEADYSCOPE_OPEN_SAMPLE_AND_SPLIT(w) \
  do {                                       \
    (w).show();                              \
    (w).openSample();                        \
    STEADYSCOPE_WAIT_IDLE(w);                \
    QVERIFY((w).document());                 \
    (w).runSplit();                          \
    STEADYSCOPE_WAIT_IDLE(w);                \
  } while (0)
