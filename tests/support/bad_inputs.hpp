#pragma once
// The fatal classes of the bad-input corpus, one file each: what the loader
// must refuse, with the error code it gives and whether the message points at
// a byte offset. Shared by the loader/CLI test and the window's test.
#include "core/io/test_files.hpp"

#include <string>
#include <vector>

namespace sstest {

struct FatalInput {
  std::string what;      // the class, as a test row name
  std::string fileName;  // ends in '/' for a directory
  std::string bytes;
  std::string code;  // Error::code
  bool hasOffset = false;
};

/// A small trace: a process name, `steps` steps of a cpu_op over a kernel.
inline std::string smallTrace(int steps = 2) {
  std::string ev = "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"python\"}}";
  for (int s = 0; s < steps; ++s) {
    const std::string ts = std::to_string(100 + 50 * s);
    ev += ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts +
          ", \"dur\": 20}";
    ev += ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": " + ts +
          ", \"dur\": 10, \"args\": {\"correlation\": " + std::to_string(s + 1) + "}}";
  }
  return "{\"schemaVersion\": 1, \"traceEvents\": [\n" + ev + "\n]}";
}

inline std::vector<FatalInput> fatalCorpus() {
  using testfiles::gzipBytes;
  using testfiles::zipBytes;
  const std::string good = smallTrace();
  const std::string gz = gzipBytes(good);
  std::string crc = gz;
  crc[crc.size() - 6] ^= 0x55;
  return {
      {"empty", "empty.json", "", "empty_file", false},
      {"whitespace", "blank.json", " \n\t ", "empty_file", false},
      {"not JSON", "words.json", "hello world", "not_json", false},
      {"top-level array", "array.json", "[{\"ph\": \"X\"}]", "toplevel_array", false},
      {"truncated after the first brace", "cut1.json", good.substr(0, 1), "truncated_json", false},
      {"truncated inside the array", "cut2.json", good.substr(0, good.size() / 2), "truncated_json", true},
      {"truncated after the array", "cut3.json", good.substr(0, good.rfind(']') + 1), "truncated_json", true},
      {"truncated gzip", "cut.json.gz", gz.substr(0, gz.size() / 2), "gzip_truncated", false},
      {"gzip with a wrong CRC", "crc.json.gz", crc, "gzip_corrupt", false},
      {"garbage after a gzip header", "garbage.json.gz", gz.substr(0, 10) + std::string(200, '\xfe'), "gzip_corrupt",
       false},
      {"zip without JSON", "x.zip", zipBytes({{"readme.txt", "hello", true}}), "zip_no_json", false},
      {"no traceEvents", "other.json", "{\"kernels\": []}", "no_trace_events", false},
      {"0-byte .json.gz", "zero.json.gz", "", "empty_file", false},
      // Python's json cannot decode it either: the reference refuses the file.
      {"invalid UTF-8 in a name", "utf8.json",
       "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"name\": \"bad \xff\xfe\"}]}", "bad_json", true},
      {"directory named like a trace", "folder.pt.trace.json.gz/", "", "is_directory", false},
  };
}

}  // namespace sstest
