//===- WrapperSource.cpp - Reading the generated wrapper ------------------===//
#include "WrapperSource.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace aoti::backend {

std::vector<TensorSpec> declaredInputs(std::string_view Src) {
  // AOTInductor emits, per input i:
  //   AOTI_NOINLINE static void check_input_<i>(AtenTensorHandle* input_handles) {
  //     ... int32_t <v>_expected_dtype = aoti_torch_dtype_<name>();
  //     if (<n> != <v>_size[<d>]) ...           (a static dimension)
  //     if (<v>_size[<d>] < <lo>) ...           (a dynamic one, with bounds)
  std::vector<TensorSpec> Specs;
  constexpr std::string_view Def = "static void check_input_";
  size_t At = Src.find(Def);
  while (At != std::string_view::npos) {
    size_t Next = Src.find(Def, At + Def.size());
    std::string_view Block = Src.substr(At, Next == std::string_view::npos ? std::string_view::npos : Next - At);
    if (size_t End = Block.find("_check_aoti_runtime_check_inputs_env"); End != std::string_view::npos)
      Block = Block.substr(0, End);
    TensorSpec Spec;
    constexpr std::string_view DT = "_expected_dtype = aoti_torch_dtype_";
    if (size_t D = Block.find(DT); D != std::string_view::npos) {
      size_t B = D + DT.size(), E = Block.find('(', B);
      if (E != std::string_view::npos)
        Spec.Type = parseDType(Block.substr(B, E - B));
    }
    std::vector<int64_t> Dims;
    std::vector<bool> Seen;
    constexpr std::string_view SizeRef = "_size[";
    for (size_t S = Block.find(SizeRef); S != std::string_view::npos;
         S = Block.find(SizeRef, S + 1)) {
      size_t IdxStart = S + SizeRef.size();
      size_t IdxEnd = Block.find(']', IdxStart);
      if (IdxEnd == std::string_view::npos)
        break;
      int64_t Index = std::atoll(std::string(Block.substr(IdxStart, IdxEnd - IdxStart)).c_str());
      if (Index < 0 || Index > 64)
        continue;
      if (Dims.size() <= static_cast<size_t>(Index)) {
        Dims.resize(Index + 1, -1);
        Seen.resize(Index + 1, false);
      }
      // "if (8 != arg_size[0])": the number before "!=" on this line.
      size_t LineStart = Block.rfind('\n', S);
      std::string_view Line = Block.substr(LineStart == std::string_view::npos ? 0 : LineStart + 1,
                                           S - (LineStart == std::string_view::npos ? 0 : LineStart + 1));
      if (size_t If = Line.find("if ("); If != std::string_view::npos &&
                                         Line.find("!=") != std::string_view::npos) {
        std::string Num(Line.substr(If + 4));
        if (!Num.empty() && std::isdigit(static_cast<unsigned char>(Num[0])))
          Dims[Index] = std::atoll(Num.c_str());
      }
      Seen[Index] = true;
    }
    // A dimension that only appears in a message, or not at all, leaves the
    // shape unknown rather than wrong.
    bool Complete = !Dims.empty();
    for (bool B : Seen)
      Complete = Complete && B;
    if (Complete)
      Spec.Shape = Dims;
    Specs.push_back(std::move(Spec));
    At = Next;
  }
  return Specs;
}

std::optional<int> kernelThreadCount(std::string_view Src) {
  constexpr std::string_view Clause = "num_threads(";
  std::optional<int> Most;
  for (size_t At = Src.find(Clause); At != std::string_view::npos;
       At = Src.find(Clause, At + Clause.size())) {
    size_t Digit = At + Clause.size();
    int64_t N = 0;
    while (Digit < Src.size() && std::isdigit(static_cast<unsigned char>(Src[Digit])) &&
           N < (1 << 20))
      N = N * 10 + (Src[Digit++] - '0');
    // A literal count only (num_threads(n) of a variable says nothing).
    if (Digit == At + Clause.size() || Digit >= Src.size() || Src[Digit] != ')' || N < 1)
      continue;
    Most = std::max(Most.value_or(0), static_cast<int>(N));
  }
  return Most;
}

} // namespace aoti::backend
