// Function ranges from a module's .eh_frame (LSB "Exception Frame" format):
// every FDE covers one function (or a part of one), so its start is a known
// instruction boundary even in a stripped file.
#pragma once

#include <vector>

#include "binary/ElfLayout.h"
#include "binary/MappedFile.h"

namespace ctrl::decoding {

// Appends [initial location, + address range) of every usable FDE of the
// .eh_frame sections to `out`, as link-time addresses. Only the FDEs' ranges
// are read, but reaching them means decoding each CIE's augmentation to learn
// the FDE pointer encoding; an FDE whose CIE cannot be parsed, or whose
// pointers are neither absolute nor pc-relative, is dropped. A malformed
// record ends the scan of its section; zero-length records (terminators,
// padding between input sections) do not. Never reads outside the section.
void add_eh_frame_ranges(const MappedFile& file, const ElfLayout& elf, std::vector<Range>& out);

}  // namespace ctrl::decoding
