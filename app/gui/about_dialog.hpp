#pragma once
// Help > About (and Help > Keyboard shortcuts): the version and git revision, what Steadyscope is, its licence, and
// every third-party library with its version and licence (the same list as the package's copyright file).
#include <QDialog>

namespace steadyscope::app {

class AboutDialog : public QDialog {
  Q_OBJECT
 public:
  explicit AboutDialog(QWidget* parent = nullptr);
  /// "0.1.0 (git 1a2b3c4d5e6f)": the text `--version` prints after the program name.
  static QString versionText();
  /// The libraries table as HTML (Qt first, then the core's libraries).
  static QString librariesHtml();
};

/// Help ▸ Keyboard shortcuts.
void showShortcuts(QWidget* parent);

}  // namespace steadyscope::app
