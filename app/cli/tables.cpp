#include "tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace steadyscope::cli {

namespace {

std::string cell(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

std::string tsvText(const TextTable& rows) {
  std::string out;
  for (const auto& row : rows) {
    for (size_t k = 0; k < row.size(); ++k) out += (k ? "\t" : "") + cell(row[k]);
    out += '\n';
  }
  return out;
}

void printTable(const TextTable& rows) {
  if (rows.empty()) return;
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t k = 0; k + 1 < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t k = 0; k < row.size(); ++k)
      line += k + 1 < row.size() ? fmt::format("{:<{}}  ", row[k], width[k]) : row[k];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace steadyscope::cli
