//===- JsonCursor.cpp - One string field of a JSON object -----------------===//
#include "JsonCursor.h"

#include <cctype>

namespace aoti::backend {

namespace {

/// A minimal JSON reader: skips whitespace, reads strings, skips values.
class JsonCursor {
public:
  explicit JsonCursor(std::string_view Text) : S(Text) {}
  void ws() {
    while (P < S.size() && std::isspace(static_cast<unsigned char>(S[P])))
      ++P;
  }
  bool eat(char C) {
    ws();
    if (P < S.size() && S[P] == C) {
      ++P;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    ws();
    if (P >= S.size() || S[P] != '"')
      return std::nullopt;
    std::string Out;
    for (++P; P < S.size(); ++P) {
      char C = S[P];
      if (C == '"') {
        ++P;
        return Out;
      }
      if (C != '\\') {
        Out += C;
        continue;
      }
      if (++P >= S.size())
        return std::nullopt;
      switch (S[P]) {
      case 'n': Out += '\n'; break;
      case 't': Out += '\t'; break;
      case 'r': Out += '\r'; break;
      case 'b': Out += '\b'; break;
      case 'f': Out += '\f'; break;
      case 'u': // keep \uXXXX escapes verbatim: metadata values are ASCII
        Out += "\\u";
        break;
      default: Out += S[P]; break;
      }
    }
    return std::nullopt;
  }
  bool skipValue(int Depth = 0) {
    ws();
    if (P >= S.size() || Depth > 64)
      return false;
    char C = S[P];
    if (C == '"')
      return string().has_value();
    if (C == '{' || C == '[') {
      const char Close = C == '{' ? '}' : ']';
      ++P;
      if (eat(Close))
        return true;
      do {
        if (C == '{' && (!string() || !eat(':')))
          return false;
        if (!skipValue(Depth + 1))
          return false;
      } while (eat(','));
      return eat(Close);
    }
    size_t Start = P;
    while (P < S.size() && (std::isalnum(static_cast<unsigned char>(S[P])) ||
                            S[P] == '-' || S[P] == '+' || S[P] == '.'))
      ++P;
    return P > Start;
  }

private:
  std::string_view S;
  size_t P = 0;
};

} // namespace

std::optional<std::string> jsonStringField(std::string_view Json, std::string_view Key) {
  JsonCursor C(Json);
  if (!C.eat('{') || C.eat('}'))
    return std::nullopt;
  do {
    std::optional<std::string> K = C.string();
    if (!K || !C.eat(':'))
      return std::nullopt;
    if (*K == Key) {
      JsonCursor Probe = C;
      if (std::optional<std::string> V = Probe.string())
        return V;
    }
    if (!C.skipValue())
      return std::nullopt;
  } while (C.eat(','));
  return std::nullopt;
}

} // namespace aoti::backend
