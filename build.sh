#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One entry point for a fresh Debian 12 machine: installs what is missing, builds, then
#   ./build.sh run [arguments]       launches the explorer (fpx-explorer ARGUMENTS)
#   ./build.sh test                  runs the whole default test suite
#   ./build.sh exhaustive            runs the long exhaustive checks (hours)
#   ./build.sh sanitize              builds with ASan and UBSan in build-sanitize (GCC) and runs
#                                    the default suite there; any finding fails its test
#                                    (docs/sanitizers.md)
#   ./build.sh build                 only builds
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake ninja-build g++ libboost-dev nlohmann-json3-dev qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo qt6-qpa-plugins dpkg-dev file desktop-file-utils)
BUILD_DIR=${FPX_BUILD_DIR:-build}

install_missing() {
    local missing=()
    for package in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return
    fi
    echo "build.sh: installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build "$BUILD_DIR" --parallel
}

# The default suite under AddressSanitizer and UndefinedBehaviorSanitizer. Every report stops
# the program (halt_on_error) with a stack trace, so it fails the test it happened in. Leaks are
# checked too; tools/sanitizers/lsan.supp names the system libraries whose own leaks are
# suppressed, each with its reason, and never fpx's code.
sanitize() {
    local dir=${FPX_SANITIZE_BUILD_DIR:-build-sanitize}
    local suppressions
    suppressions="$(pwd)/tools/sanitizers"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ \
        -DFPX_SANITIZE=address,undefined
    cmake --build "$dir" --parallel
    # A report ends the program with status 86, which no fpx program uses: a CLI test that
    # expects fpx's own status 1 (bad input) still fails when a sanitizer stopped fpx instead.
    # protect_shadow_gap=0: the CUDA driver maps memory where ASan would otherwise forbid it, so
    # the CUDA plugin could not start on a GPU. use_sigaltstack=0: a thread of the OpenCL CPU
    # driver (pocl) ends on a signal stack ASan did not map, and ASan's own clean-up of the
    # thread then fails on it (docs/sanitizers.md).
    export ASAN_OPTIONS="halt_on_error=1:exitcode=86:detect_leaks=1:check_initialization_order=1:protect_shadow_gap=0:use_sigaltstack=0"
    export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0:exitcode=86"
    export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1"
    exec ctest --test-dir "$dir" --output-on-failure --label-exclude 'exhaustive|fuzz|lectures' \
        --parallel "$(nproc)" "$@"
}

command=${1:-run}
shift || true
case "$command" in
run)
    install_missing
    build
    exec "$BUILD_DIR/bin/fpx-explorer" "$@"
    ;;
test)
    install_missing
    build
    exec ctest --test-dir "$BUILD_DIR" --output-on-failure --label-exclude 'exhaustive|fuzz|lectures' \
        --parallel "$(nproc)" "$@"
    ;;
exhaustive)
    install_missing
    build
    exec ctest --test-dir "$BUILD_DIR" --output-on-failure --label-regex exhaustive "$@"
    ;;
sanitize)
    install_missing
    sanitize "$@"
    ;;
build)
    install_missing
    build
    ;;
*)
    echo "usage: ./build.sh run [fpx-explorer arguments] | test | exhaustive | sanitize | build" >&2
    exit 2
    ;;
esac
