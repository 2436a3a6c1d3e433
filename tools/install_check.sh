#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks fpx as a user gets it, from an existing build directory (default: build):
#   1. cmake --install into a fresh temporary prefix: every expected file there and no other;
#      the installed fpx and fpx-explorer run and find the backend plugins from where they
#      were installed;
#   2. cpack -G DEB into a temporary directory: the package's fields (Depends, Maintainer, ...)
#      and files, no CUDA plugin in it; unpacked anywhere it still runs and finds its plugins;
#      apt-get can satisfy its Depends (simulated: nothing is installed on the machine).
#   tools/install_check.sh [BUILD_DIR]
# Registered as the ctest install_check (labels default, install). Nothing is left behind:
# the temporary directories go on exit, whatever happens.
set -euo pipefail

fail() {
    echo "install_check: FAILED: $*" >&2
    exit 1
}
note() { echo "install_check: $*"; }

source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$source_dir/build}
[ -f "$build_dir/CMakeCache.txt" ] || fail "$build_dir is not a configured build directory"
build_dir=$(cd "$build_dir" && pwd)
for tool in cmake cpack dpkg-deb dpkg-shlibdeps apt-get file desktop-file-validate; do
    command -v "$tool" >/dev/null ||
        fail "$tool not found (./build.sh installs it: cmake, dpkg-dev, file, desktop-file-utils)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fpx-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
# As /proc/self/exe gives it (symbolic links resolved), for the paths fpx prints.
work=$(cd "$work" && pwd -P)
# The installed programs must find their plugins on their own, not through the environment.
unset FPX_BACKEND_DIR

cache() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"; }
libdir=$(cache CMAKE_INSTALL_LIBDIR)
[ -n "$libdir" ] || fail "no CMAKE_INSTALL_LIBDIR in $build_dir/CMakeCache.txt"
version=$(cache CMAKE_PROJECT_VERSION)
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in $build_dir/CMakeCache.txt"
[ -x "$build_dir/bin/fpx" ] && [ -x "$build_dir/bin/fpx-explorer" ] ||
    fail "$build_dir holds no built fpx and fpx-explorer: build first"
icon=$(sed -n 's/^Icon=//p' "$source_dir/resources/fpx-explorer.desktop")
[ -n "$icon" ] || fail "resources/fpx-explorer.desktop has no Icon= line"
# A plugin is expected where this configuration builds it (not where an older one left a file).
configured() { grep -q "backends/$1/cmake_install.cmake" "$build_dir/backends/cmake_install.cmake"; }
has_opencl=false
configured opencl && has_opencl=true
has_cuda=false
configured cuda && has_cuda=true

# What a prefix holds, relative to it; the .deb holds the same under usr/ without the CUDA plugin.
expected=(
    bin/fpx
    bin/fpx-explorer
    bin/fpx-backend-probe
    share/applications/fpx-explorer.desktop
    "share/icons/hicolor/scalable/apps/$icon.svg"
    share/doc/fpx/LICENSE
    share/doc/fpx/README.md
)
$has_opencl && expected+=("$libdir/fpx/libfpx_backend_opencl.so")
expected_deb=("${expected[@]}")
$has_cuda && expected+=("$libdir/fpx/libfpx_backend_cuda.so")

# The file list under $1 (relative) against the list in the remaining arguments: each must be
# there, and nothing else (no static library, header or test).
check_files() {
    local root=$1 what=$2
    shift 2
    local want have
    want=$(printf '%s\n' "$@" | sort)
    have=$(cd "$root" && find . -type f -o -type l | sed 's|^\./||' | sort)
    local missing unexpected
    missing=$(comm -23 <(echo "$want") <(echo "$have"))
    unexpected=$(comm -13 <(echo "$want") <(echo "$have"))
    [ -z "$missing" ] || fail "$what lacks: $(tr '\n' ' ' <<<"$missing")"
    [ -z "$unexpected" ] ||
        fail "$what holds unexpected files: $(tr '\n' ' ' <<<"$unexpected")(add them to tools/install_check.sh if meant)"
}

# $1: the fpx to run; $2: where its OpenCL plugin must have been found.
check_fpx() {
    local fpx=$1 plugins=$2 out
    out=$("$fpx" show 1/3 --formats fp16 2>&1) || fail "$fpx show 1/3 --formats fp16: $out"
    # 1/3 to FP16, nearest: 0 01101 0101010101 (0x3555 = 0.333251953125).
    grep -qi '0x3555' <<<"$out" || fail "$fpx show 1/3 --formats fp16 does not give 0x3555: $out"
    out=$("$fpx" --version 2>&1) || fail "$fpx --version: $out"
    grep -qF "$version" <<<"$out" || fail "$fpx --version does not say $version: $out"
    out=$("$fpx" bench --list 2>&1) || fail "$fpx bench --list: $out"
    if $has_opencl; then
        if ! grep -q '(opencl): ' <<<"$out" || grep -q '^not loaded: opencl' <<<"$out"; then
            fail "$fpx bench --list did not load the OpenCL plugin from $plugins:"$'\n'"$out"
        fi
        # Without the file, the message names the place it was looked for: that place.
        mv "$plugins/libfpx_backend_opencl.so" "$work/moved.so"
        out=$("$fpx" bench --list 2>&1) || true
        mv "$work/moved.so" "$plugins/libfpx_backend_opencl.so"
        grep -qF "$plugins/libfpx_backend_opencl.so" <<<"$out" ||
            fail "$fpx does not look for its OpenCL plugin in $plugins:"$'\n'"$out"
    fi
}

# --- 1. cmake --install -------------------------------------------------------------------
prefix=$work/prefix
cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install $build_dir --prefix $prefix:"$'\n'"$(cat "$work/install.log")"
check_files "$prefix" "the installed prefix" "${expected[@]}"
check_fpx "$prefix/bin/fpx" "$prefix/$libdir/fpx"
out=$(desktop-file-validate "$prefix/share/applications/fpx-explorer.desktop" 2>&1) ||
    fail "the installed fpx-explorer.desktop is not valid: $out"
file "$prefix/share/icons/hicolor/scalable/apps/$icon.svg" | grep -q 'SVG' ||
    fail "the installed icon $icon.svg is no SVG image"
shot=$work/explorer.png
out=$(QT_QPA_PLATFORM=offscreen "$prefix/bin/fpx-explorer" --no-settings --value 1/3 \
    --screenshot "$shot" 2>&1) || fail "installed fpx-explorer --screenshot: $out"
file "$shot" | grep -q 'PNG image data' || fail "installed fpx-explorer wrote no PNG to $shot"
note "cmake --install: ${#expected[@]} files in place; fpx and fpx-explorer run from the prefix"

# --- 2. the .deb --------------------------------------------------------------------------
pack=$work/pack
mkdir -p "$pack"
(cd "$pack" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$pack") \
    >"$work/cpack.log" 2>&1 || fail "cpack -G DEB:"$'\n'"$(cat "$work/cpack.log")"
debs=("$pack"/fpx_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] ||
    fail "cpack made no single fpx_*.deb:"$'\n'"$(ls "$pack")"$'\n'"$(cat "$work/cpack.log")"
deb=${debs[0]}
arch=$(dpkg --print-architecture)
[ "$(basename "$deb")" = "fpx_${version}_${arch}.deb" ] ||
    fail "the package is named $(basename "$deb"), not fpx_${version}_${arch}.deb"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = fpx ] || fail "Package: $(field Package), not fpx"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), not $version"
for name in Maintainer Description Section; do
    [ -n "$(field $name)" ] || fail "the package has no $name field"
done
depends=$(field Depends)
[ -n "$depends" ] || fail "the package has no Depends field"
wanted_depends=(libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6
    libqcustomplot2.1-qt6 qt6-qpa-plugins)
$has_opencl && wanted_depends+=(ocl-icd-libopencl1)
depends_names=$(tr ',|' '\n' <<<"$depends" | sed 's/(.*//; s/ //g')
for package in "${wanted_depends[@]}"; do
    grep -qxF "$package" <<<"$depends_names" || fail "Depends lacks $package: $depends"
done
grep -qiE 'cuda|cublas|nvidia' <<<"$depends" && fail "Depends names non-Debian CUDA packages: $depends"

root=$work/root
dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x $deb"
check_files "$root" "the .deb" "${expected_deb[@]/#/usr/}"
check_fpx "$root/usr/bin/fpx" "$root/usr/$libdir/fpx"

# Every Depends must be satisfiable from the machine's packages and apt lists.
out=$(apt-get install --simulate --no-install-recommends "$deb" 2>&1) ||
    fail "apt-get install --simulate $deb: the Depends cannot be met:"$'\n'"$out"
note "$(basename "$deb"): Depends: $depends"
note "the .deb's files are in place, it runs unpacked elsewhere, apt can install it: passed"
