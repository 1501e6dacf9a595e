//===- JsonCursor.h - One string field of a JSON object ---------*- C++ -*-===//
//
// The backend reads one field of a model's metadata JSON (AOTI_DEVICE_KEY)
// and nothing else, so a cursor that skips values is all it needs.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_JSONCURSOR_H
#define AOTI_BACKEND_LIB_JSONCURSOR_H

#include <optional>
#include <string>
#include <string_view>

namespace aoti::backend {

/// The string value of a top-level key of a JSON object, if the text is a
/// JSON object and the key holds a string.
std::optional<std::string> jsonStringField(std::string_view Json,
                                           std::string_view Key);

} // namespace aoti::backend

#endif
