#include "probe/cublas_library.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <fmt/format.h>

namespace gpumem::probe {

// Function types come from cuBLAS's own header (decltype does not link anything).
struct CublasLibrary::Api {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasGetVersion_v2) get_version;
  decltype(&cublasGetStatusString) status_string;  // may be null (cuBLAS < 11.4.2)
};

Result<std::unique_ptr<CublasLibrary>> CublasLibrary::load() {
  std::string tried;
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    void* lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* err = ::dlerror();
      tried += fmt::format("\n  {}: {}", name, err != nullptr ? err : "not found");
      continue;
    }
    auto api = std::make_unique<Api>();
    api->create = reinterpret_cast<decltype(api->create)>(::dlsym(lib, "cublasCreate_v2"));
    api->destroy = reinterpret_cast<decltype(api->destroy)>(::dlsym(lib, "cublasDestroy_v2"));
    api->set_stream =
        reinterpret_cast<decltype(api->set_stream)>(::dlsym(lib, "cublasSetStream_v2"));
    api->sgemm = reinterpret_cast<decltype(api->sgemm)>(::dlsym(lib, "cublasSgemm_v2"));
    api->get_version =
        reinterpret_cast<decltype(api->get_version)>(::dlsym(lib, "cublasGetVersion_v2"));
    api->status_string =
        reinterpret_cast<decltype(api->status_string)>(::dlsym(lib, "cublasGetStatusString"));
    if (api->create == nullptr || api->destroy == nullptr || api->set_stream == nullptr ||
        api->sgemm == nullptr || api->get_version == nullptr) {
      ::dlclose(lib);
      tried += fmt::format("\n  {}: lacks cublasCreate_v2 or another function", name);
      continue;
    }
    return std::unique_ptr<CublasLibrary>(new CublasLibrary(lib, name, std::move(api)));
  }
  return not_found(
      "cuBLAS is not available (put its directory on LD_LIBRARY_PATH; "
      "run-on-gpu.sh looks for it):" +
      tried);
}

CublasLibrary::CublasLibrary(void* lib, std::string soname, std::unique_ptr<Api> api)
    : lib_(lib), soname_(std::move(soname)), api_(std::move(api)) {}

CublasLibrary::~CublasLibrary() {
  if (handle_ != nullptr) api_->destroy(static_cast<cublasHandle_t>(handle_));
  ::dlclose(lib_);
}

Status CublasLibrary::check(int status, std::string_view call) const {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::ok_status();
  const char* text = api_->status_string != nullptr
                         ? api_->status_string(static_cast<cublasStatus_t>(status))
                         : "cuBLAS error";
  const StatusCode code =
      status == CUBLAS_STATUS_ALLOC_FAILED ? StatusCode::kOutOfMemory : StatusCode::kInternal;
  return Status(code, fmt::format("{}: {} (cublasStatus {})", call, text, status));
}

Status CublasLibrary::create_handle(cudaStream_t stream) {
  if (handle_ != nullptr) return Status::ok_status();
  cublasHandle_t h = nullptr;
  GPUMEM_RETURN_IF_ERROR(check(api_->create(&h), "cublasCreate_v2"));
  handle_ = h;
  return check(api_->set_stream(h, stream), "cublasSetStream_v2");
}

Status CublasLibrary::sgemm(int n, const float* a, const float* b, float* c) {
  if (handle_ == nullptr) return internal_error("cublasSgemm_v2 before cublasCreate_v2");
  const float one = 1.0f;
  const float zero = 0.0f;
  return check(api_->sgemm(static_cast<cublasHandle_t>(handle_), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                           &one, a, n, b, n, &zero, c, n),
               fmt::format("cublasSgemm_v2({0}x{0}x{0})", n));
}

Result<int> CublasLibrary::version() const {
  if (handle_ == nullptr) return internal_error("cublasGetVersion_v2 before cublasCreate_v2");
  int v = 0;
  GPUMEM_RETURN_IF_ERROR(
      check(api_->get_version(static_cast<cublasHandle_t>(handle_), &v), "cublasGetVersion_v2"));
  return v;
}

}  // namespace gpumem::probe
