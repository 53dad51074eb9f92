// The execution_details.csv reader as the gate uses it: the table, its rows
// matched to chunk fields, each row's numbers read as Python would.
#include <steadyscope/core/gate/csv.hpp>
#include <steadyscope/core/gate/gate.hpp>
#include <steadyscope/core/gate/review.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

using namespace steadyscope::gate;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parsePyFloat(text);
  auto table = parseCsv(text, "execution_details.csv");
  if (!table) {
    (void)table.error().describe();
    return 0;
  }
  for (const ChunkRow& row : chunkRowsFromTable(table.value())) (void)readRow(row);
  return 0;
}
