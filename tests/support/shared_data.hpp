#pragma once
// Suites that read ../shared (the oracle cases, the real traces) skip what is
// missing on a clone without it, so everything else still runs; CI sets
// STEADYSCOPE_REQUIRE_SHARED=1 and the same test fails instead, so a missing or
// moved file can never turn a suite green by skipping.
//
//   SHARED_OR_SKIP(kOracle + "/" + name);   // in a test function (or initTestCase)
#include <QByteArray>
#include <QFileInfo>
#include <QString>
#include <QTest>

namespace steadyscope::testsupport {

inline constexpr const char* kRequireSharedVar = "STEADYSCOPE_REQUIRE_SHARED";

/// True when the environment asks for ../shared to be there (CI).
inline bool sharedRequired() { return qEnvironmentVariable(kRequireSharedVar) == QLatin1String("1"); }

/// The skip or failure message for a missing `path` under ../shared.
inline QByteArray sharedMissingMessage(const QString& path) {
  const QString var = QLatin1String(kRequireSharedVar);
  const QString why = sharedRequired()
                          ? QStringLiteral("../shared not found; %1=1 requires it").arg(var)
                          : QStringLiteral("../shared not found; set %1=1 to make this a failure").arg(var);
  return (why + QStringLiteral(" (missing: %1)").arg(path)).toUtf8();
}

}  // namespace steadyscope::testsupport

/// Returns from the calling test function when `path` (a file or folder under
/// ../shared) does not exist: QSKIP, or QFAIL when STEADYSCOPE_REQUIRE_SHARED=1.
/// Not for _data functions (a skip there drops every row silently).
#define SHARED_OR_SKIP(path)                                                                       \
  do {                                                                                             \
    const QString sharedPath_ = (path);                                                            \
    if (!QFileInfo::exists(sharedPath_)) {                                                         \
      const QByteArray sharedWhy_ = ::steadyscope::testsupport::sharedMissingMessage(sharedPath_); \
      if (::steadyscope::testsupport::sharedRequired()) QFAIL(sharedWhy_.constData());             \
      QSKIP(sharedWhy_.constData());                                                               \
    }                                                                                              \
  } while (false)
