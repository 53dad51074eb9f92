#pragma once
// The many-trace commands' tables: as TSV (cells hold no tab or newline) and
// printed with aligned columns (the last, free text, not padded).
#include <string>
#include <vector>

namespace steadyscope::cli {

using TextTable = std::vector<std::vector<std::string>>;  // the header, then the rows

std::string tsvText(const TextTable& rows);
void printTable(const TextTable& rows);

}  // namespace steadyscope::cli
