//===- FormatTest.cpp - The formats behind the reader's dispatch ----------===//
//
// What each format says about itself (FormatInfo: name, C-name prefix,
// machine names), and that the dispatch in Reader.cpp sends each kind of
// file to its format: real ELF files built by this project's toolchain, an
// archive, a Mach-O text stub and a JSON file that is not one.
//
//===----------------------------------------------------------------------===//
#include "aoti/audit/Reader.h"
#include "aoti/audit/link/Sections.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MachO.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace aoti::audit;
using namespace llvm;

namespace {

/// MachineId's Mach-O encoding: cputype folded to 16 bits, as the reader
/// stores it.
MachineId machOMachine(uint32_t CpuType) {
  return {uint16_t((CpuType & 0xff) | ((CpuType >> 16) & 0xff00)),
          bool(CpuType & MachO::CPU_ARCH_ABI64), true};
}

DetectedKind detect(StringRef Bytes) {
  return detectKind(MemoryBufferRef(Bytes, "test"));
}

/// The header of a 64-bit Mach-O dylib (MH_DYLIB), in either byte
/// order: identify_magic reads the magic and the file type.
std::string machOHeader(bool BigEndian) {
  std::string H(32, '\0');
  const char *Magic = BigEndian ? "\xfe\xed\xfa\xcf" : "\xcf\xfa\xed\xfe";
  H.replace(0, 4, Magic, 4);
  H[BigEndian ? 15 : 12] = char(MachO::MH_DYLIB);
  return H;
}

TEST(Format, NamesAndCNamePrefix) {
  const FormatInfo &Elf = formatInfo(BinaryFormat::ELF);
  const FormatInfo &MachO = formatInfo(BinaryFormat::MachO);
  EXPECT_EQ(Elf.Id, BinaryFormat::ELF);
  EXPECT_EQ(MachO.Id, BinaryFormat::MachO);
  EXPECT_EQ(toString(BinaryFormat::ELF), "ELF");
  EXPECT_EQ(toString(BinaryFormat::MachO), "Mach-O");
  EXPECT_EQ(Elf.CNamePrefix, "");
  EXPECT_EQ(MachO.CNamePrefix, "_");
  // C's aoti_torch_foo is the symbol _aoti_torch_foo on Mach-O only.
  EXPECT_EQ(MachO.cName("_aoti_torch_foo"), "aoti_torch_foo");
  EXPECT_EQ(MachO.cName("__Z3foov"), "_Z3foov");
  EXPECT_EQ(MachO.cName("noprefix"), "noprefix");
  EXPECT_EQ(Elf.cName("_aoti_torch_foo"), "_aoti_torch_foo");
}

TEST(Format, MachineNames) {
  // ELF names e_machine the way LLVM does, and a number it does not know.
  EXPECT_EQ(describeMachine({ELF::EM_X86_64, true, true}), "64-bit x86_64");
  EXPECT_EQ(describeMachine({4660, true, false}),
            "64-bit e_machine 4660 big-endian");
  EXPECT_EQ(describeMachine({ELF::EM_386, false, true}, BinaryFormat::ELF),
            describeMachine({ELF::EM_386, false, true}));
  // Mach-O names the slice, as lipo does.
  auto MachOName = [](uint32_t CpuType) {
    return describeMachine(machOMachine(CpuType), BinaryFormat::MachO);
  };
  EXPECT_EQ(MachOName(MachO::CPU_TYPE_ARM64), "64-bit arm64");
  EXPECT_EQ(MachOName(MachO::CPU_TYPE_X86_64), "64-bit x86_64");
  EXPECT_EQ(MachOName(MachO::CPU_TYPE_I386), "32-bit i386");
  EXPECT_EQ(MachOName(99), "32-bit cputype 99");
}

TEST(Format, TheReaderSaysWhichFormatItRead) {
  auto B = readBinary(FIXTURE_VERSIONED);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(&(*B)->formatInfo(), &formatInfo(BinaryFormat::ELF));
  // A universal file is Mach-O's alone: an ELF file has no slices.
  auto Slices = universalArchs(FIXTURE_VERSIONED);
  ASSERT_TRUE(bool(Slices)) << toString(Slices.takeError());
  EXPECT_TRUE(Slices->empty());
}

TEST(Format, DetectionGoesToTheFormatThatClaimsTheBytes) {
  auto Elf = MemoryBuffer::getFile(FIXTURE_VERSIONED);
  ASSERT_TRUE(bool(Elf));
  EXPECT_EQ(detectKind((*Elf)->getMemBufferRef()), DetectedKind::ELF);
  auto Ar = MemoryBuffer::getFile(FIXTURE_ARCHIVE);
  ASSERT_TRUE(bool(Ar));
  EXPECT_EQ(detectKind((*Ar)->getMemBufferRef()), DetectedKind::Archive);
  // Both byte orders of a thin Mach-O header, and a fat one.
  EXPECT_EQ(detect(machOHeader(false)), DetectedKind::MachO);
  EXPECT_EQ(detect(machOHeader(true)), DetectedKind::MachO);
  EXPECT_EQ(detect(StringRef("\xca\xfe\xba\xbe\x00\x00\x00\x02", 8)),
            DetectedKind::MachOUniversal);
  // A .tbd stub stands for a dylib; other JSON is nobody's.
  EXPECT_EQ(detect("--- !tapi-tbd\ntbd-version: 4\n"), DetectedKind::MachO);
  EXPECT_EQ(detect("{\"tapi_tbd_version\": 5, \"main_library\": {}}"),
            DetectedKind::MachO);
  EXPECT_EQ(detect("{\"kind\": \"codemodel\"}"), DetectedKind::Unknown);
  EXPECT_EQ(detect("plain text"), DetectedKind::Unknown);
}

TEST(Format, ANonBinaryIsNoFormatsAndTheMessageNamesThemAll) {
  auto B = readBinaryFromBuffer(MemoryBufferRef("plain text", "notes.txt"),
                                "notes.txt");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(toString(B.takeError()), "notes.txt: is not an ELF or Mach-O file");
  auto S = readObjectSections(MemoryBufferRef("plain text", "notes.txt"),
                              "notes.txt");
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(toString(S.takeError()), "notes.txt: not an ELF or Mach-O object");
}

} // namespace
