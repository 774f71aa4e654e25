#include "hub/curl_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace gpumem {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

// The symbol `name` of `handle` as a function pointer of `out`'s type; false when absent.
template <typename F>
bool bind(void* handle, const char* name, F& out) {
  void* symbol = dlsym(handle, name);
  // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
  out = reinterpret_cast<F>(symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  return symbol != nullptr;
}

struct Loaded {
  CurlLibrary library{};
  std::string error;  // empty when loaded
};

Loaded load() {
  Loaded l;
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    l.error = std::string("libcurl cannot be loaded (") + kSoname +
              "): " + (why != nullptr ? why : "unknown error") + "; install Debian's libcurl4";
    return l;
  }
  CURLcode (*global_init)(long) = nullptr;
  CurlLibrary& c = l.library;
  const char* missing = nullptr;
  if (!bind(handle, "curl_global_init", global_init)) missing = "curl_global_init";
  if (!bind(handle, "curl_easy_init", c.easy_init)) missing = "curl_easy_init";
  if (!bind(handle, "curl_easy_setopt", c.easy_setopt)) missing = "curl_easy_setopt";
  if (!bind(handle, "curl_easy_perform", c.easy_perform)) missing = "curl_easy_perform";
  if (!bind(handle, "curl_easy_getinfo", c.easy_getinfo)) missing = "curl_easy_getinfo";
  if (!bind(handle, "curl_easy_cleanup", c.easy_cleanup)) missing = "curl_easy_cleanup";
  if (!bind(handle, "curl_easy_strerror", c.easy_strerror)) missing = "curl_easy_strerror";
  if (!bind(handle, "curl_slist_append", c.slist_append)) missing = "curl_slist_append";
  if (!bind(handle, "curl_slist_free_all", c.slist_free_all)) missing = "curl_slist_free_all";
  if (missing != nullptr) {
    l.error = std::string(kSoname) + " has no " + missing;
    return l;
  }
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) l.error = "curl_global_init failed";
  return l;
}

}  // namespace

Result<const CurlLibrary*> curl_library() {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = load(); });
  if (!loaded.error.empty()) return io_error(loaded.error);
  return &loaded.library;
}

}  // namespace gpumem
