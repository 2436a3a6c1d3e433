#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every GPU check in one short run, for a machine with an NVIDIA GPU, its driver and nvcc
# (Debian-like; the build packages are installed as ./build.sh does):
#   1. configures and builds the CUDA backend, fpx and tst_cuda in build-gpu/ for this GPU;
#   2. runs tst_cuda: every CUDA conversion path against the exact core, bit for bit;
#   3. runs `fpx bench --backend cuda` (copy bandwidth, conversions, cuBLASLt matmuls), then a
#      second, conversions-only run with the saturating policy (where FP8 uses the hardware
#      cvt.rn.satfinite instructions);
#   4. prints every figure and a summary of the acceptance criteria.
# Usage: tools/gpu_check.sh            (results in ./gpu-results)
#        OUT=/some/dir tools/gpu_check.sh
# Environment: OUT, FPX_GPU_BUILD_DIR (build-gpu), FPX_GPU_BUDGET (0.1 s per measurement),
# CUDA_ARCH (default: the GPU's compute capability from nvidia-smi, else "native").
# It keeps going after a failed step and exits non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD_DIR=${FPX_GPU_BUILD_DIR:-build-gpu}
BUDGET=${FPX_GPU_BUDGET:-0.1}
exec > >(tee "$OUT/gpu_check.log") 2>&1

failures=()
section() { printf '\n======== %s ========\n' "$*"; }
elapsed() { echo "[$(($(date +%s) - START))s]"; }
START=$(date +%s)

section "machine $(elapsed)"
uname -srm
echo "CPU cores: $(nproc)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi || true
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm,clocks.max.memory,power.limit \
        --format=csv || true
else
    echo "nvidia-smi: not found"
fi

NVCC=${CUDACXX:-}
if [ -z "$NVCC" ]; then
    NVCC=$(command -v nvcc || true)
fi
if [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
    NVCC=/usr/local/cuda/bin/nvcc
fi
if [ -z "$NVCC" ]; then
    echo "gpu_check: no nvcc found (set CUDACXX)" >&2
    exit 1
fi
"$NVCC" --version | tail -n 2
# The CUDA runtime built in must not be newer than what the driver supports, or every check
# will report cudaErrorInsufficientDriver.
driver_cuda=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | grep -o '[0-9.]*$' || true)
toolkit_cuda=$("$NVCC" --version | grep -o 'release [0-9.]*' | grep -o '[0-9.]*$' || true)
echo "driver supports CUDA ${driver_cuda:-?}; nvcc is CUDA ${toolkit_cuda:-?}"
if [ -n "$driver_cuda" ] && [ -n "$toolkit_cuda" ] &&
    [ "$(printf '%s\n%s\n' "$driver_cuda" "$toolkit_cuda" | sort -V | head -n 1)" != "$toolkit_cuda" ]; then
    echo "WARNING: nvcc (CUDA $toolkit_cuda) is newer than the driver (CUDA $driver_cuda):" \
        "the runtime may refuse to start"
fi

section "packages $(elapsed)"
# The package list of ./build.sh, installed the same way where apt is available; the OpenCL
# packages are left out (this build has no OpenCL backend). A machine without network access
# must have them already: apt is given a minute, then the build is tried anyway.
eval "$(grep '^PACKAGES=' build.sh)"
needed=()
for package in "${PACKAGES[@]}"; do
    case "$package" in
    *opencl* | pocl* | clinfo) ;;
    *) needed+=("$package") ;;
    esac
done
if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
    missing=()
    for package in "${needed[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing ${missing[*]}"
        sudo=""
        if [ "$(id -u)" -ne 0 ]; then
            sudo="sudo"
        fi
        if ! { timeout 60 $sudo apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive timeout 240 $sudo apt-get install -y -qq \
                --no-install-recommends "${missing[@]}"; }; then
            echo "gpu_check: could not install ${missing[*]} (no network?); trying the build anyway"
        fi
    else
        echo "all present: ${needed[*]}"
    fi
else
    echo "no apt: assuming ${needed[*]} (or equivalents) are installed"
fi

section "configure and build $(elapsed)"
ARCH=${CUDA_ARCH:-}
if [ -z "$ARCH" ] && command -v nvidia-smi >/dev/null; then
    ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
fi
ARCH=${ARCH:-native}
echo "CUDA architecture: $ARCH"
generator=()
if command -v ninja >/dev/null; then
    generator=(-G Ninja)
fi
if ! cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DFPX_WITH_CUDA=ON -DFPX_WITH_OPENCL=OFF -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH"; then
    echo "gpu_check: configuring failed" >&2
    exit 1
fi
if ! cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target fpx fpx_backend_cuda tst_cuda; then
    echo "gpu_check: the build failed" >&2
    exit 1
fi
nm -D --defined-only "$BUILD_DIR/lib/libfpx_backend_cuda.so" | grep ' T fpx_' || true

section "tst_cuda: every CUDA conversion path against the exact core $(elapsed)"
QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=600000 timeout 300 \
    "$BUILD_DIR/bin/tst_cuda" 2>&1 | tee "$OUT/tst_cuda.txt"
test_status=${PIPESTATUS[0]}
if [ "$test_status" -ne 0 ]; then
    failures+=("tst_cuda (exit $test_status)")
fi
if grep -q '^SKIP' "$OUT/tst_cuda.txt"; then
    # On a GPU machine a skip means nothing was checked (a driver older than the toolkit, say).
    echo "gpu_check: tst_cuda skipped the GPU checks (see SKIP above)"
    failures+=("tst_cuda skipped the GPU checks")
fi

section "fpx bench --backend cuda $(elapsed)"
export FPX_BACKEND_DIR="$PWD/$BUILD_DIR/lib"
timeout 240 "$BUILD_DIR/bin/fpx" bench --backend cuda --sizes 1M,256M --budget "$BUDGET" --samples 5 \
    --json "$OUT/cuda.json" --csv "$OUT/cuda.csv" 2>&1 | tee "$OUT/cuda_bench.txt"
bench_status=${PIPESTATUS[0]}
if [ "$bench_status" -ne 0 ]; then
    failures+=("fpx bench --backend cuda (exit $bench_status)")
fi

section "fpx bench --backend cuda --overflow saturate (hardware FP8) $(elapsed)"
timeout 120 "$BUILD_DIR/bin/fpx" bench --backend cuda --overflow saturate --no-arithmetic \
    --formats fp16,bf16,fp8_e4m3,fp8_e5m2,fp6_e3m2,fp6_e2m3,fp4_e2m1 --sizes 256M --budget "$BUDGET" \
    --samples 5 --json "$OUT/cuda_saturate.json" --csv "$OUT/cuda_saturate.csv" 2>&1 |
    tee "$OUT/cuda_bench_saturate.txt"
saturate_status=${PIPESTATUS[0]}
if [ "$saturate_status" -ne 0 ]; then
    failures+=("fpx bench --overflow saturate (exit $saturate_status)")
fi

section "summary $(elapsed)"
if command -v python3 >/dev/null; then
    python3 - "$OUT/cuda.csv" "$OUT/cuda_saturate.csv" <<'EOF'
import csv, sys, os

rows = []
for path in sys.argv[1:]:
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                r["file"] = os.path.basename(path)
                rows.append(r)
if not rows:
    print("no results")
    sys.exit(0)

def num(r, key):
    try:
        return float(r[key])
    except (KeyError, ValueError):
        return 0.0

def pct(value, ceiling):
    return f"{value / ceiling * 100:5.1f}%" if ceiling > 0 else "   - "

print("Copy bandwidth (bytes read + written) against the datasheet:")
for r in rows:
    if r["operation"] == "copy" and r["file"] == "cuda.csv":
        print(f"  {int(r['elements']):>11} elements  {r['path']:<42} "
              f"{num(r, 'bytes_per_second') / 1e12:7.3f} TB/s  {pct(num(r, 'bytes_per_second'), num(r, 'ceiling'))} "
              f"of {r['ceiling_name']}  verified={r['verified']}")

largest = max(int(r["elements"]) for r in rows if r["operation"] == "convert") \
    if any(r["operation"] == "convert" for r in rows) else 0
print(f"\nConversions at {largest} elements (bytes read + written, % of the measured copy bandwidth):")
own_total = own_pass = 0
unverified = []
for r in rows:
    if r["operation"] != "convert":
        continue
    if r["verified"] != "true" and r["exact_by_design"] == "true":
        unverified.append(r)
    if int(r["elements"]) != largest:
        continue
    bps, ceiling = num(r, "bytes_per_second"), num(r, "ceiling")
    arrow = f"fp32->{r['format']}" if r["direction"] == "encode" else f"{r['format']}->fp32"
    own = r["path"].startswith("own kernel")
    if own and ceiling > 0:
        own_total += 1
        own_pass += bps >= 0.8 * ceiling
    tag = "own" if own else ("hw " if r["hardware"] == "true" else "sw ")
    print(f"  {r['file']:<20} {arrow:<22} {tag} {r['path'][:58]:<58} "
          f"{bps / 1e12:7.3f} TB/s {pct(bps, ceiling)}  verified={r['verified']} "
          f"({r['mismatches']}/{r['checked']} differ)")

print("\nMatrix multiply (cuBLASLt) against the datasheet dense peak:")
for r in rows:
    if r["operation"] == "arithmetic":
        ops = num(r, "operations_per_second")
        line = f"  {r['format']:<9} {r['path'][:70]:<70} "
        if ops > 0:
            line += f"{ops / 1e12:8.1f} T/s  {pct(ops, num(r, 'ceiling'))} of {r['ceiling_name']}"
        else:
            line += r["note"]
        print(line)

print("\nCriteria:")
print(f"  own kernels at >= 80% of the measured copy bandwidth ({largest} elements): "
      f"{own_pass} of {own_total}")
print(f"  results that must be bit-exact but are not: {len(unverified)}")
for r in unverified:
    print(f"    {r['file']} {r['format']} {r['direction']} {r['path']}: {r['note']}")
EOF
else
    echo "python3 not found: see $OUT/cuda_bench.txt and $OUT/cuda.csv"
fi

section "done $(elapsed)"
echo "results in $OUT: gpu_check.log tst_cuda.txt cuda_bench.txt cuda.json cuda.csv" \
    "cuda_bench_saturate.txt cuda_saturate.json cuda_saturate.csv"
if [ ${#failures[@]} -gt 0 ]; then
    echo "FAILED: ${failures[*]}"
    exit 1
fi
echo "all GPU checks passed"
