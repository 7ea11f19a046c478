#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "exploration/Explorer.h"

namespace ctrl {
namespace {

namespace fs = std::filesystem;

class TraceDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ctrl-tracedir-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

// The traces in it hold the program's environment: a directory ctrl makes
// is its owner's only, whatever the umask lets through.
TEST_F(TraceDirTest, MadeDirectoriesAreTheOwnersOnly) {
  mode_t old = ::umask(022);
  {
    TraceDir dir((root_ / "a" / "b").string());
    dir.make();
  }
  ::umask(old);
  EXPECT_EQ(fs::status(root_ / "a").permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(root_ / "a" / "b").permissions() & fs::perms::all, fs::perms::owner_all);
}

// An existing directory keeps the mode its owner chose.
TEST_F(TraceDirTest, ExistingDirectoryKeepsItsMode) {
  fs::create_directory(root_ / "shared");
  fs::permissions(root_ / "shared", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  {
    TraceDir dir((root_ / "shared").string());
    dir.make();
  }
  EXPECT_EQ(fs::status(root_ / "shared").permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

}  // namespace
}  // namespace ctrl
