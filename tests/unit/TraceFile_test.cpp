#include "reports/TraceFile.h"

#include <gmock/gmock.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ctrl-tracefile-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::string read_bytes(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void write_bytes(const std::string& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  // Expects load_trace to refuse the file with a one-line UsageError.
  static void expect_refused(const std::string& p, const std::string& phrase) {
    try {
      load_trace(p);
      ADD_FAILURE() << "load_trace accepted " << p << ", expected: " << phrase;
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr(phrase));
      EXPECT_THAT(e.what(), HasSubstr(p));
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }

  fs::path dir_;
};

proto::Trace sample_trace() {
  proto::Trace t;
  t.set_format_version(kTraceFormatVersion);
  t.set_ctrl_version("0.1.0");
  auto* program = t.mutable_program();
  program->set_path("/usr/bin/true");
  program->set_size(39256);
  program->set_content_hash("0123456789abcdef");
  program->add_args("--flag");
  program->add_args("with space");
  program->add_env("HOME=/root");
  program->set_cwd("/tmp");
  auto* options = t.mutable_options();
  options->set_strategy("random");
  options->set_seed(0xdeadbeefcafeULL);
  options->set_max_steps(10000);
  options->set_model("sc");
  options->set_hang_timeout_ms(2500);
  t.set_execution(17);
  auto* bug = t.mutable_bug();
  bug->set_kind("assertion");
  bug->set_message("counter == 2");
  bug->set_thread(1);
  bug->set_site(0x401234);
  for (uint32_t i = 0; i < 300; ++i) {
    t.add_decisions(i % 3);
    auto* s = t.add_signatures();
    s->set_thread(i % 3);
    s->set_kind(i % 7);
    s->set_site(0x400000 + i);
    s->set_addr(0x7fff0000 + 8 * i);
  }
  return t;
}

uint64_t le64_at(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

void put_le64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Written independently of the implementation, from the published constants.
uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// A message's bytes in deterministic serialisation (map entries sorted):
// two traces are equal field for field exactly when these are. (The trace
// messages are lite: no reflection, so no MessageDifferencer.)
std::string canonical(const proto::Trace& t) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    t.SerializeToCodedStream(&coded);
  }
  return out;
}

// A file with a valid header around an arbitrary payload.
std::string framed(const std::string& payload) {
  std::string bytes = "CTRLTRC1";
  put_le64(bytes, payload.size());
  put_le64(bytes, fnv1a64(payload));
  return bytes + payload;
}

TEST_F(TraceFileTest, RoundTripPreservesEveryField) {
  const proto::Trace original = sample_trace();
  save_trace(path("t.trace"), original);
  const proto::Trace loaded = load_trace(path("t.trace"));
  EXPECT_EQ(canonical(original), canonical(loaded));
}

TEST_F(TraceFileTest, FileHasTheDocumentedLayout) {
  const proto::Trace original = sample_trace();
  save_trace(path("t.trace"), original);
  const std::string bytes = read_bytes(path("t.trace"));
  ASSERT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), "CTRLTRC1");
  const std::string payload = bytes.substr(24);
  EXPECT_EQ(le64_at(bytes, 8), payload.size());
  EXPECT_EQ(le64_at(bytes, 16), fnv1a64(payload));
  proto::Trace parsed;
  ASSERT_TRUE(parsed.ParseFromString(payload));
  EXPECT_EQ(canonical(original), canonical(parsed));
}

TEST_F(TraceFileTest, HandFramedPayloadLoads) {
  write_bytes(path("hand.trace"), framed(sample_trace().SerializeAsString()));
  EXPECT_EQ(load_trace(path("hand.trace")).execution(), 17u);
}

TEST_F(TraceFileTest, OverwriteReplacesAndLeavesNoTemporaryFiles) {
  proto::Trace first = sample_trace();
  save_trace(path("t.trace"), first);
  proto::Trace second = sample_trace();
  second.set_execution(99);
  second.clear_decisions();
  second.clear_signatures();  // as many as decisions (TraceValidation.h)
  save_trace(path("t.trace"), second);
  EXPECT_EQ(load_trace(path("t.trace")).execution(), 99u);
  EXPECT_EQ(load_trace(path("t.trace")).decisions_size(), 0);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(TraceFileTest, SavedTraceIsReadableByItsOwnerOnly) {
  // Whatever the umask allows: a trace holds the program's environment.
  mode_t old = ::umask(022);
  save_trace(path("t.trace"), sample_trace());
  ::umask(old);
  EXPECT_EQ(fs::status(path("t.trace")).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

// A file the user named that cannot be written is the user's to fix (exit 2).
TEST_F(TraceFileTest, SaveIntoMissingDirectoryIsAUsageError) {
  EXPECT_THROW(save_trace(path("no/such/dir/t.trace"), sample_trace()), UsageError);
}

TEST_F(TraceFileTest, MissingFileIsRefused) { expect_refused(path("absent.trace"), "cannot read"); }

TEST_F(TraceFileTest, DirectoryIsRefused) {
  fs::create_directory(path("d"));
  expect_refused(path("d"), "cannot read");
}

TEST_F(TraceFileTest, BadMagicIsNotATrace) {
  std::string bytes = framed(sample_trace().SerializeAsString());
  bytes[7] = '2';
  write_bytes(path("magic.trace"), bytes);
  expect_refused(path("magic.trace"), "not a ctrl trace file");

  write_bytes(path("text.trace"), "this is a text file, not a trace at all\n");
  expect_refused(path("text.trace"), "not a ctrl trace file");

  write_bytes(path("short.trace"), "XY");
  expect_refused(path("short.trace"), "not a ctrl trace file");
}

TEST_F(TraceFileTest, TruncationAtAnyLengthIsDetected) {
  save_trace(path("full.trace"), sample_trace());
  const std::string bytes = read_bytes(path("full.trace"));
  ASSERT_GT(bytes.size(), 100u);
  for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(15), size_t(16), size_t(23), size_t(24),
                     size_t(25), bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE(len);
    write_bytes(path("cut.trace"), bytes.substr(0, len));
    expect_refused(path("cut.trace"), "trace file is truncated");
  }
}

TEST_F(TraceFileTest, HugeAnnouncedLengthIsTruncationNotACrash) {
  std::string bytes = framed("abc");
  for (size_t i = 8; i < 16; ++i) bytes[i] = '\xff';
  write_bytes(path("huge.trace"), bytes);
  expect_refused(path("huge.trace"), "trace file is truncated");
}

TEST_F(TraceFileTest, FlippedPayloadByteIsCorrupt) {
  save_trace(path("full.trace"), sample_trace());
  const std::string bytes = read_bytes(path("full.trace"));
  for (size_t at : {size_t(24), size_t(25), bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE(at);
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x01);
    write_bytes(path("flip.trace"), damaged);
    expect_refused(path("flip.trace"), "trace file is corrupt");
  }
}

TEST_F(TraceFileTest, FlippedChecksumIsCorrupt) {
  save_trace(path("full.trace"), sample_trace());
  std::string bytes = read_bytes(path("full.trace"));
  bytes[20] = static_cast<char>(bytes[20] ^ 0x80);
  write_bytes(path("sum.trace"), bytes);
  expect_refused(path("sum.trace"), "trace file is corrupt");
}

TEST_F(TraceFileTest, TrailingBytesAreCorrupt) {
  save_trace(path("full.trace"), sample_trace());
  write_bytes(path("long.trace"), read_bytes(path("full.trace")) + "x");
  expect_refused(path("long.trace"), "trace file is corrupt");
}

TEST_F(TraceFileTest, UnparsablePayloadWithValidChecksumIsCorrupt) {
  write_bytes(path("junk.trace"), framed(std::string(32, '\xff')));
  expect_refused(path("junk.trace"), "trace file is corrupt");
}

TEST_F(TraceFileTest, OtherFormatVersionIsRefused) {
  proto::Trace t = sample_trace();
  t.set_format_version(7);
  save_trace(path("v7.trace"), t);
  expect_refused(path("v7.trace"), "trace format version 7 is not supported");

  t.clear_format_version();
  save_trace(path("v0.trace"), t);
  expect_refused(path("v0.trace"), "trace format version 0 is not supported");
}

shm::Choice choice(shm::ChoiceKind kind, uint8_t flags, uint32_t from, uint64_t value) {
  shm::Choice c{};
  c.kind = kind;
  c.flags = flags;
  c.from = from;
  c.value = value;
  return c;
}

// --model c11/rc11: each decision's Choice goes into the trace and back.
TEST_F(TraceFileTest, ChoicesRoundTripWithoutTrailingDefaults) {
  proto::Trace t = sample_trace();
  std::vector<shm::Choice> choices = {choice(shm::ChoiceKind::Default, 0, 0, 0),
                                      choice(shm::ChoiceKind::ReadFrom, 0, shm::kFromInit, 0),
                                      choice(shm::ChoiceKind::Promise, 0, 2, 0xffffffffffffull),
                                      choice(shm::ChoiceKind::Default, shm::kNotMoLast, 0, 0),
                                      choice(shm::ChoiceKind::Default, 0, 0, 0)};
  set_trace_choices(t, choices);
  EXPECT_EQ(t.choices_size(), 4);  // the last Default is implied
  save_trace(path("c11.trace"), t);
  std::vector<shm::Choice> back = trace_choices(load_trace(path("c11.trace")));
  ASSERT_EQ(back.size(), 4u);
  for (size_t k = 0; k < back.size(); ++k) {
    EXPECT_EQ(back[k].kind, choices[k].kind) << k;
    EXPECT_EQ(back[k].flags, choices[k].flags) << k;
    EXPECT_EQ(back[k].from, choices[k].from) << k;
    EXPECT_EQ(back[k].value, choices[k].value) << k;
  }
  // A trace without Choices (every older one): all Default.
  EXPECT_TRUE(trace_choices(sample_trace()).empty());
}

TEST_F(TraceFileTest, BadChoicesAreInvalid) {
  proto::Trace t = sample_trace();
  t.add_choices()->set_kind(3);
  save_trace(path("kind.trace"), t);
  expect_refused(path("kind.trace"), "invalid");
  t = sample_trace();
  t.add_choices()->set_flags(2);
  save_trace(path("flags.trace"), t);
  expect_refused(path("flags.trace"), "invalid");
  t = sample_trace();
  for (int k = 0; k <= t.decisions_size(); ++k) t.add_choices();
  save_trace(path("many.trace"), t);
  expect_refused(path("many.trace"), "invalid");
}


TEST_F(TraceFileTest, FieldsCtrlNeverWritesAreInvalid) {
  struct Edit {
    const char* what;
    void (*edit)(proto::Trace&);
  };
  const Edit edits[] = {
      {"unknown strategy", [](proto::Trace& t) { t.mutable_options()->set_strategy("bogus"); }},
      {"unknown memory model", [](proto::Trace& t) { t.mutable_options()->set_model("weak"); }},
      {"thread 4294967295", [](proto::Trace& t) { t.set_decisions(0, 0xffffffffu); }},
      {"decisions but", [](proto::Trace& t) { t.mutable_decisions()->RemoveLast(); }},
      {"unknown operation kind", [](proto::Trace& t) { t.mutable_signatures(0)->set_kind(999); }},
      {"absolute path", [](proto::Trace& t) { t.mutable_program()->set_path("relative"); }},
  };
  for (const Edit& e : edits) {
    proto::Trace t = sample_trace();
    e.edit(t);
    save_trace(path("edited.trace"), t);
    expect_refused(path("edited.trace"), e.what);
  }
}

TEST_F(TraceFileTest, SaveNewTraceWritesOnlyNewFiles) {
  save_new_trace(path("new.trace"), sample_trace());
  EXPECT_EQ(load_trace(path("new.trace")).execution(), 17u);
  struct stat st {};
  ASSERT_EQ(::stat(path("new.trace").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  write_bytes(path("existing"), "keep me");
  EXPECT_THROW(save_new_trace(path("existing"), sample_trace()), UsageError);
  EXPECT_EQ(read_bytes(path("existing")), "keep me");
  ASSERT_EQ(::symlink(path("existing").c_str(), path("link").c_str()), 0);
  EXPECT_THROW(save_new_trace(path("link"), sample_trace()), UsageError);
  EXPECT_EQ(read_bytes(path("existing")), "keep me");
  EXPECT_THROW(save_new_trace(path("no/such/dir/t.trace"), sample_trace()), UsageError);
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 3u);  // new.trace, existing, link: no temporary file left
}

}  // namespace
}  // namespace ctrl
