// Precompiled for the test suites (D-070): Qt Test (with its widget helpers in
// the GUI suites, where QT_WIDGETS_LIB is defined) and what most suites include.
#include <QDir>
#include <QFile>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
