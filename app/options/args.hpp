#pragma once
// A command's arguments: the words after its name.
#include <algorithm>
#include <string>
#include <vector>

namespace steadyscope::cli {

using Args = std::vector<std::string>;

/// Splits the option `word` (= args[i]) into its name and value: "--x=v", or "--x v" when x is in
/// `valued` (then i moves past v). Returns "" or the error in argparse's words.
inline std::string takeOption(const Args& args, size_t& i, const std::vector<std::string>& valued, std::string& word,
                              std::string& value) {
  if (auto eq = word.find('='); eq != std::string::npos && word.starts_with("--")) {
    value = word.substr(eq + 1);
    word = word.substr(0, eq);
  } else if (std::find(valued.begin(), valued.end(), word) != valued.end()) {
    if (i + 1 >= args.size()) return "argument " + word + ": expected one argument";
    value = args[++i];
  }
  if (std::find(valued.begin(), valued.end(), word) == valued.end()) return "unrecognized argument: " + word;
  return "";
}

}  // namespace steadyscope::cli
