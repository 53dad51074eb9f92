#pragma once
// Helpers for loader tests: writing plain, gzip and zip files.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <zlib.h>

namespace testfiles {

inline void writeFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

/// zlib deflate of `data`; windowBits 15 + 16 = gzip framing, -15 = raw deflate (zip members).
inline std::string deflateBytes(const std::string& data, int windowBits, int level = 6) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
inline std::string gzipBytes(const std::string& data, int level = 6) { return deflateBytes(data, 15 + 16, level); }
inline std::string rawDeflate(const std::string& data) { return deflateBytes(data, -15); }

inline void put16(std::string& s, uint16_t v) {
  s += char(v & 0xff);
  s += char(v >> 8);
}
inline void put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s += char((v >> (8 * i)) & 0xff);
}

struct ZipMember {
  std::string name;
  std::string data;
  bool deflate = true;
};

inline void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v));
  put32(s, static_cast<uint32_t>(v >> 32));
}

/// A zip archive; `zip64` writes it as ZIP64 tools do for big archives: the
/// central entries' sizes and offsets saturated with their 64-bit values in a
/// ZIP64 extra field, and a ZIP64 end record with its locator.
inline std::string zipBytes(const std::vector<ZipMember>& members, bool zip64 = false) {
  std::string out, cd;
  for (const auto& m : members) {
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(m.data.data()), static_cast<uInt>(m.data.size())));
    std::string payload = m.deflate ? rawDeflate(m.data) : m.data;
    uint32_t off = static_cast<uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, m.deflate ? 8 : 0);
    put16(out, 0);
    put16(out, 0);
    put32(out, crc);
    put32(out, static_cast<uint32_t>(payload.size()));
    put32(out, static_cast<uint32_t>(m.data.size()));
    put16(out, static_cast<uint16_t>(m.name.size()));
    put16(out, 0);
    out += m.name;
    out += payload;
    put32(cd, 0x02014b50);
    put16(cd, 20);
    put16(cd, 20);
    put16(cd, 0);
    put16(cd, m.deflate ? 8 : 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, crc);
    put32(cd, zip64 ? 0xFFFFFFFFu : static_cast<uint32_t>(payload.size()));
    put32(cd, zip64 ? 0xFFFFFFFFu : static_cast<uint32_t>(m.data.size()));
    put16(cd, static_cast<uint16_t>(m.name.size()));
    put16(cd, zip64 ? 28 : 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, zip64 ? 0xFFFFFFFFu : off);
    cd += m.name;
    if (zip64) {
      put16(cd, 1);
      put16(cd, 24);
      put64(cd, m.data.size());
      put64(cd, payload.size());
      put64(cd, off);
    }
  }
  uint32_t cdOff = static_cast<uint32_t>(out.size());
  out += cd;
  if (zip64) {
    const uint64_t record = out.size();
    put32(out, 0x06064b50);
    put64(out, 44);  // the record's size after this field
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, members.size());
    put64(out, members.size());
    put64(out, cd.size());
    put64(out, cdOff);
    put32(out, 0x07064b50);  // the locator
    put32(out, 0);
    put64(out, record);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, zip64 ? 0xFFFF : static_cast<uint16_t>(members.size()));
  put16(out, zip64 ? 0xFFFF : static_cast<uint16_t>(members.size()));
  put32(out, zip64 ? 0xFFFFFFFFu : static_cast<uint32_t>(cd.size()));
  put32(out, zip64 ? 0xFFFFFFFFu : cdOff);
  put16(out, 0);
  return out;
}

}  // namespace testfiles
