#!/usr/bin/env bash
# Installs gpumem's build and test dependencies from Debian packages. Idempotent: when every
# package is already installed it changes nothing and touches no network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-dev libeigen3-dev libyaml-cpp-dev libre2-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # --download fetches model configs and safetensors headers from the Hugging Face Hub.
  libcurl4-openssl-dev
  # gpumem plot draws with gnuplot; the tests decode its PNGs with libpng.
  gnuplot-nox libpng-dev
  # tests/schema: the JSON outputs are validated against their JSON Schema files; the torch
  # probe's runner and tools (src/probe/torch) and their tests run in python3 too.
  python3 python3-jsonschema
  # scripts/fuzz.sh: clang 14 builds the libFuzzer targets. -fsanitize=fuzzer links
  # libclang_rt.fuzzer-x86_64.a, which Debian 12 ships in libclang-rt-14-dev together with
  # the ASan and UBSan runtimes (libfuzzer-14-dev holds only a standalone libFuzzer.a).
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
