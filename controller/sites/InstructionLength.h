// The length of an x86-64 instruction from its encoding alone, independent
// of capstone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ctrl::decoding {

// Instruction length from the encoding alone, for the VEX, EVEX and 0F-map
// instructions: the families capstone 4 has gaps in (AVX-512 forms such as
// EVEX vpbroadcastb from memory, serialize, movdir64b...). Knowing the length
// of an instruction capstone cannot decode keeps decoding in step instead of
// guessing from the next byte; it also catches capstone decoding one of
// these at a different length. nullopt for everything else (the one-byte
// map, whose lengths capstone gets right, XOP, AVX512-FP16 maps) and for
// invalid or truncated encodings.
// Reads only b[0, n); a length is at most min(n, 15).
std::optional<size_t> encoded_length(const uint8_t* b, size_t n);

}  // namespace ctrl::decoding
