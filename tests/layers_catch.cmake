# SPDX-License-Identifier: GPL-3.0-or-later
# The layer check must fail on the tree in tests/data/layers, naming each broken include by file
# and line, and nothing else: a check that passes everything would pass this tree too.
#   cmake -DCHECK=tools/check_layers.cmake -DFIXTURE=tests/data/layers \
#         -P tests/layers_catch.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${FIXTURE} -P ${CHECK}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "the layer check passed a tree with broken includes:\n${out}")
endif()
set(expected
    "core/exact/src/value.cpp:2: \"fpx/bench/run.h\": core/exact may include fpx/{exact}/ only"
    "core/exact/src/value.cpp:3: \"../../bench/src/private.h\" climbs out of its folder"
    "core/exact/src/value.cpp:4: <QString>: the core is Qt-free"
    "app/cli/command.cpp:2: \"pages/page.h\" is not in app/cli's own folders")
foreach(line IN LISTS expected)
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the layer check did not say\n  ${line}\nIt said:\n${out}")
  endif()
endforeach()
string(REGEX MATCHALL "(^|\n)[a-z/_.]+:[0-9]+: " reported "${out}")
list(LENGTH reported count)
list(LENGTH expected wanted)
if(NOT count EQUAL wanted)
  message(FATAL_ERROR "the layer check reported ${count} includes, not ${wanted}:\n${out}")
endif()
message(STATUS "the layer check caught all ${wanted} broken includes")
