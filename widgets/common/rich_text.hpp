#pragma once
// The core's sentences mark names between backticks (`ProfilerStep#`, a
// command); rich-text views show those as code instead of the backticks.
#include <QString>

namespace steadyscope::widgets {

/// `text` escaped for HTML, each `name` between backticks as <code>name</code>.
QString codeSpansHtml(const QString& text);

}  // namespace steadyscope::widgets
