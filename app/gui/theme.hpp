#pragma once
// Light, dark, or the desktop's palette (View ▸ Theme, remembered). The
// desktop's palette is the one the application started with; Qt 6.4 cannot
// tell us when the desktop switches, so "follow the desktop" applies it again
// when chosen and at the next start.
#include <QString>

namespace steadyscope::app {

enum class Theme { System, Light, Dark };

/// "system", "light", "dark" (unknown words: System).
Theme themeFromName(const QString& name);
QString themeName(Theme t);

/// Applies `t` to the whole application. `fromCommandLine` (--dark) wins over
/// the remembered choice for this run: later calls without it are ignored.
void applyTheme(Theme t, bool fromCommandLine = false);
/// The theme last applied (System before any).
Theme currentTheme();

}  // namespace steadyscope::app

class QMenu;

namespace steadyscope::app {

class AppSettings;

/// View ▸ Theme: the three choices, the saved one checked and applied.
void addThemeMenu(QMenu* view, AppSettings* settings);

}  // namespace steadyscope::app
