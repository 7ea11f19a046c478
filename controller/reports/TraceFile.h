// Saved traces on disk.
//
// Layout (all integers little-endian):
//   bytes  0..7   magic "CTRLTRC1"
//   bytes  8..15  uint64 payload length
//   bytes 16..23  uint64 FNV-1a 64 of the payload
//   bytes 24..    the serialised ctrl::proto::Trace, exactly `length` bytes
// The checksum exists because protobuf happily parses many damaged byte
// strings into a wrong but well-formed message; a replay driven by such a
// trace would diverge for reasons that have nothing to do with the program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "SharedRegion.h"
#include "trace.pb.h"

namespace ctrl {

// The proto's format_version that this ctrl writes and accepts.
inline constexpr uint32_t kTraceFormatVersion = 1;

// Writes `trace` as given (the caller sets format_version) to a temporary
// file in the same directory, syncs it, then renames it over `path`, so a
// reader never sees a half-written trace. Throws InternalError on I/O failure.
void save_trace(const std::string& path, const proto::Trace& trace);

// A path a user names (`save FILE` at the prompt, `monitor save FILE` from
// gdb): writes `trace` only when nothing is at `path` yet, never over an
// existing file nor through a symlink (the written temporary file is
// hard-linked to `path`, which fails when `path` exists in any form), mode
// 0600. Throws UsageError with one line on any failure, leaving nothing
// behind: whoever can make ctrl save must not be able to replace a file.
void save_new_trace(const std::string& path, const proto::Trace& trace);

// Reads and validates a trace. Throws UsageError with one line naming the
// path: unreadable file, "not a ctrl trace file" (bad magic), "trace file is
// truncated" (shorter than the header or the announced payload), "trace file
// is corrupt" (checksum mismatch, trailing bytes, or unparsable payload),
// "trace format version N is not supported" (not kTraceFormatVersion).
// Then every field is validated (TraceValidation.h): "trace file is invalid
// (...)".
proto::Trace load_trace(const std::string& path);

// --model c11/rc11: the decisions' Choices into `trace` (none after the
// last one that is not Default), and back (Default past the stored ones).
void set_trace_choices(proto::Trace& trace, const std::vector<shm::Choice>& choices);
std::vector<shm::Choice> trace_choices(const proto::Trace& trace);

}  // namespace ctrl
