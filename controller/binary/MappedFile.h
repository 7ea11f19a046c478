// A file mapped read-only whole, for the site decoder to read ELF headers and
// code from. Every access goes through at(), which refuses ranges outside the
// file, so malformed headers cannot read past it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace ctrl::decoding {

class MappedFile {
 public:
  // Throws UsageError (ExitStatus.h) with one line naming `path` if the file
  // cannot be opened, is not a regular file, or cannot be mapped. An empty
  // file maps nothing: at() is always nullptr.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint64_t size() const { return size_; }

  // [offset, offset + len) of the file, or nullptr if any of it is outside.
  const uint8_t* at(uint64_t offset, uint64_t len) const {
    if (offset > size_ || len > size_ - offset) return nullptr;
    return data_ + offset;
  }

  template <class T>
  bool read(uint64_t offset, T& out) const {
    const uint8_t* p = at(offset, sizeof(T));
    if (!p) return false;
    std::memcpy(&out, p, sizeof(T));
    return true;
  }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace ctrl::decoding
