#include "sites/InstructionLength.h"

namespace ctrl::decoding {

std::optional<size_t> encoded_length(const uint8_t* b, size_t n) {
  size_t i = 0;
  while (i < n && (b[i] == 0xf0 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x36 || b[i] == 0x3e ||
                   b[i] == 0x26 || b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x66 || b[i] == 0x67)) {
    ++i;
  }
  bool rex = i < n && (b[i] & 0xf0) == 0x40;
  if (rex) ++i;
  if (i + 1 >= n) return std::nullopt;

  unsigned map = 0;
  bool vex = false;
  switch (b[i]) {
    case 0xc5:  // 2-byte VEX: map 0F
      map = 1;
      vex = true;
      i += 2;
      break;
    case 0xc4:  // 3-byte VEX: map in the low 5 bits of the first payload byte
      map = b[i + 1] & 0x1f;
      vex = true;
      i += 3;
      break;
    case 0x62:  // EVEX (64-bit mode has no BOUND): map in P0[2:0], P0[3] reserved 0, P1[2] fixed 1
      if (i + 3 >= n || (b[i + 1] & 0x08) != 0 || (b[i + 2] & 0x04) == 0) return std::nullopt;
      map = b[i + 1] & 0x07;
      vex = true;
      i += 4;
      break;
    case 0x0f:
      if (b[i + 1] == 0x38) {
        map = 2;
        i += 2;
      } else if (b[i + 1] == 0x3a) {
        map = 3;
        i += 2;
      } else if (b[i + 1] == 0x0f) {
        map = 0x0f;  // 3DNow!: ModR/M, then the opcode as a trailing imm8
        i += 2;
      } else {
        map = 1;
        i += 1;
      }
      break;
    default:
      return std::nullopt;
  }
  if (vex && rex) return std::nullopt;  // #UD
  if (map < 1 || (map > 3 && map != 0x0f)) return std::nullopt;
  if (i >= n) return std::nullopt;
  const uint8_t opcode = map == 0x0f ? 0 : b[i++];

  bool modrm = true;
  size_t imm = 0;
  if (map == 3 || map == 0x0f) {
    imm = 1;
  } else if (map == 1) {
    switch (opcode) {
      case 0x70:
      case 0x71:
      case 0x72:
      case 0x73:
      case 0xa4:
      case 0xac:
      case 0xba:
      case 0xc2:
      case 0xc4:
      case 0xc5:
      case 0xc6:
        imm = 1;
        break;
      case 0x78:
      case 0x79:  // vmread/vmwrite vs. SSE4a extrq/insertq: lengths differ
        return std::nullopt;
      default:
        break;
    }
    if (vex) {
      if (opcode == 0x77) modrm = false;  // vzeroupper/vzeroall
    } else {
      if ((opcode >= 0x80 && opcode <= 0x8f)) {
        modrm = false;  // jcc rel32
        imm = 4;
      }
      switch (opcode) {
        case 0x05:
        case 0x06:
        case 0x07:
        case 0x08:
        case 0x09:
        case 0x0b:
        case 0x0e:
        case 0x30:
        case 0x31:
        case 0x32:
        case 0x33:
        case 0x34:
        case 0x35:
        case 0x36:
        case 0x37:
        case 0x77:
        case 0xa0:
        case 0xa1:
        case 0xa2:
        case 0xa8:
        case 0xa9:
        case 0xaa:
        case 0xc8:
        case 0xc9:
        case 0xca:
        case 0xcb:
        case 0xcc:
        case 0xcd:
        case 0xce:
        case 0xcf:
          modrm = false;
          break;
        default:
          break;
      }
    }
  }
  if (modrm) {
    if (i >= n) return std::nullopt;
    const uint8_t m = b[i++];
    const unsigned mod = m >> 6, rm = m & 7;
    if (mod != 3 && rm == 4) {
      if (i >= n) return std::nullopt;
      const uint8_t sib = b[i++];
      if (mod == 0 && (sib & 7) == 5) i += 4;
    }
    if (mod == 0 && rm == 5)
      i += 4;
    else if (mod == 1)
      i += 1;
    else if (mod == 2)
      i += 4;
  }
  i += imm;
  if (i > n || i > 15) return std::nullopt;
  return i;
}

}  // namespace ctrl::decoding
