#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the whole project (core, kernels, bench, CLI, GUI, tests, plugins; CUDA off) with clang
# in its own build directory, the project's warnings (-Wall -Wextra -Wpedantic) made errors,
# then runs a few fast tests. GCC stays the default compiler (build.sh); this keeps the code
# clean for clang as well, which libFuzzer needs (docs/fuzzing.md).
#   tools/clang_build.sh             clang++ (Debian 12: clang 14) into build-clang
#   CXX=clang++-15 tools/clang_build.sh   another clang, into build-clang++-15
# Environment: FPX_CLANG_BUILD_DIR overrides the directory; extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=${CXX:-clang++}
if ! command -v "$CXX" >/dev/null; then
    echo "tools/clang_build.sh: $CXX not found (apt-get install clang)" >&2
    exit 2
fi
if [ "$CXX" = clang++ ]; then
    BUILD_DIR=${FPX_CLANG_BUILD_DIR:-build-clang}
else
    BUILD_DIR=${FPX_CLANG_BUILD_DIR:-build-$(basename "$CXX")}
fi
# -Werror through CMAKE_CXX_FLAGS reaches every target; only the project's own code warns
# (fpx_warnings), imported headers are system headers.
CXX=$CXX cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFPX_WITH_CUDA=OFF -DCMAKE_CXX_FLAGS=-Werror
cmake --build "$BUILD_DIR"
# A few fast tests: the x86 feature queries and the F16C hardware check (tst_nan_payload), the
# parsers and readers the fuzzers drive.
exec ctest --test-dir "$BUILD_DIR" --output-on-failure --label-exclude 'exhaustive|fuzz|lectures' \
    -R 'tst_nan_payload|tst_valueparser|tst_format_specs|tst_lesson_file|tst_tensor_files' "$@"
