// What kind of file the program's stdout or stderr is ("terminal", "file",
// "pipe", "socket", "null", "device"): a program may start differently for
// each (ffmpeg's start-up allocates about 8 KB more for a regular file than
// for /dev/null, which moves every later heap address), so a trace keeps the
// kinds it was recorded with and a replay says when its own differ.
#pragma once

#include <string>

namespace ctrl {

// The kind of descriptor `fd` of ctrl itself ("closed" if it is not open).
std::string output_kind(int fd);
// The kind in words ("a terminal", "/dev/null", ...).
std::string describe_output_kind(const std::string& kind);

}  // namespace ctrl
