// A report file for CI (--sarif, --junit), opened before anything runs so
// that a path that cannot be written is refused at once (exit 2) rather than
// after the exploration, where it would hide the verdict. If nothing gets
// written, a file it created is removed again. (The --json file is
// JsonReport, Report.h, with the same rules.)
#pragma once

#include <string>

namespace ctrl {

class ReportFile {
 public:
  ReportFile() = default;
  // `option` names the file in errors ("--sarif"). Throws UsageError.
  ReportFile(const std::string& option, const std::string& path);
  ~ReportFile();
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  bool wanted() const { return fd_ >= 0; }
  // Replaces the file's content. No file asked for: does nothing.
  void write(const std::string& text);

 private:
  std::string option_, path_;
  int fd_ = -1;
  bool created_ = false;
  bool written_ = false;
};

}  // namespace ctrl
