#!/usr/bin/env bash
# Runs a gpumem-probe binary built elsewhere on a GPU machine that has the NVIDIA driver and
# NCCL but none of the build machine's libraries.
#
#   src/probe/run-on-gpu.sh PROBE_BINARY SUBCOMMAND [ARGS...]
#   src/probe/run-on-gpu.sh build/src/probe/gpumem-probe facts --out "$OUT/facts"
#
# It finds libnccl.so.2 (NCCL_LIB_DIR, a Python environment's nvidia-nccl wheel, the CUDA
# toolkit, or the system), the driver's libcuda.so.1 and libnvidia-ml.so.1, and
# cuBLAS (optional), puts their directories on LD_LIBRARY_PATH, prints what it found, checks
# the C library is new enough, and runs the probe. NVLink multicast stays off.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 PROBE_BINARY SUBCOMMAND [ARGS...]" >&2
  exit 2
fi
probe=$1
shift
if [[ ! -x $probe ]]; then
  echo "run-on-gpu: $probe is not an executable file" >&2
  exit 2
fi

say() { echo "run-on-gpu: $*" >&2; }

# The binary is linked on glibc 2.36 with libstdc++ inside; it asks the C library for
# symbols up to GLIBC_2.34 (see src/probe/README.md).
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [[ -n $glibc ]] && [[ $(printf '%s\n2.34\n' "$glibc" | sort -V | head -1) != 2.34 ]]; then
  say "glibc $glibc is older than 2.34, which this binary needs; build the probe on this machine"
  exit 2
fi

# Python site-packages directories, where the nvidia-* wheels keep their libraries.
python_lib_dirs() {
  local py
  for py in python3 /opt/torch/.venv/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" - <<'PY' 2>/dev/null || true
import site, sys
for p in site.getsitepackages() + [site.getusersitepackages()]:
    print(p)
PY
  done
}

# Directory of the first `name` found in the given directories (searched a few levels deep).
find_lib() {
  local name=$1
  shift
  local dir hit
  for dir in "$@"; do
    [[ -n $dir && -d $dir ]] || continue
    hit=$(find "$dir" -maxdepth 4 -name "$name" \( -type f -o -type l \) 2>/dev/null | head -1)
    if [[ -n $hit ]]; then
      dirname "$hit"
      return 0
    fi
  done
  # The loader's cache (system-wide libraries).
  hit=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
  [[ -n $hit ]] && dirname "$hit"
}

mapfile -t pydirs < <(python_lib_dirs)
cuda_dirs=(/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib)
driver_dirs=(/usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64)

# The Python environment's NCCL first: it is the one the serving engines load.
nccl_dir=$(find_lib libnccl.so.2 "${NCCL_LIB_DIR:-}" "${pydirs[@]}" "${cuda_dirs[@]}" || true)
if [[ -z $nccl_dir ]]; then
  say "libnccl.so.2 not found (looked in NCCL_LIB_DIR, Python site-packages, ${cuda_dirs[*]}" \
    "and the loader cache); set NCCL_LIB_DIR to its directory"
  exit 2
fi
cuda_dir=$(find_lib libcuda.so.1 "${driver_dirs[@]}" || true)
nvml_dir=$(find_lib libnvidia-ml.so.1 "${driver_dirs[@]}" || true)
cublas_dir=$(find_lib libcublas.so.13 "${pydirs[@]}" "${cuda_dirs[@]}" || true)

say "libnccl.so.2:      $nccl_dir"
say "libcuda.so.1:      ${cuda_dir:-NOT FOUND (CUDA calls will fail)}"
say "libnvidia-ml.so.1: ${nvml_dir:-not found (NVML readings will be absent)}"
say "libcublas.so.13:   ${cublas_dir:-not found (cuBLAS measurements will say so)}"

# Libraries carried next to the binary (libyaml-cpp, libstdc++) come first.
path=$(cd "$(dirname "$probe")" && pwd):$nccl_dir
for d in "$cuda_dir" "$nvml_dir" "$cublas_dir"; do
  [[ -n $d && :$path: != *:$d:* ]] && path=$path:$d
done
export LD_LIBRARY_PATH=$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0

say "glibc ${glibc:-unknown}; LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
ldd "$probe" 2>&1 | sed 's/^/run-on-gpu: ldd: /' >&2 || true
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L 2>&1 | sed 's/^/run-on-gpu: /' >&2 || true
fi
exec "$probe" "$@"
