#include "SiteMath.h"

#include <capstone/x86.h>
#include <sys/ucontext.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <gtest/gtest.h>

#include "sites/SiteClassifier.h"

namespace ctrl {
namespace {

// Contexts are built by hand; sites come from the decoder, so these tests
// also pin the contract between SiteDecoder and SiteMath.
class SiteMathTest : public ::testing::Test {
 protected:
  void SetUp() override { uc_.uc_mcontext.fpregs = &fp_; }

  void set(int greg, uint64_t value) { uc_.uc_mcontext.gregs[greg] = static_cast<greg_t>(value); }
  void set_xmm(int n, uint64_t low, uint64_t high = 0) {
    fp_._xmm[n].element[0] = static_cast<uint32_t>(low);
    fp_._xmm[n].element[1] = static_cast<uint32_t>(low >> 32);
    fp_._xmm[n].element[2] = static_cast<uint32_t>(high);
    fp_._xmm[n].element[3] = static_cast<uint32_t>(high >> 32);
  }
  void set_flags(uint64_t flags) { set(REG_EFL, flags); }

  static Site site(std::initializer_list<uint8_t> bytes) {
    std::vector<uint8_t> b(bytes);
    Site s{};
    EXPECT_EQ(classify(b.data(), b.size(), 0x401000, s), Classification::kSite);
    return s;
  }

  uint64_t reg(uint16_t r) {
    uint64_t v = 0xdeadbeefdeadbeef;
    EXPECT_TRUE(read_register(uc_, r, v)) << "register " << r;
    return v;
  }

  uint64_t write(const Site& s, uint64_t old) {
    bool failed = true;
    uint64_t v = value_to_write(s, uc_, old, failed);
    EXPECT_FALSE(failed);
    return v;
  }

  ucontext_t uc_{};
  _libc_fpstate fp_{};
};

constexpr uint64_t kCF = 1u << 0;
constexpr uint64_t kDF = 1u << 10;

TEST_F(SiteMathTest, ReadsGeneralRegistersAtEveryWidth) {
  set(REG_RAX, 0x1122334455667788);
  set(REG_R8, 0xfedcba9876543210);
  set(REG_R15, 0x00000000000000ab);
  set(REG_RSP, 0x7ffc0000);
  set(REG_RIP, 0x401234);
  EXPECT_EQ(reg(X86_REG_RAX), 0x1122334455667788u);
  EXPECT_EQ(reg(X86_REG_EAX), 0x55667788u);
  EXPECT_EQ(reg(X86_REG_AX), 0x7788u);
  EXPECT_EQ(reg(X86_REG_AL), 0x88u);
  EXPECT_EQ(reg(X86_REG_AH), 0x77u);
  EXPECT_EQ(reg(X86_REG_R8D), 0x76543210u);
  EXPECT_EQ(reg(X86_REG_R8W), 0x3210u);
  EXPECT_EQ(reg(X86_REG_R8B), 0x10u);
  EXPECT_EQ(reg(X86_REG_R15B), 0xabu);
  EXPECT_EQ(reg(X86_REG_RSP), 0x7ffc0000u);
  EXPECT_EQ(reg(X86_REG_RIP), 0x401234u);
}

TEST_F(SiteMathTest, ReadsTheLowHalfOfVectorRegisters) {
  set_xmm(3, 0x0123456789abcdef, 0xffffffffffffffff);
  EXPECT_EQ(reg(X86_REG_XMM3), 0x0123456789abcdefu);
  EXPECT_EQ(reg(X86_REG_YMM3), 0x0123456789abcdefu);
  EXPECT_EQ(reg(X86_REG_ZMM3), 0x0123456789abcdefu);
  set_xmm(15, 42);
  EXPECT_EQ(reg(X86_REG_XMM15), 42u);
}

TEST_F(SiteMathTest, RefusesRegistersItCannotRead) {
  uint64_t v = 0;
  EXPECT_FALSE(read_register(uc_, X86_REG_FS, v));
  EXPECT_FALSE(read_register(uc_, X86_REG_XMM16, v));
  EXPECT_FALSE(read_register(uc_, X86_REG_K1, v));
  EXPECT_FALSE(read_register(uc_, X86_REG_MM0, v));
  EXPECT_FALSE(read_register(uc_, X86_REG_INVALID, v));
  uc_.uc_mcontext.fpregs = nullptr;
  EXPECT_FALSE(read_register(uc_, X86_REG_XMM0, v));
}

TEST_F(SiteMathTest, EffectiveAddressBaseIndexScaleDisp) {
  Site s = site({0xc5, 0xfe, 0x6f, 0x64, 0x8f, 0x10});  // vmovdqu ymm4, [rdi+rcx*4+0x10]
  set(REG_RDI, 0x10000);
  set(REG_RCX, 3);
  EXPECT_EQ(effective_address(s, uc_, 0, 0, 0), 0x10000u + 3 * 4 + 0x10);

  Site neg = site({0x48, 0x89, 0x45, 0xf8});  // mov [rbp-8], rax
  set(REG_RBP, 0x7000);
  EXPECT_EQ(effective_address(neg, uc_, 0, 0, 0), 0x7000u - 8);
}

TEST_F(SiteMathTest, EffectiveAddressRipRelative) {
  Site s = site({0x8b, 0x05, 0x00, 0x01, 0x00, 0x00});  // mov eax, [rip+0x100]
  const uint64_t runtime = 0x7f1234560000;
  EXPECT_EQ(effective_address(s, uc_, runtime + s.length, 0, 0), runtime + 6 + 0x100);
  Site back = site({0x8a, 0x05, 0xfc, 0xff, 0xff, 0xff});  // mov al, [rip-4]
  EXPECT_EQ(effective_address(back, uc_, runtime + back.length, 0, 0), runtime + 6 - 4);
}

TEST_F(SiteMathTest, EffectiveAddressSegments) {
  Site fs = site({0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00});  // mov rax, fs:[0x28]
  EXPECT_EQ(effective_address(fs, uc_, 0, 0x7f0000001000, 0x5000), 0x7f0000001028u);
  Site gs = site({0x65, 0xc7, 0x40, 0x08, 0x01, 0x00, 0x00, 0x00});  // mov dword gs:[rax+8], 1
  set(REG_RAX, 0x10);
  EXPECT_EQ(effective_address(gs, uc_, 0, 0x7f0000001000, 0x5000), 0x5018u);
}

TEST_F(SiteMathTest, EffectiveAddressWrapsUnderAddressSizePrefix) {
  Site s = site({0x67, 0x8b, 0x40, 0x04});  // mov eax, [eax+4]
  set(REG_RAX, 0xfffffffffffffffe);
  EXPECT_EQ(effective_address(s, uc_, 0, 0, 0), 0x2u);
}

TEST_F(SiteMathTest, BitTestAndSetWithARegisterOffsetReachesOtherWords) {
  Site s = site({0xf0, 0x48, 0x0f, 0xab, 0x07});  // lock bts [rdi], rax
  set(REG_RDI, 0x1000);
  set(REG_RAX, 130);  // bit 2 of the third qword
  EXPECT_EQ(effective_address(s, uc_, 0, 0, 0), 0x1010u);
  EXPECT_EQ(write(s, 0x1), 0x5u);
  set(REG_RAX, static_cast<uint64_t>(-1));  // bit 63 of the qword below
  EXPECT_EQ(effective_address(s, uc_, 0, 0, 0), 0xff8u);
  EXPECT_EQ(write(s, 0), 0x8000000000000000u);

  Site imm = site({0xf0, 0x0f, 0xba, 0x2f, 0x23});  // lock bts dword [rdi], 35: imm is taken mod 32
  EXPECT_EQ(effective_address(imm, uc_, 0, 0, 0), 0x1000u);
  EXPECT_EQ(write(imm, 0x1), 0x9u);
}

TEST_F(SiteMathTest, ValueOfMovStores) {
  set(REG_RAX, 0x1122334455667788);
  EXPECT_EQ(write(site({0x48, 0x89, 0x45, 0xf8}), 0), 0x1122334455667788u);  // mov [rbp-8], rax
  EXPECT_EQ(write(site({0x89, 0x07}), 0), 0x55667788u);                      // mov [rdi], eax
  EXPECT_EQ(write(site({0x88, 0x27}), 0), 0x77u);                            // mov [rdi], ah
  EXPECT_EQ(write(site({0x66, 0xc7, 0x07, 0x34, 0x12}), 0), 0x1234u);       // mov word [rdi], 0x1234
  EXPECT_EQ(write(site({0xc6, 0x07, 0xff}), 0), 0xffu);                      // mov byte [rdi], 0xff
  EXPECT_EQ(write(site({0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0xff}), 0), ~uint64_t{0});  // mov qword [rdi], -1
  EXPECT_EQ(write(site({0xc7, 0x07, 0xff, 0xff, 0xff, 0xff}), 0), 0xffffffffu);         // mov dword [rdi], -1
  set_xmm(2, 0xaaaabbbbccccdddd, 0x1111);
  EXPECT_EQ(write(site({0xf3, 0x0f, 0x7f, 0x17}), 0), 0xaaaabbbbccccddddu);  // movdqu [rdi], xmm2
  EXPECT_EQ(write(site({0x66, 0x0f, 0x7e, 0x17}), 0), 0xccccddddu);          // movd [rdi], xmm2
  EXPECT_EQ(write(site({0x0f, 0x95, 0x07}), 0x55), 0u);                      // setne [rdi]: unknown
}

TEST_F(SiteMathTest, ValueOfArithmetic) {
  set(REG_RAX, 0x20);
  EXPECT_EQ(write(site({0x01, 0x07}), 0xfffffff0), 0x10u);  // add [rdi], eax wraps at 32 bits
  EXPECT_EQ(write(site({0x48, 0x83, 0x2d, 0x00, 0x02, 0x00, 0x00, 0x07}), 10), 3u);  // sub [rip+x], 7
  EXPECT_EQ(write(site({0x83, 0x27, 0xf0}), 0x1234), 0x1230u);  // and dword [rdi], 0xfffffff0
  EXPECT_EQ(write(site({0xf0, 0x09, 0x07}), 0x1), 0x21u);       // lock or [rdi], eax
  EXPECT_EQ(write(site({0x31, 0x07}), 0x21), 0x1u);             // xor [rdi], eax
  set_flags(kCF);
  EXPECT_EQ(write(site({0x83, 0x17, 0x01}), 5), 7u);  // adc dword [rdi], 1 with CF
  set(REG_RAX, 3);
  EXPECT_EQ(write(site({0x19, 0x07}), 10), 6u);  // sbb [rdi], eax with CF
  set_flags(0);
  EXPECT_EQ(write(site({0x19, 0x07}), 10), 7u);
}

TEST_F(SiteMathTest, ValueOfUnaryOps) {
  EXPECT_EQ(write(site({0xf0, 0xff, 0x07}), 0xffffffff), 0u);            // lock inc dword [rdi]
  EXPECT_EQ(write(site({0xf0, 0xff, 0x0f}), 0), 0xffffffffu);            // lock dec dword [rdi]
  EXPECT_EQ(write(site({0x48, 0xf7, 0x1f}), 1), ~uint64_t{0});           // neg qword [rdi]
  EXPECT_EQ(write(site({0xf6, 0x17}), 0x0f), 0xf0u);                     // not byte [rdi]
  EXPECT_EQ(write(site({0x66, 0x0f, 0xba, 0x37, 0x05}), 0xffff), 0xffdfu);  // btr word [rdi], 5
  EXPECT_EQ(write(site({0xf0, 0x0f, 0xba, 0x3f, 0x1f}), 0x80000001), 0x1u);  // lock btc dword [rdi], 31
}

TEST_F(SiteMathTest, ValueOfExchanges) {
  set(REG_RAX, 3);
  EXPECT_EQ(write(site({0xf0, 0x0f, 0xc1, 0x05, 0x34, 0x12, 0x00, 0x00}), 5), 8u);  // lock xadd [rip+x], eax
  set(REG_RAX, 0xabcdef);
  EXPECT_EQ(write(site({0x48, 0x87, 0x07}), 5), 0xabcdefu);  // xchg [rdi], rax
}

TEST_F(SiteMathTest, ValueOfCompareExchange) {
  Site s = site({0xf0, 0x48, 0x0f, 0xb1, 0x4f, 0x08});  // lock cmpxchg [rdi+8], rcx
  set(REG_RAX, 7);
  set(REG_RCX, 99);
  bool failed = true;
  EXPECT_EQ(value_to_write(s, uc_, 7, failed), 99u);
  EXPECT_FALSE(failed);
  EXPECT_EQ(value_to_write(s, uc_, 8, failed), 8u);
  EXPECT_TRUE(failed);

  Site narrow = site({0x0f, 0xb1, 0x0f});  // cmpxchg dword [rdi], ecx: compares eax only
  set(REG_RAX, 0xffffffff00000007);
  set(REG_RCX, 0x1234567800000063);
  EXPECT_EQ(value_to_write(narrow, uc_, 7, failed), 0x63u);
  EXPECT_FALSE(failed);
}

TEST_F(SiteMathTest, ValueOfCmpxchg8bAnd16b) {
  Site s8 = site({0xf0, 0x0f, 0xc7, 0x0f});  // lock cmpxchg8b [rdi]: edx:eax / ecx:ebx
  set(REG_RDX, 0x11111111);
  set(REG_RAX, 0x22222222);
  set(REG_RCX, 0x33333333);
  set(REG_RBX, 0x44444444);
  bool failed = true;
  EXPECT_EQ(value_to_write(s8, uc_, 0x1111111122222222, failed), 0x3333333344444444u);
  EXPECT_FALSE(failed);
  EXPECT_EQ(value_to_write(s8, uc_, 0x1111111122222223, failed), 0x1111111122222223u);
  EXPECT_TRUE(failed);

  Site s16 = site({0xf0, 0x48, 0x0f, 0xc7, 0x0f});  // lock cmpxchg16b [rdi]: rdx:rax / rcx:rbx
  set(REG_RAX, 1);
  set(REG_RDX, 2);
  set(REG_RBX, 3);
  set(REG_RCX, 4);
  uint64_t high = 0;
  EXPECT_EQ(value_to_write(s16, uc_, 1, 2, failed, high), 3u);
  EXPECT_FALSE(failed);
  EXPECT_EQ(high, 4u);
  EXPECT_EQ(value_to_write(s16, uc_, 1, 5, failed, high), 1u);
  EXPECT_TRUE(failed);
  EXPECT_EQ(high, 5u);
  // The 8-byte form decides on the low half alone.
  EXPECT_EQ(value_to_write(s16, uc_, 1, failed), 3u);
  EXPECT_FALSE(failed);
  EXPECT_EQ(value_to_write(s16, uc_, 9, failed), 9u);
  EXPECT_TRUE(failed);
}

TEST_F(SiteMathTest, MemoryUnchangedByLoadsAndFences) {
  bool failed = true;
  EXPECT_EQ(value_to_write(site({0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}), uc_, 0x1234, failed), 0x1234u);
  EXPECT_FALSE(failed);
  EXPECT_EQ(value_to_write(site({0x0f, 0xae, 0xf0}), uc_, 0x55, failed), 0x55u);
  EXPECT_EQ(value_to_write(site({0x48, 0xad}), uc_, 0x66, failed), 0x66u);  // lodsq
}

TEST_F(SiteMathTest, ValueOfStringStores) {
  set(REG_RAX, 0x1122334455667788);
  EXPECT_EQ(write(site({0xf3, 0x48, 0xab}), 0), 0x1122334455667788u);  // rep stosq
  EXPECT_EQ(write(site({0xf3, 0xaa}), 0), 0x88u);                      // rep stosb
  EXPECT_EQ(write(site({0xf3, 0xa4}), 0x42), 0u);                      // rep movsb: the value is at rsi
}

TEST_F(SiteMathTest, StringAccessForwards) {
  set(REG_RDI, 0x1000);
  set(REG_RSI, 0x2000);
  set(REG_RCX, 4);
  StringAccess a = string_access(site({0xf3, 0x48, 0xab}), uc_);  // rep stosq
  EXPECT_EQ(a.dst, 0x1000u);
  EXPECT_EQ(a.src, 0u);
  EXPECT_EQ(a.bytes, 32u);

  a = string_access(site({0xa5}), uc_);  // movsd without rep: one element, rcx ignored
  EXPECT_EQ(a.dst, 0x1000u);
  EXPECT_EQ(a.src, 0x2000u);
  EXPECT_EQ(a.bytes, 4u);

  a = string_access(site({0x48, 0xad}), uc_);  // lodsq
  EXPECT_EQ(a.dst, 0u);
  EXPECT_EQ(a.src, 0x2000u);
  EXPECT_EQ(a.bytes, 8u);

  set(REG_RCX, 0);
  a = string_access(site({0xf3, 0xa4}), uc_);  // rep movsb with rcx = 0 touches nothing
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_EQ(a.dst, 0x1000u);
}

TEST_F(SiteMathTest, StringAccessBackwardsWithDirectionFlag) {
  set_flags(kDF);
  set(REG_RDI, 0x2000);
  set(REG_RSI, 0x3000);
  set(REG_RCX, 10);
  StringAccess a = string_access(site({0xf3, 0xa4}), uc_);  // std; rep movsb
  EXPECT_EQ(a.dst, 0x2000u - 9);
  EXPECT_EQ(a.src, 0x3000u - 9);
  EXPECT_EQ(a.bytes, 10u);

  set(REG_RCX, 4);
  a = string_access(site({0xf3, 0x48, 0xab}), uc_);  // std; rep stosq: [rdi-24, rdi+8)
  EXPECT_EQ(a.dst, 0x2000u - 24);
  EXPECT_EQ(a.bytes, 32u);

  a = string_access(site({0xf3, 0xa6}), uc_);  // std; repe cmpsb: both ranges, an upper bound
  EXPECT_EQ(a.dst, 0x2000u - 3);
  EXPECT_EQ(a.src, 0x3000u - 3);
  EXPECT_EQ(a.bytes, 4u);
}

TEST_F(SiteMathTest, StringAccessUnderAddressSizePrefix) {
  set(REG_RDI, 0xffffffff00001000);
  set(REG_RCX, 0x100000002);
  StringAccess a = string_access(site({0x67, 0xf3, 0xaa}), uc_);  // addr32 rep stosb: edi, ecx
  EXPECT_EQ(a.dst, 0x1000u);
  EXPECT_EQ(a.bytes, 2u);
}

}  // namespace
}  // namespace ctrl
