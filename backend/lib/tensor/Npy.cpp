//===- Npy.cpp - A strict reader and writer for NumPy .npy files ----------===//
//
// The format (numpy/lib/format.py): the magic "\x93NUMPY", a major and minor
// version byte, a little-endian header length (2 bytes in 1.0, 4 in 2.0 and
// 3.0), then the header: a Python dict literal with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n'. The raw
// array follows. We parse the dict literal ourselves, accepting only the
// shapes of values NumPy writes, and reject anything else with a message that
// says what was found.
//
// A Fortran-order array (what np.save writes for a transposed array, x.T)
// holds element (i0, ..., in-1) at flat index i0 + d0 * (i1 + d1 * (...)):
// the first index varies fastest. It is read into the C order a HostTensor
// has by walking the C-order multi-index and copying each element from its
// Fortran position; the Fortran strides are the C strides of the reversed
// shape. We write C order only.
//
//===----------------------------------------------------------------------===//
#include "aoti/backend/Npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

namespace aoti::backend {

namespace {

constexpr char Magic[] = "\x93NUMPY";
constexpr size_t MagicLen = 6;

struct DescrEntry {
  std::string_view Descr;
  DType Type;
};
// What we read. '<' is little-endian; '|' means byte order does not apply.
constexpr DescrEntry ReadDescrs[] = {
    {"<f4", DType::Float32}, {"<f2", DType::Float16}, {"<f8", DType::Float64},
    {"<i8", DType::Int64},   {"<i4", DType::Int32},   {"<i2", DType::Int16},
    {"|i1", DType::Int8},    {"|u1", DType::UInt8},   {"<u2", DType::UInt16},
    {"|b1", DType::Bool},    {"<V2", DType::BFloat16}, {"|V2", DType::BFloat16},
};

/// A tiny cursor over the header's dict literal.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view Text) : S(Text) {}

  void skipSpace() {
    while (Pos < S.size() && std::isspace(static_cast<unsigned char>(S[Pos])))
      ++Pos;
  }
  bool consume(char C) {
    skipSpace();
    if (Pos < S.size() && S[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool peek(char C) {
    skipSpace();
    return Pos < S.size() && S[Pos] == C;
  }
  std::optional<std::string> string() {
    skipSpace();
    if (Pos >= S.size() || (S[Pos] != '\'' && S[Pos] != '"'))
      return std::nullopt;
    char Quote = S[Pos++];
    size_t End = S.find(Quote, Pos);
    if (End == std::string_view::npos)
      return std::nullopt;
    std::string R(S.substr(Pos, End - Pos));
    Pos = End + 1;
    return R;
  }
  std::optional<std::string_view> word() {
    skipSpace();
    size_t Start = Pos;
    while (Pos < S.size() && std::isalpha(static_cast<unsigned char>(S[Pos])))
      ++Pos;
    if (Start == Pos)
      return std::nullopt;
    return S.substr(Start, Pos - Start);
  }
  std::optional<int64_t> integer() {
    skipSpace();
    size_t Start = Pos;
    int64_t V = 0;
    while (Pos < S.size() && std::isdigit(static_cast<unsigned char>(S[Pos]))) {
      int Digit = S[Pos] - '0';
      if (V > (INT64_MAX - Digit) / 10)
        return std::nullopt;
      V = V * 10 + Digit;
      ++Pos;
    }
    // NumPy on some platforms wrote "3L" for longs.
    if (Pos < S.size() && S[Pos] == 'L')
      ++Pos;
    if (Start == Pos)
      return std::nullopt;
    return V;
  }
  bool atEnd() {
    skipSpace();
    return Pos == S.size();
  }

private:
  std::string_view S;
  size_t Pos = 0;
};

/// Fills T (shape and dtype set, C order) from Fortran-order data.
void fromFortranOrder(const std::byte *Fortran, HostTensor &T) {
  const size_t Rank = T.Shape.size(), Elem = elementSize(T.Type);
  const int64_t N = T.numel();
  if (N == 0)
    return;
  // Stride (in elements) of each dimension in the Fortran layout.
  std::vector<int64_t> FStride(Rank);
  int64_t S = 1;
  for (size_t D = 0; D < Rank; ++D) {
    FStride[D] = S;
    S *= T.Shape[D];
  }
  std::vector<int64_t> Index(Rank, 0); // C-order multi-index, last fastest
  int64_t From = 0;                    // its flat Fortran position
  std::byte *To = T.Data.data();
  for (int64_t I = 0; I < N; ++I, To += Elem) {
    std::memcpy(To, Fortran + static_cast<size_t>(From) * Elem, Elem);
    for (size_t D = Rank; D-- > 0;) {
      if (++Index[D] < T.Shape[D]) {
        From += FStride[D];
        break;
      }
      From -= FStride[D] * (T.Shape[D] - 1);
      Index[D] = 0;
    }
  }
}

Error bad(const std::string &Name, const std::string &What) {
  return Error(ErrorKind::BadFile, Name + ": not a supported .npy file: " + What);
}

} // namespace

Expected<HostTensor> parseNpy(std::span<const std::byte> Bytes,
                              const std::string &Name) {
  auto At = [&](size_t I) { return static_cast<unsigned char>(Bytes[I]); };
  if (Bytes.size() < MagicLen + 4 ||
      std::memcmp(Bytes.data(), Magic, MagicLen) != 0)
    return bad(Name, "missing the \\x93NUMPY magic");
  unsigned Major = At(6), Minor = At(7);
  size_t HeaderLen, HeaderStart;
  if (Major == 1 && Minor == 0) {
    HeaderLen = At(8) | (At(9) << 8);
    HeaderStart = 10;
  } else if ((Major == 2 || Major == 3) && Minor == 0) {
    if (Bytes.size() < 12)
      return bad(Name, "truncated header");
    HeaderLen = static_cast<size_t>(At(8)) | (static_cast<size_t>(At(9)) << 8) |
                (static_cast<size_t>(At(10)) << 16) |
                (static_cast<size_t>(At(11)) << 24);
    HeaderStart = 12;
  } else {
    return bad(Name, "format version " + std::to_string(Major) + "." +
                         std::to_string(Minor) + " (1.0, 2.0 and 3.0 are read)");
  }
  if (HeaderStart + HeaderLen > Bytes.size())
    return bad(Name, "header runs past the end of the file");
  std::string_view Header(reinterpret_cast<const char *>(Bytes.data()) + HeaderStart,
                          HeaderLen);

  HeaderParser P(Header);
  if (!P.consume('{'))
    return bad(Name, "header is not a dict literal");
  std::optional<std::string> Descr;
  std::optional<bool> Fortran;
  std::optional<std::vector<int64_t>> Shape;
  while (!P.consume('}')) {
    std::optional<std::string> Key = P.string();
    if (!Key || !P.consume(':'))
      return bad(Name, "malformed header dict");
    if (*Key == "descr") {
      if (P.peek('['))
        return bad(Name, "structured dtypes are not supported");
      Descr = P.string();
      if (!Descr)
        return bad(Name, "'descr' is not a string");
    } else if (*Key == "fortran_order") {
      std::optional<std::string_view> W = P.word();
      if (!W || (*W != "True" && *W != "False"))
        return bad(Name, "'fortran_order' is not True or False");
      Fortran = *W == "True";
    } else if (*Key == "shape") {
      if (!P.consume('('))
        return bad(Name, "'shape' is not a tuple");
      std::vector<int64_t> Dims;
      while (!P.consume(')')) {
        std::optional<int64_t> D = P.integer();
        if (!D)
          return bad(Name, "'shape' holds something other than non-negative integers");
        Dims.push_back(*D);
        if (!P.consume(',') && !P.peek(')'))
          return bad(Name, "malformed 'shape' tuple");
      }
      Shape = std::move(Dims);
    } else {
      return bad(Name, "unexpected header key '" + *Key + "'");
    }
    if (!P.consume(',') && !P.peek('}'))
      return bad(Name, "malformed header dict");
  }
  if (!P.atEnd())
    return bad(Name, "trailing characters after the header dict");
  if (!Descr || !Fortran || !Shape)
    return bad(Name, "header lacks 'descr', 'fortran_order' or 'shape'");
  std::optional<DType> Type;
  for (const DescrEntry &E : ReadDescrs)
    if (E.Descr == *Descr)
      Type = E.Type;
  if (!Type) {
    if (!Descr->empty() && (*Descr)[0] == '>')
      return bad(Name, "big-endian data ('" + *Descr + "') is not supported");
    return bad(Name, "dtype '" + *Descr +
                         "' is not supported (f4 f2 f8 i8 i4 i2 i1 u1 u2 b1, "
                         "V2 as bfloat16)");
  }

  std::optional<int64_t> N = numelOf(*Shape);
  if (!N)
    return bad(Name, "shape " + shapeString(*Shape) + " overflows");
  const size_t Payload = Bytes.size() - HeaderStart - HeaderLen;
  const size_t Want = static_cast<size_t>(*N) * elementSize(*Type);
  if (Payload != Want)
    return bad(Name, "shape " + shapeString(*Shape) + " of " + *Descr + " needs " +
                         std::to_string(Want) + " bytes of data, the file has " +
                         std::to_string(Payload));
  HostTensor T(*Type, std::move(*Shape));
  const std::byte *Data = Bytes.data() + HeaderStart + HeaderLen;
  if (*Fortran && T.Shape.size() > 1)
    fromFortranOrder(Data, T);
  else // one dimension or none: both orders are the same bytes
    std::memcpy(T.Data.data(), Data, Want);
  if (*Type == DType::Bool)
    for (std::byte &B : T.Data)
      if (static_cast<unsigned char>(B) > 1)
        return bad(Name, "bool array holds a byte other than 0 or 1");
  return T;
}

Expected<HostTensor> readNpy(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(ErrorKind::BadFile, Path + ": cannot open: " + std::strerror(errno));
  std::vector<char> Raw((std::istreambuf_iterator<char>(In)),
                        std::istreambuf_iterator<char>());
  if (In.bad())
    return Error(ErrorKind::BadFile, Path + ": read error");
  return parseNpy(std::as_bytes(std::span<const char>(Raw)), Path);
}

std::string serializeNpy(const HostTensor &T) {
  const HostTensor *Src = &T;
  std::optional<HostTensor> Widened;
  if (T.Type == DType::BFloat16) {
    Widened = std::move(*convert(T, DType::Float32));
    Src = &*Widened;
  }
  std::string_view Descr;
  for (const DescrEntry &E : ReadDescrs)
    if (E.Type == Src->Type) {
      Descr = E.Descr;
      break;
    }
  // Python's repr of a tuple: "()", "(3,)", "(2, 3)".
  std::string ShapeText = "(";
  for (size_t I = 0; I < Src->Shape.size(); ++I)
    ShapeText += (I ? ", " : "") + std::to_string(Src->Shape[I]);
  ShapeText += Src->Shape.size() == 1 ? ",)" : ")";
  std::string Dict = "{'descr': '" + std::string(Descr) +
                     "', 'fortran_order': False, 'shape': " + ShapeText + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary, as NumPy
  // does; version 2.0 only when the header outgrows a 16-bit length.
  const bool V2 = MagicLen + 4 + Dict.size() + 1 > 0xFFFF;
  const size_t Prefix = MagicLen + (V2 ? 6 : 4);
  Dict.append((64 - (Prefix + Dict.size() + 1) % 64) % 64, ' ');
  Dict += '\n';
  std::string Out(Magic, MagicLen);
  Out += V2 ? '\x02' : '\x01';
  Out += '\x00';
  for (size_t I = 0; I < (V2 ? 4u : 2u); ++I)
    Out += static_cast<char>((Dict.size() >> (8 * I)) & 0xFF);
  Out += Dict;
  Out.append(reinterpret_cast<const char *>(Src->Data.data()), Src->Data.size());
  return Out;
}

Status writeNpy(const std::string &Path, const HostTensor &T) {
  std::string Bytes = serializeNpy(T);
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  if (!Out)
    return Error(ErrorKind::Io, Path + ": cannot create: " + std::strerror(errno));
  Out.write(Bytes.data(), static_cast<std::streamsize>(Bytes.size()));
  Out.close();
  if (!Out)
    return Error(ErrorKind::Io, Path + ": write failed");
  return Status::success();
}

} // namespace aoti::backend
