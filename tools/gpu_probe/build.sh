#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds tools/gpu_probe/accumulator_probe.cu with nvcc, outside the CMake build (a machine
# without CUDA never sees it):
#   tools/gpu_probe/build.sh OUTPUT [ARCH]
# ARCH: a compute capability without the dot (80, 89, 90, 100, ...) or "native" (the default).
# 90 builds for sm_90a, the only target with wgmma; elsewhere the wgmma kernels compile to a
# stub and the probe reports them skipped. The probe links cuBLASLt from the same toolkit,
# whose library folder goes into its RUNPATH. Environment: NVCC (else CUDACXX, nvcc on PATH,
# /usr/local/cuda/bin/nvcc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
output=${1:?usage: build.sh OUTPUT [ARCH]}
arch=${2:-native}

nvcc=${NVCC:-${CUDACXX:-}}
if [ -z "$nvcc" ]; then
    nvcc=$(command -v nvcc || true)
fi
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
fi
if [ -z "$nvcc" ]; then
    echo "build.sh: no nvcc found (set NVCC)" >&2
    exit 1
fi

case "$arch" in
native) target=(-arch=native) ;;
90 | 90a) target=(-gencode "arch=compute_90a,code=sm_90a") ;;
[0-9]*) target=(-gencode "arch=compute_${arch},code=sm_${arch}") ;;
*)
    echo "build.sh: unknown architecture '$arch'" >&2
    exit 1
    ;;
esac

# The toolkit's own library folder (lib64, or targets/<platform>/lib).
toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
libdir=""
for candidate in "$toolkit/lib64" "$toolkit"/targets/*/lib; do
    if [ -e "$candidate/libcublasLt.so" ]; then
        libdir=$candidate
        break
    fi
done
link=(-lcublasLt)
if [ -n "$libdir" ]; then
    link=(-L"$libdir" -Xlinker -rpath -Xlinker "$libdir" -lcublasLt)
fi

mkdir -p "$(dirname "$output")"
set -x
"$nvcc" -std=c++17 -O2 -lineinfo "${target[@]}" -Xcompiler=-Wall -o "$output" \
    "$here/accumulator_probe.cu" "${link[@]}"
