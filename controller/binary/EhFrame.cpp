#include "binary/EhFrame.h"

#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace ctrl::decoding {
namespace {

constexpr uint8_t kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03, kPeUdata8 = 0x04,
                  kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b, kPeSdata8 = 0x0c, kPePcrel = 0x10,
                  kPeOmit = 0xff;

// Bounds-checked little-endian reader over [0, end) of a buffer; a read past
// `end` clears ok() and yields 0.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, uint64_t end, uint64_t pos) : data_(data), end_(end), pos_(pos) {}
  bool ok() const { return ok_; }
  uint64_t pos() const { return pos_; }

  template <class T>
  T fixed() {
    T v{};
    if (!take(sizeof(T))) return v;
    std::memcpy(&v, data_ + pos_ - sizeof(T), sizeof(T));
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!take(1)) return 0;
      uint8_t b = data_[pos_ - 1];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (!take(1)) return 0;
      b = data_[pos_ - 1];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  std::string_view cstr() {
    uint64_t start = pos_;
    while (pos_ < end_ && data_[pos_] != 0) ++pos_;
    if (!take(1)) return {};
    return std::string_view(reinterpret_cast<const char*>(data_ + start), pos_ - 1 - start);
  }
  bool take(uint64_t n) {
    if (!ok_ || n > end_ - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += n;
    return true;
  }

 private:
  const uint8_t* data_;
  uint64_t end_;
  uint64_t pos_;
  bool ok_ = true;
};

// The value format of a DW_EH_PE encoding (low nibble), no application.
std::optional<uint64_t> read_pointer_value(ByteReader& r, uint8_t encoding) {
  uint64_t v = 0;
  switch (encoding & 0x0f) {
    case kPeAbsptr:
    case kPeUdata8:
      v = r.fixed<uint64_t>();
      break;
    case kPeUleb128:
      v = r.uleb();
      break;
    case kPeUdata2:
      v = r.fixed<uint16_t>();
      break;
    case kPeUdata4:
      v = r.fixed<uint32_t>();
      break;
    case kPeSleb128:
      v = static_cast<uint64_t>(r.sleb());
      break;
    case kPeSdata2:
      v = static_cast<uint64_t>(int64_t{r.fixed<int16_t>()});
      break;
    case kPeSdata4:
      v = static_cast<uint64_t>(int64_t{r.fixed<int32_t>()});
      break;
    case kPeSdata8:
      v = static_cast<uint64_t>(r.fixed<int64_t>());
      break;
    default:
      return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  return v;
}

// An encoded pointer as a link-time address. Only absolute and pc-relative
// pointers can be resolved from the file alone; x86-64 toolchains emit
// pc-relative FDE pointers, so the others just drop the FDE.
std::optional<uint64_t> read_pointer(ByteReader& r, uint8_t encoding, uint64_t section_vaddr) {
  if (encoding == kPeOmit) return std::nullopt;
  uint64_t field = section_vaddr + r.pos();
  auto v = read_pointer_value(r, encoding);
  if (!v) return std::nullopt;
  switch (encoding & 0xf0) {
    case 0:
      return v;
    case kPePcrel:
      return *v + field;
    default:
      return std::nullopt;
  }
}

struct Cie {
  bool usable = false;
  uint8_t fde_encoding = kPeAbsptr;
};

// `off` is the CIE's length field inside the section.
Cie parse_cie(const uint8_t* data, uint64_t size, uint64_t off) {
  Cie cie;
  ByteReader r(data, size, off);
  uint64_t len = r.fixed<uint32_t>();
  if (len == 0xffffffff) len = r.fixed<uint64_t>();
  if (!r.ok() || len > size - r.pos()) return cie;
  ByteReader body(data, r.pos() + len, r.pos());
  if (body.fixed<uint32_t>() != 0) return cie;  // not a CIE
  uint8_t version = body.fixed<uint8_t>();
  std::string_view aug = body.cstr();
  body.uleb();  // code alignment
  body.sleb();  // data alignment
  if (version == 1)
    body.fixed<uint8_t>();
  else
    body.uleb();  // return address register
  if (!body.ok()) return cie;
  if (aug.empty()) {
    cie.usable = true;
    return cie;
  }
  if (aug[0] != 'z') return cie;  // pre-'z' augmentations: data layout unknown
  body.uleb();                    // augmentation data length
  for (char c : aug.substr(1)) {
    switch (c) {
      case 'L':
        body.fixed<uint8_t>();
        break;
      case 'P': {
        uint8_t enc = body.fixed<uint8_t>();
        if (!read_pointer_value(body, enc)) return cie;
        break;
      }
      case 'R':
        cie.fde_encoding = body.fixed<uint8_t>();
        break;
      case 'S':
      case 'B':
      case 'G':
        break;
      default:
        // Letters after 'R' cannot change the FDE encoding already read.
        cie.usable = body.ok() && aug.find('R') < aug.find(c);
        return cie;
    }
  }
  cie.usable = body.ok();
  return cie;
}

}  // namespace

void add_eh_frame_ranges(const MappedFile& file, const ElfLayout& elf, std::vector<Range>& out) {
  for (const Section& sec : elf.sections) {
    if (sec.name != ".eh_frame") continue;
    if (sec.hdr.sh_type != SHT_PROGBITS && sec.hdr.sh_type != SHT_X86_64_UNWIND) continue;
    const uint8_t* data = section_data(file, sec.hdr);
    if (!data) continue;
    const uint64_t size = sec.hdr.sh_size;
    std::unordered_map<uint64_t, Cie> cies;
    uint64_t off = 0;
    while (size - off >= 4) {
      ByteReader r(data, size, off);
      uint64_t len = r.fixed<uint32_t>();
      if (len == 0) {  // terminator, or padding between input sections: keep scanning
        off += 4;
        continue;
      }
      if (len == 0xffffffff) len = r.fixed<uint64_t>();
      if (!r.ok() || len > size - r.pos() || len < 4) break;
      const uint64_t body = r.pos();
      const uint64_t next = body + len;
      uint32_t cie_pointer = r.fixed<uint32_t>();
      // An FDE's CIE pointer is the distance back from the pointer field itself.
      if (cie_pointer != 0 && cie_pointer <= body) {
        uint64_t cie_off = body - cie_pointer;
        auto it = cies.find(cie_off);
        if (it == cies.end()) it = cies.emplace(cie_off, parse_cie(data, size, cie_off)).first;
        if (it->second.usable) {
          ByteReader fr(data, next, r.pos());
          auto begin = read_pointer(fr, it->second.fde_encoding, sec.hdr.sh_addr);
          auto length = read_pointer_value(fr, it->second.fde_encoding);
          if (begin && length && *length > 0 && *begin + *length > *begin) {
            out.push_back({*begin, *begin + *length});
          }
        }
      }
      off = next;
    }
  }
}

}  // namespace ctrl::decoding
