// Registers whose values at a site cannot matter (Site::dead), found by a
// forward scan of the straight-line code from the site.
#pragma once

#include <capstone/capstone.h>

#include <cstddef>
#include <cstdint>

namespace ctrl {

// Site::dead of the instruction at bytes[0, n) (at `addr`) and the
// straight-line code after it: the registers defined whole before they are
// read. decode_sites() fills it in for every site. Uses a capstone handle of
// the calling thread.
uint16_t dead_registers(const uint8_t* bytes, size_t n, uint64_t addr);

namespace decoding {

// The same with the caller's capstone handle, which must have detail on;
// `scratch` (cs_malloc'd for `handle`) is overwritten. Conservative: a
// register or the flags are dead only when an instruction of the scan (at
// most 16, ending at the first control flow or undecodable instruction)
// defines them whole before any reads them.
uint16_t dead_registers(csh handle, cs_insn* scratch, const uint8_t* code, size_t size, uint64_t addr);

}  // namespace decoding
}  // namespace ctrl
