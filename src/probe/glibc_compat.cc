// Keeps gpumem-probe runnable on glibc 2.34 and 2.35 (Ubuntu 22.04, RHEL 9), not only on the
// glibc 2.36 of the machine that builds it.
//
// libstdc++ is linked statically (the GPU machines lack this compiler's runtime). Its object
// holding std::random_device comes along with the exception classes, and on a glibc 2.36
// build machine that object seeds from arc4random, which glibc added in 2.36. The probe never
// uses std::random_device, but the reference alone would make the dynamic loader demand
// GLIBC_2.36. Defining arc4random here satisfies the reference inside the binary.
#include <sys/random.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t arc4random() noexcept {
  std::uint32_t v = 0;
  if (getrandom(&v, sizeof v, 0) == static_cast<ssize_t>(sizeof v)) return v;
  // getrandom(2) is missing only on kernels before 3.17; any value will do for a seed.
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint32_t>(ts.tv_nsec) ^ static_cast<std::uint32_t>(ts.tv_sec);
}
