// Errors as values.
//
// A `Status` is either ok or a code plus a human-readable message; a `Result<T>` is either
// a T or a non-ok Status. Nothing below `main` exits or throws across a module boundary:
// third-party exceptions (yaml-cpp, nlohmann-json) are caught where they are called and
// turned into a Status. Out-of-memory on a (simulated or real) GPU is *not* a Status of the
// tool: it is a finding recorded in the ledger; `kOutOfMemory` only carries it from a
// device call up to the step that records it.
#ifndef GPUMEM_CORE_STATUS_H_
#define GPUMEM_CORE_STATUS_H_

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gpumem {

enum class StatusCode {
  kOk,
  kInvalidInput,  // the user's input is wrong; message says where and why
  kNotFound,      // a named file, model, GPU or calibration does not exist
  kIoError,       // reading or writing a file failed
  kOutOfMemory,   // a device allocation did not fit (carried to the ledger)
  kAborted,       // a peer rank failed; this rank stopped waiting for it
  kEngineError,   // the modelled engine itself stops with an error (a finding, like OOM)
  kInternal,      // a bug in gpumem
};

// "ok", "invalid_input", "out_of_memory", … — for files and logs.
constexpr std::string_view status_code_name(StatusCode c) {
  switch (c) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidInput:
      return "invalid_input";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kIoError:
      return "io_error";
    case StatusCode::kOutOfMemory:
      return "out_of_memory";
    case StatusCode::kAborted:
      return "aborted";
    case StatusCode::kEngineError:
      return "engine_error";
    case StatusCode::kInternal:
      return "internal";
  }
  return "internal";
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_input(std::string m) { return {StatusCode::kInvalidInput, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Either a value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: REQUIRES !status.ok()

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace gpumem

// Returns early from a function returning Status or Result<...> when `expr` is not ok.
#define GPUMEM_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::gpumem::Status gpumem_status_ = (expr);        \
    if (!gpumem_status_.ok()) return gpumem_status_; \
  } while (0)

#endif  // GPUMEM_CORE_STATUS_H_
