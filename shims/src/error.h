//===- error.h - Errors as values, and the guard at every C entry point ---===//
//
// Inside the library failures are values: functions return an Error (or an
// Expected<T>) that the caller checks where it arises, in the style of
// llvm::Error. Only at the C boundary does an Error become an AOTITorchError
// plus a thread-local message (aoti_shims_last_error). runShim() is the one
// place that translates, and it also catches every exception (std::bad_alloc
// from a std::vector, for instance) so none crosses into the model.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_SHIMS_ERROR_H
#define AOTI_SHIMS_ERROR_H

#include "aoti/shim.h"

#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

namespace aoti::shims {

/// The outcome of an operation that produces nothing: success, or a failure
/// with a message. Converts to true when it holds a failure, so the idiom is
/// `if (Error err = doThing()) return err;`.
class [[nodiscard]] Error {
public:
  static Error success() { return Error(); }

  /// A failure whose message is the concatenation of `parts` (anything that
  /// can be written to a std::ostream).
  template <typename... Parts> static Error failure(const Parts &...parts) {
    std::ostringstream os;
    (os << ... << parts);
    Error err;
    err.message_ = os.str();
    return err;
  }

  explicit operator bool() const { return message_.has_value(); }
  const std::string &message() const { return *message_; }

private:
  Error() = default;
  std::optional<std::string> message_;
};

/// A value or the Error that prevented it. Converts to true when it holds a
/// value (as llvm::Expected does).
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : storage_(std::move(value)) {}
  Expected(Error err) : storage_(std::move(err)) {}

  explicit operator bool() const { return storage_.index() == 0; }

  T &operator*() { return std::get<0>(storage_); }
  const T &operator*() const { return std::get<0>(storage_); }
  T *operator->() { return &std::get<0>(storage_); }
  const T *operator->() const { return &std::get<0>(storage_); }

  /// The failure; only valid when the Expected holds no value.
  Error takeError() { return std::move(std::get<1>(storage_)); }

private:
  std::variant<T, Error> storage_;
};

/// Records `message` as this thread's last error, prefixed with `function`.
/// Never allocates and never throws.
void recordError(const char *function, const char *message) noexcept;

/// Runs the body of the C entry point `function`: returns AOTI_TORCH_SUCCESS
/// when it returns success, and otherwise records why and returns
/// AOTI_TORCH_FAILURE.
template <typename Body>
AOTITorchError runShim(const char *function, Body &&body) noexcept {
  try {
    Error err = body();
    if (!err)
      return AOTI_TORCH_SUCCESS;
    recordError(function, err.message().c_str());
  } catch (const std::bad_alloc &) {
    recordError(function, "out of host memory");
  } catch (const std::exception &e) {
    recordError(function, e.what());
  } catch (...) {
    recordError(function, "unknown C++ exception");
  }
  return AOTI_TORCH_FAILURE;
}

/// Fails unless the out-parameter `ptr`, named `name`, is non-null.
inline Error requireOutput(const void *ptr, const char *name) {
  if (ptr)
    return Error::success();
  return Error::failure("output pointer '", name, "' is null");
}

} // namespace aoti::shims

#endif // AOTI_SHIMS_ERROR_H
