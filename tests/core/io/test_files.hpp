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

inline std::string zipBytes(const std::vector<ZipMember>& members) {
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
    put32(cd, static_cast<uint32_t>(payload.size()));
    put32(cd, static_cast<uint32_t>(m.data.size()));
    put16(cd, static_cast<uint16_t>(m.name.size()));
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, off);
    cd += m.name;
  }
  uint32_t cdOff = static_cast<uint32_t>(out.size());
  out += cd;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint16_t>(members.size()));
  put16(out, static_cast<uint16_t>(members.size()));
  put32(out, static_cast<uint32_t>(cd.size()));
  put32(out, cdOff);
  put16(out, 0);
  return out;
}

}  // namespace testfiles
