# SPDX-License-Identifier: GPL-3.0-or-later
# -DFPX_FUZZ=ON: the libFuzzer targets of fuzz/ (docs/fuzzing.md). Included by the top-level
# CMakeLists.txt before any target is made, because the whole project is then compiled with
# libFuzzer's coverage instrumentation and with AddressSanitizer and UndefinedBehaviorSanitizer:
# the fuzzers steer by the coverage of the core they drive, and a memory error or undefined
# behaviour anywhere in it must stop the run with the input that caused it.
option(FPX_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)
if(FPX_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "FPX_FUZZ=ON needs clang (libFuzzer is part of clang), but the C++ compiler is "
      "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}. Configure a separate build directory "
      "with CXX=clang++, e.g. tools/fuzz.sh does that for you.")
  endif()
  # -fno-sanitize-recover: undefined behaviour stops the run like a crash (halt on error).
  # fuzz/uninstrumented.txt: what is left unchecked and uncounted (Boost's big-integer loops),
  # and why.
  set(FPX_FUZZ_IGNORED ${PROJECT_SOURCE_DIR}/fuzz/uninstrumented.txt)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize-ignorelist=${FPX_FUZZ_IGNORED}>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize-coverage-ignorelist=${FPX_FUZZ_IGNORED}>")
  add_link_options(-fsanitize=address,undefined)
endif()
