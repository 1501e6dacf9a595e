//===- Error.h - Errors as values for the backend ---------------*- C++ -*-===//
//
// Nothing in the backend throws. A failure is an Error: a kind, which the
// command-line front end maps to an exit status, and a message meant for a
// person. Expected<T> holds either a T or an Error and must be checked before
// the value is used.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_ERROR_H
#define AOTI_BACKEND_ERROR_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace aoti::backend {

enum class ErrorKind {
  InvalidArgument, ///< the caller's inputs: count, dtype, shape, options
  BadFile,         ///< a file that cannot be read or is malformed
  NotAModel,       ///< neither a .pt2 package nor an AOTInductor .so
  DeviceMismatch,  ///< the model was compiled for another device
  MissingSymbols,  ///< the process does not provide what the model needs
  Weights,         ///< weights blob missing, short or rejected, or the
                   ///< model exported without its weights
  LoadFailed,      ///< dlopen or container creation failed
  RunFailed,       ///< the model's run entry point returned an error
  Io,              ///< writing or extracting files failed
};

const char *toString(ErrorKind K);

class [[nodiscard]] Error {
public:
  Error(ErrorKind K, std::string Msg) : Kind(K), Message(std::move(Msg)) {}

  ErrorKind kind() const { return Kind; }
  const std::string &message() const { return Message; }

private:
  ErrorKind Kind;
  std::string Message;
};

/// The result of an operation that can fail. Void results use Status.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : Storage(std::in_place_index<0>, std::move(Value)) {}
  Expected(Error E) : Storage(std::in_place_index<1>, std::move(E)) {}

  explicit operator bool() const { return Storage.index() == 0; }
  T &operator*() {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }
  const T &operator*() const {
    assert(*this && "dereferencing an Expected that holds an error");
    return std::get<0>(Storage);
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }
  const Error &error() const {
    assert(!*this && "no error in a successful Expected");
    return std::get<1>(Storage);
  }
  Error takeError() { return std::move(std::get<1>(Storage)); }

private:
  std::variant<T, Error> Storage;
};

/// Success, or an Error.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error E) : Err(std::move(E)), Failed(true) {}
  static Status success() { return Status(); }

  explicit operator bool() const { return !Failed; }
  const Error &error() const {
    assert(Failed && "no error in a successful Status");
    return Err;
  }
  Error takeError() { return std::move(Err); }

private:
  Error Err{ErrorKind::InvalidArgument, ""};
  bool Failed = false;
};

} // namespace aoti::backend

#endif
