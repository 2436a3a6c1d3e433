# SPDX-License-Identifier: GPL-3.0-or-later
# Comments cite the documents by path and section: (docs/behaviour.md, "Conversion rules").
# This check fails, naming file and citation, on a citation whose document or section heading
# does not exist, so that a renamed section or a moved text cannot leave comments pointing
# nowhere.
#
#   cmake -DROOT=<source tree> -P tools/check_doc_citations.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_doc_citations: pass -DROOT=<source tree>")
endif()

file(GLOB_RECURSE sources
     "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/app/*.h" "${ROOT}/app/*.cpp"
     "${ROOT}/backends/*.h" "${ROOT}/backends/*.cpp" "${ROOT}/backends/*.cu"
     "${ROOT}/backends/*.cl" "${ROOT}/tests/*.h" "${ROOT}/tests/*.cpp" "${ROOT}/fuzz/*.cpp"
     "${ROOT}/tools/*.cmake" "${ROOT}/tools/*.sh" "${ROOT}/tools/*.py" "${ROOT}/CMakeLists.txt"
     "${ROOT}/core/*CMakeLists.txt" "${ROOT}/app/*CMakeLists.txt" "${ROOT}/build.sh")

set(problems "")
set(count 0)
foreach(source IN LISTS sources)
  file(RELATIVE_PATH relative "${ROOT}" "${source}")
  if(relative MATCHES "^tests/data/") # the broken trees the checks are tested on
    continue()
  endif()
  file(READ "${source}" text)
  if(NOT text MATCHES "docs/[a-z_]+\\.md")
    continue()
  endif()
  # A citation may run over two comment lines: join them first.
  string(REGEX REPLACE "\n[ \t]*(//|#)[ \t]*" " " text "${text}")
  string(REGEX MATCHALL "docs/[a-z_]+\\.md, \"[^\"]+\"" citations "${text}")
  foreach(citation IN LISTS citations)
    string(REGEX MATCH "^(docs/[a-z_]+\\.md), \"([^\"]+)\"$" parts "${citation}")
    set(document "${CMAKE_MATCH_1}")
    set(section "${CMAKE_MATCH_2}")
    math(EXPR count "${count} + 1")
    if(NOT EXISTS "${ROOT}/${document}")
      string(APPEND problems "${relative}: ${citation}: there is no ${document}\n")
      continue()
    endif()
    file(STRINGS "${ROOT}/${document}" headings REGEX "^#+ ")
    list(TRANSFORM headings REPLACE "^#+ +" "")
    list(TRANSFORM headings STRIP)
    if(NOT section IN_LIST headings)
      string(APPEND problems "${relative}: ${citation}: ${document} has no such section\n")
    endif()
  endforeach()
endforeach()

if(problems)
  message(NOTICE "${problems}")
  message(FATAL_ERROR "citations of the documents that point nowhere (above)")
endif()
message(STATUS "check_doc_citations: ${count} citations, each to a section that exists")
