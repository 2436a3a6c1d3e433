#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds what tools/gpu_check.sh runs (fpx, tst_cuda and the CUDA backend plugin) on a machine
# that has the build tools but no GPU, and packs it with the shared libraries it needs, for a
# GPU machine that has a driver but no Qt, Boost or compiler (a bare cloud GPU image):
#   tools/gpu_bundle.sh                   -> gpu-bundle.tar.xz (ignored by git)
#   then, on the GPU machine, in a checkout of the same commit:
#   FPX_GPU_PREBUILT=gpu-bundle.tar.xz tools/gpu_check.sh
# Environment: CUDA_ARCH (default 90: H100/H200; 80 for A100, 89 for L4/L40/RTX 40, 100 for
# B200, 120 for RTX 50), FPX_GPU_BUILD_DIR (build-gpu), BUNDLE (gpu-bundle.tar.xz).
# The libraries of the C runtime (glibc, libstdc++, libgcc_s) are the GPU machine's own, which
# must be at least as new as this machine's; libstdc++ and libgcc_s travel too, in a folder of
# their own that gpu_check.sh uses only where the machine's are too old. cuBLASLt is not packed
# (hundreds of megabytes): gpu_check.sh finds the GPU machine's own.
set -euo pipefail
cd "$(dirname "$0")/.."

ARCH=${CUDA_ARCH:-90}
BUILD_DIR=${FPX_GPU_BUILD_DIR:-build-gpu}
BUNDLE=${BUNDLE:-gpu-bundle.tar.xz}
NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

generator=()
if command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DFPX_WITH_CUDA=ON \
    -DFPX_WITH_OPENCL=OFF -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCH"
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target fpx fpx_backend_cuda tst_cuda

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/gpu-bundle"
mkdir -p "$root/bin" "$root/lib" "$root/deps" "$root/deps-runtime"
cp "$BUILD_DIR/bin/fpx" "$BUILD_DIR/bin/tst_cuda" "$root/bin/"
cp "$BUILD_DIR/lib/libfpx_backend_cuda.so" "$root/lib/"
# The accumulator probe (tools/gpu_probe), which gpu_check.sh runs from the bundle where the
# GPU machine has no nvcc; it needs only the CUDA runtime and cuBLASLt of that machine.
NVCC="$NVCC" tools/gpu_probe/build.sh "$root/bin/accumulator_probe" "$ARCH"
strip --strip-unneeded "$root/bin/"* "$root/lib/"*

# Every shared library the three load, found here by the dynamic loader, except the C runtime
# and the GPU's own libraries, which belong to the machine they run on.
ldd "$root/bin/fpx" "$root/bin/tst_cuda" "$root/lib/libfpx_backend_cuda.so" |
    awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
    while read -r name path; do
        case "$name" in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
        libcuda.so.* | libcublas*.so.* | libcudart.so.* | libnvidia-*) ;;
        libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$root/deps-runtime/$name" ;;
        *) cp -L "$path" "$root/deps/$name" ;;
        esac
    done
git rev-parse HEAD >"$root/COMMIT" 2>/dev/null || echo unknown >"$root/COMMIT"
{
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "CUDA architecture $ARCH, $("$NVCC" --version | tail -n 1)"
    ldd --version | sed -n 1p
} >"$root/BUILD_INFO"
tar -C "$stage" -cJf "$BUNDLE" gpu-bundle
echo "$BUNDLE: $(du -h "$BUNDLE" | cut -f1), commit $(cat "$root/COMMIT")"
cat "$root/BUILD_INFO"
