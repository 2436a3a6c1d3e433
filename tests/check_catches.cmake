# SPDX-License-Identifier: GPL-3.0-or-later
# A tree check (tools/check_*.cmake) must fail on the broken tree FIXTURE and report exactly the
# lines of FIXTURE/expected.txt, each naming a file and what is wrong there, and nothing else:
# a check that passes everything would pass that tree too.
#   cmake -DCHECK=tools/check_layers.cmake -DFIXTURE=tests/data/layers \
#         -P tests/check_catches.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${FIXTURE} -P ${CHECK}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "${CHECK} passed a broken tree:\n${out}")
endif()
file(STRINGS ${FIXTURE}/expected.txt expected)
foreach(line IN LISTS expected)
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${CHECK} did not say\n  ${line}\nIt said:\n${out}")
  endif()
endforeach()
string(REGEX MATCHALL "(^|\n)[a-z/_.]+(:[0-9]+)?: " reported "${out}")
list(LENGTH reported count)
list(LENGTH expected wanted)
if(NOT count EQUAL wanted)
  message(FATAL_ERROR "${CHECK} reported ${count} problems, not ${wanted}:\n${out}")
endif()
message(STATUS "${CHECK} caught all ${wanted} problems of ${FIXTURE}")
