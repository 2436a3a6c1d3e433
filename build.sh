#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One entry point for a fresh Debian 12 machine: installs what is missing, builds, then
#   ./build.sh run [arguments]       launches the explorer (fpx-explorer ARGUMENTS)
#   ./build.sh test                  runs the whole default test suite
#   ./build.sh exhaustive            runs the long exhaustive checks (hours)
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
    exec ctest --test-dir "$BUILD_DIR" --output-on-failure --label-exclude 'exhaustive|fuzz' \
        --parallel "$(nproc)" "$@"
    ;;
exhaustive)
    install_missing
    build
    exec ctest --test-dir "$BUILD_DIR" --output-on-failure --label-regex exhaustive "$@"
    ;;
build)
    install_missing
    build
    ;;
*)
    echo "usage: ./build.sh run [fpx-explorer arguments] | test | exhaustive | build" >&2
    exit 2
    ;;
esac
