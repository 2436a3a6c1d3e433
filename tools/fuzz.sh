#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds (if needed) and runs the libFuzzer targets of fuzz/ (docs/fuzzing.md).
#   tools/fuzz.sh                   every target, 60 s each
#   tools/fuzz.sh TARGET [SECONDS]  one target (value, calc, format_spec, code, convert_text,
#                                   convert_raw, npy, safetensors, saved_run, lesson,
#                                   machine_file), or "all"
# Environment: FPX_FUZZ_BUILD_DIR (default build-fuzz), FPX_FUZZ_NO_BUILD=1 (ctest sets it),
# CXX (default clang++).
# New inputs that reach new coverage go to BUILD/fuzz/corpus/TARGET (never into the seed
# corpus in the repository); crashes, timeouts and out-of-memory inputs to
# BUILD/fuzz/crashes/TARGET/, the log to BUILD/fuzz/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGETS=(value calc format_spec code convert_text convert_raw npy safetensors saved_run lesson machine_file)
target=${1:-all}
seconds=${2:-60}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "tools/fuzz.sh: SECONDS '$seconds' is not a whole number of seconds, 1 or more" >&2
    exit 2
fi
BUILD_DIR=${FPX_FUZZ_BUILD_DIR:-build-fuzz}

if [ "$target" != all ] && [[ ! " ${TARGETS[*]} " =~ " $target " ]]; then
    echo "tools/fuzz.sh: unknown target '$target' (one of: all ${TARGETS[*]})" >&2
    exit 2
fi

if [ "${FPX_FUZZ_NO_BUILD:-0}" != 1 ]; then
    if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
        # -O1 and line tables only, as libFuzzer's documentation advises: quick to build, fast
        # enough to run, stack traces with lines. No NDEBUG: the core's assertions stay on.
        CXX=${CXX:-clang++} cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
            -DFPX_FUZZ=ON -DFPX_WITH_CUDA=OFF -DFPX_BUILD_TESTS=OFF
    fi
    if [ "$target" = all ]; then
        cmake --build "$BUILD_DIR" --target fpx_fuzzers
    else
        cmake --build "$BUILD_DIR" --target "fuzz_$target"
    fi
fi

# The settings, per target:
#   -max_len       text targets 4096 bytes: the expression grammar refuses longer text
#                  (kMaxExpressionLength), and what a parser does with a longer value or line is
#                  the same work repeated; lessons 16384, enough for several steps with their
#                  actions; binary files 8192, enough for a header, its tensors' offsets and
#                  some data. Short inputs keep the executions per second high.
#   -timeout=30    seconds for one input: every input must finish in bounded time (the parsers'
#                  work budgets); longer is a finding. Coverage tracing of every comparison
#                  and the sanitizers make the exact core's big-integer work many times slower
#                  than in a release build, so inputs that take a fraction of a second in fpx
#                  need this margin.
#   -rss_limit_mb=2048  one input must not take gigabytes: the machine is shared, and a
#                  runaway allocation is a finding (also caught per allocation: libFuzzer's
#                  malloc limit defaults to the same figure).
#   -jobs/-workers: not set, one process, so that the run takes one core.
max_len_for() {
    case "$1" in
    lesson) echo 16384 ;;
    npy | safetensors | saved_run | convert_raw) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

status=0
run_one() {
    local name=$1
    local binary="$BUILD_DIR/bin/fuzz_$name"
    local seeds="$ROOT/fuzz/corpus/$name"
    local corpus="$BUILD_DIR/fuzz/corpus/$name"
    local crashes="$BUILD_DIR/fuzz/crashes/$name"
    local log="$BUILD_DIR/fuzz/logs/$name.log"
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    local options=(-max_total_time="$seconds" -max_len="$(max_len_for "$name")" -timeout=30
                   -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/")
    if [ -f "$ROOT/fuzz/dictionaries/$name.dict" ]; then
        options+=(-dict="$ROOT/fuzz/dictionaries/$name.dict")
    fi
    echo "tools/fuzz.sh: $name for $seconds s (log $log)"
    # The first directory receives new inputs; the seeds are only read.
    if ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$binary" "${options[@]}" "$corpus" "$seeds" >"$log" 2>&1; then
        local result=clean
    else
        local result="FAILED, input saved in $crashes"
        status=1
    fi
    local last
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    echo "tools/fuzz.sh: $name: $result; $(grep -E 'stat::number_of_executed_units' "$log" |
        awk '{print $2}') executions; last status: ${last:-none}"
    if [ "$result" != clean ]; then
        grep -E 'ERROR|runtime error|Test unit written|SUMMARY' "$log" | head -5 >&2 || true
    fi
}

if [ "$target" = all ]; then
    for name in "${TARGETS[@]}"; do
        run_one "$name"
    done
else
    run_one "$target"
fi
exit $status
