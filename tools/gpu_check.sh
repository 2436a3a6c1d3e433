#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every GPU check in one short run, for a machine with an NVIDIA GPU, its driver and nvcc
# (Debian-like; the build packages are installed as ./build.sh does):
#   1. configures and builds the CUDA backend, fpx and tst_cuda in build-gpu/ for this GPU;
#   2. runs tst_cuda: every CUDA conversion path against the exact core, bit for bit;
#   3. builds tools/gpu_probe/accumulator_probe.cu with nvcc, runs its crafted dot products
#      through mma.sync, wgmma (sm_90a) and cuBLASLt FP8, and compares every result with
#      `fpx dot --machine` for this GPU, bit for bit (tools/gpu_probe/compare.sh; the output in
#      $OUT/machines/);
#   4. runs `fpx bench --backend cuda` (copy bandwidth, conversions, cuBLASLt matmuls), then a
#      second, conversions-only run with the saturating policy (where FP8 uses the hardware
#      cvt.rn.satfinite instructions);
#   5. prints every figure and a summary of the acceptance criteria.
# Usage: tools/gpu_check.sh            (results in ./gpu-results)
#        OUT=/some/dir tools/gpu_check.sh
#        FPX_GPU_PREBUILT=gpu-bundle.tar.xz tools/gpu_check.sh
#            skips step 1 on a GPU machine without Qt, Boost or a compiler: the bundle is
#            built elsewhere by tools/gpu_bundle.sh and carries the libraries it needs.
# Environment: OUT, FPX_GPU_BUILD_DIR (build-gpu), FPX_GPU_BUDGET (0.1 s per measurement),
# CUDA_ARCH (default: the GPU's compute capability from nvidia-smi, else "native"),
# FPX_GPU_PREBUILT, FPX_GPU_PROBE (an accumulator_probe built elsewhere by
# tools/gpu_probe/build.sh, for a machine without nvcc; a bundle's bin/accumulator_probe is
# taken where there is one), and each step's time limit in seconds: FPX_GPU_TEST_TIMEOUT (240),
# FPX_GPU_PROBE_TIMEOUT (60: build, run and comparison together), FPX_GPU_BENCH_TIMEOUT (200),
# FPX_GPU_SATURATE_TIMEOUT (90).
# It keeps going after a failed step and exits non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

OUT=${OUT:-gpu-results}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD_DIR=${FPX_GPU_BUILD_DIR:-build-gpu}
BUDGET=${FPX_GPU_BUDGET:-0.1}
# Each step's limit in seconds; together they keep a run inside a ten-minute device lease.
TEST_TIMEOUT=${FPX_GPU_TEST_TIMEOUT:-240}
PROBE_TIMEOUT=${FPX_GPU_PROBE_TIMEOUT:-60}
BENCH_TIMEOUT=${FPX_GPU_BENCH_TIMEOUT:-200}
SATURATE_TIMEOUT=${FPX_GPU_SATURATE_TIMEOUT:-90}
exec > >(tee "$OUT/gpu_check.log") 2>&1

failures=()
notes=()
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

PREBUILT=${FPX_GPU_PREBUILT:-}
BIN_DIR="$PWD/$BUILD_DIR/bin"
PLUGIN_DIR="$PWD/$BUILD_DIR/lib"
# The environment the built programs run in: a bundle's libraries go into their
# LD_LIBRARY_PATH alone, not the script's, where they would stand in for the system's own in
# tools such as python3 and tar (and may be older than those need).
with_libraries=()

# The folders of the libraries a prebuilt bundle does not carry (cuBLASLt, for the CUDA it was
# built with), looked for where CUDA toolkits and Python wheels put them.
# Arguments: the LD_LIBRARY_PATH the programs will run with, then the programs.
find_missing_libraries() {
    local library_path=$1 name path
    shift
    for name in $(LD_LIBRARY_PATH="$library_path" ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 == "not" { print $1 }' | sort -u); do
        path=$(find /usr/local /opt /usr/lib /usr/lib64 -name "$name" -print 2>/dev/null | head -n 1)
        if [ -n "$path" ]; then
            dirname "$path"
        else
            echo "gpu_check: $name not found on this machine" >&2
        fi
    done | sort -u | paste -sd: -
}

if [ -n "$PREBUILT" ]; then
    section "prebuilt bundle $PREBUILT $(elapsed)"
    if [ -f "$PREBUILT" ]; then
        unpacked=$(mktemp -d)
        trap 'rm -rf "$unpacked"' EXIT
        if ! tar -C "$unpacked" -xJf "$PREBUILT"; then
            echo "gpu_check: cannot unpack $PREBUILT" >&2
            exit 1
        fi
        PREBUILT="$unpacked/gpu-bundle"
    fi
    PREBUILT=$(cd "$PREBUILT" && pwd) || exit 1
    BIN_DIR="$PREBUILT/bin"
    PLUGIN_DIR="$PREBUILT/lib"
    cat "$PREBUILT/BUILD_INFO" 2>/dev/null
    # The bundle holds machine code for one architecture (CUDA_ARCH when it was built).
    bundle_arch=$(sed -n 's/^CUDA architecture \([0-9]*\).*/\1/p' "$PREBUILT/BUILD_INFO" 2>/dev/null)
    gpu_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
    if [ -n "$bundle_arch" ] && [ -n "$gpu_arch" ] && [ "$bundle_arch" != "$gpu_arch" ]; then
        echo "WARNING: the bundle was built for sm_$bundle_arch, this GPU is sm_$gpu_arch:" \
            "rebuild it with CUDA_ARCH=$gpu_arch tools/gpu_bundle.sh"
    fi
    built=$(cat "$PREBUILT/COMMIT" 2>/dev/null || echo unknown)
    here=$(git rev-parse HEAD 2>/dev/null || echo unknown)
    echo "bundle built at commit $built; this checkout is at $here"
    if [ "$built" != "$here" ]; then
        echo "WARNING: the bundle and this checkout differ: the figures are the bundle's"
    fi
    binaries=("$BIN_DIR/fpx" "$BIN_DIR/tst_cuda" "$PLUGIN_DIR/libfpx_backend_cuda.so")
    library_path="$PREBUILT/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    found=$(find_missing_libraries "$library_path" "${binaries[@]}")
    if [ -n "$found" ]; then
        library_path="$library_path:$found"
    fi
    # This machine's libstdc++ and libgcc_s are used unless they are older than the bundle's.
    # (grep reads all of ldd's output: with -q it would stop at the first match, and ldd's
    # SIGPIPE would fail the pipeline under pipefail.)
    if LD_LIBRARY_PATH="$library_path" ldd "${binaries[@]}" 2>&1 | grep 'version .* not found' >/dev/null; then
        echo "this machine's C++ runtime is older than the bundle's: using the bundle's"
        library_path="$PREBUILT/deps-runtime:$library_path"
    fi
    echo "the programs run with LD_LIBRARY_PATH=$library_path"
    with_libraries=(env "LD_LIBRARY_PATH=$library_path")
    if LD_LIBRARY_PATH="$library_path" ldd "${binaries[@]}" 2>&1 | grep 'not found'; then
        echo "gpu_check: libraries are missing (above)" >&2
        exit 1
    fi
    nm -D --defined-only "$PLUGIN_DIR/libfpx_backend_cuda.so" | grep ' T fpx_' || true
else
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
    nm -D --defined-only "$PLUGIN_DIR/libfpx_backend_cuda.so" | grep ' T fpx_' || true
fi

section "tst_cuda: every CUDA conversion path against the exact core $(elapsed)"
export FPX_BACKEND_DIR="$PLUGIN_DIR"
QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=600000 timeout "$TEST_TIMEOUT" \
    "${with_libraries[@]}" "$BIN_DIR/tst_cuda" 2>&1 | tee "$OUT/tst_cuda.txt"
test_status=${PIPESTATUS[0]}
if [ "$test_status" -ne 0 ]; then
    failures+=("tst_cuda (exit $test_status)")
fi
# withoutDevice() skips where a device is present; any other skip means no GPU check ran.
if grep '^SKIP' "$OUT/tst_cuda.txt" | grep -qv 'withoutDevice()'; then
    # On a GPU machine a skip means nothing was checked (a driver older than the toolkit, say).
    echo "gpu_check: tst_cuda skipped the GPU checks (see SKIP above)"
    failures+=("tst_cuda skipped the GPU checks")
fi

section "accumulator probe: crafted dot products on the tensor cores against fpx's machines $(elapsed)"
# The probe runs each crafted case on every instruction this GPU has and prints the FP32 bits;
# compare.sh runs the same dot product on the fpx machine that models the instruction here and
# fails on any difference. An instruction the GPU lacks is reported skipped.
probe_dir="$OUT/machines"
mkdir -p "$probe_dir"
probe_deadline=$(($(date +%s) + PROBE_TIMEOUT))
probe_left() {
    local left=$((probe_deadline - $(date +%s)))
    if [ "$left" -lt 1 ]; then
        left=1
    fi
    echo "$left"
}
probe_cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
probe_bin=${FPX_GPU_PROBE:-}
probe_skip=""
if [ -z "$probe_bin" ] && [ -n "$PREBUILT" ] && [ -x "$BIN_DIR/accumulator_probe" ]; then
    probe_bin="$BIN_DIR/accumulator_probe"
fi
if [ -z "$probe_bin" ]; then
    probe_nvcc=${NVCC:-${CUDACXX:-}}
    if [ -z "$probe_nvcc" ]; then
        probe_nvcc=$(command -v nvcc || true)
    fi
    if [ -z "$probe_nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
        probe_nvcc=/usr/local/cuda/bin/nvcc
    fi
    if [ -z "$probe_nvcc" ]; then
        probe_skip="no nvcc on this machine and no prebuilt probe (FPX_GPU_PROBE)"
    else
        case "$BUILD_DIR" in
        /*) probe_bin="$BUILD_DIR/accumulator_probe/accumulator_probe" ;;
        *) probe_bin="$PWD/$BUILD_DIR/accumulator_probe/accumulator_probe" ;;
        esac
        timeout "$(probe_left)" env NVCC="$probe_nvcc" tools/gpu_probe/build.sh "$probe_bin" \
            "${probe_cc:-${ARCH:-native}}" 2>&1 | tee "$probe_dir/build.txt"
        probe_build_status=${PIPESTATUS[0]}
        if [ "$probe_build_status" -ne 0 ]; then
            failures+=("accumulator probe build (exit $probe_build_status)")
            probe_bin=""
        fi
    fi
fi
if [ -n "$probe_skip" ]; then
    echo "accumulator probe skipped: $probe_skip"
    notes+=("accumulator probe skipped: $probe_skip")
elif [ -n "$probe_bin" ]; then
    # cuBLASLt, where the loader does not find it, from where CUDA toolkits put it.
    probe_env=()
    if ldd "$probe_bin" 2>/dev/null | grep 'not found' >/dev/null; then
        probe_found=$(find_missing_libraries "${LD_LIBRARY_PATH:-}" "$probe_bin")
        probe_env=(env "LD_LIBRARY_PATH=$probe_found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    fi
    timeout "$(probe_left)" ${probe_env[@]+"${probe_env[@]}"} "$probe_bin" \
        >"$probe_dir/probe.jsonl" 2>"$probe_dir/probe_stderr.txt"
    probe_status=$?
    cat "$probe_dir/probe_stderr.txt"
    echo "probe: exit $probe_status, $(wc -l <"$probe_dir/probe.jsonl") lines in machines/probe.jsonl"
    # 0: every case ran; 1: some reported an error (compare.sh counts them); else it did not run.
    if [ "$probe_status" -ne 0 ] && [ "$probe_status" -ne 1 ]; then
        head -n 3 "$probe_dir/probe.jsonl"
        failures+=("accumulator probe (exit $probe_status)")
    else
        FPX="$BIN_DIR/fpx" FPX_LIBRARY_PATH="${library_path:-}" timeout "$(probe_left)" \
            tools/gpu_probe/compare.sh "$probe_dir/probe.jsonl" "$probe_dir"
        compare_status=$?
        if [ "$compare_status" -ne 0 ]; then
            failures+=("accumulator probe against fpx's machines (exit $compare_status, see machines/comparison.txt)")
        fi
    fi
fi

section "fpx bench --backend cuda $(elapsed)"
timeout "$BENCH_TIMEOUT" "${with_libraries[@]}" "$BIN_DIR/fpx" bench --backend cuda --sizes 1M,256M --budget "$BUDGET" --samples 5 \
    --json "$OUT/cuda.json" --csv "$OUT/cuda.csv" 2>&1 | tee "$OUT/cuda_bench.txt"
bench_status=${PIPESTATUS[0]}
if [ "$bench_status" -ne 0 ]; then
    failures+=("fpx bench --backend cuda (exit $bench_status)")
fi

section "fpx bench --backend cuda --overflow saturate (hardware FP8) $(elapsed)"
timeout "$SATURATE_TIMEOUT" "${with_libraries[@]}" "$BIN_DIR/fpx" bench --backend cuda --overflow saturate --no-arithmetic \
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
    "cuda_bench_saturate.txt cuda_saturate.json cuda_saturate.csv" \
    "machines/ (probe.jsonl comparison.txt comparison.jsonl)"
for note in ${notes[@]+"${notes[@]}"}; do
    echo "$note"
done
if [ ${#failures[@]} -gt 0 ]; then
    echo "FAILED: ${failures[*]}"
    exit 1
fi
echo "all GPU checks passed"
