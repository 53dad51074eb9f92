#include "theme.hpp"

#include "app_settings.hpp"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <optional>

namespace steadyscope::app {

namespace {
struct Startup {  // what the desktop gave us, before any change
  QString style;
  QPalette palette;
};
std::optional<Startup>& startup() {
  static std::optional<Startup> s;
  return s;
}
Theme& current() {
  static Theme t = Theme::System;
  return t;
}
bool& forced() {
  static bool f = false;
  return f;
}

QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2b, 0x2e), base(0x1e, 0x1e, 0x20), text(0xe6, 0xe6, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x34, 0x34, 0x38));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
  p.setColor(QPalette::Mid, QColor(0x50, 0x50, 0x55));
  p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));
  p.setColor(QPalette::HighlightedText, base);
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
  return p;
}
}  // namespace

Theme themeFromName(const QString& name) {
  if (name == QLatin1String("light")) return Theme::Light;
  if (name == QLatin1String("dark")) return Theme::Dark;
  return Theme::System;
}

QString themeName(Theme t) {
  switch (t) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
  }
  return QStringLiteral("system");
}

void applyTheme(Theme t, bool fromCommandLine) {
  if (forced() && !fromCommandLine) return;
  forced() = forced() || fromCommandLine;
  if (!startup()) startup() = Startup{QApplication::style()->name(), QApplication::palette()};
  current() = t;
  switch (t) {
    case Theme::System:
      QApplication::setStyle(startup()->style);
      QApplication::setPalette(startup()->palette);
      return;
    case Theme::Light: {
      QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
      QApplication::setStyle(fusion);  // the application takes ownership
      QApplication::setPalette(fusion->standardPalette());
      return;
    }
    case Theme::Dark:
      QApplication::setStyle(QStringLiteral("Fusion"));
      QApplication::setPalette(darkPalette());
      return;
  }
}

Theme currentTheme() { return current(); }

void addThemeMenu(QMenu* view, AppSettings* settings) {
  static constexpr const char* kThemeKey = "view/theme";
  QMenu* theme = view->addMenu(QObject::tr("&Theme"));
  auto* group = new QActionGroup(theme);
  const Theme saved = themeFromName(settings->raw().value(QLatin1String(kThemeKey)).toString());
  for (auto [t, text] :
       {std::pair{Theme::System, QObject::tr("Follow the &desktop")}, std::pair{Theme::Light, QObject::tr("&Light")},
        std::pair{Theme::Dark, QObject::tr("&Dark")}}) {
    QAction* a = theme->addAction(text);
    a->setCheckable(true);
    a->setObjectName(QStringLiteral("action.theme.") + themeName(t));
    a->setChecked(t == saved);
    group->addAction(a);
    QObject::connect(a, &QAction::triggered, theme, [settings, t = t] {
      settings->raw().setValue(QLatin1String(kThemeKey), themeName(t));
      applyTheme(t);
    });
  }
  if (saved != Theme::System) applyTheme(saved);  // --dark, given first, wins for the run
}

}  // namespace steadyscope::app
