# SPDX-License-Identifier: GPL-3.0-or-later
# The layer check: every quoted #include of the project's C++ sources must stay inside its own
# layer or reach down to one that layer links (docs/architecture.md, "Libraries").
#
#   cmake -DROOT=<source tree> -P tools/check_layers.cmake
#
# The rules, each one message naming file and line when broken:
#   - no include climbs with "../": a header is found through its library's include path;
#   - core/<lib> includes only "fpx/<lib>/…", "fpx/<dep>/…" for a <dep> named in the DEPENDS of
#     fpx_core_library(<lib> …) in core/<lib>/CMakeLists.txt, and headers beside the including
#     file; never Qt, never an application header;
#   - app/plots includes the core and itself; app/cli and app/gui include the core, app/plots and
#     themselves, never each other; backends/<name> include the core and their own folder;
#   - in app/gui, shell/ includes anything of the GUI, pages/<page>/ only common/ and itself,
#     common/ only itself; nothing else lives in app/gui.
# The dependencies are read from the build files, so the check and the link graph say one thing.
cmake_minimum_required(VERSION 3.22)
if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layers: pass -DROOT=<source tree>")
endif()

set(violations "")
macro(violation file line text)
  file(RELATIVE_PATH relative "${ROOT}" "${file}")
  string(APPEND violations "${relative}:${line}: ${text}\n")
endmacro()

# The core libraries and what each may include: itself and its DEPENDS.
file(GLOB library_dirs LIST_DIRECTORIES true "${ROOT}/core/*")
set(core_libraries "")
foreach(dir IN LISTS library_dirs)
  if(NOT IS_DIRECTORY "${dir}" OR NOT EXISTS "${dir}/CMakeLists.txt")
    continue()
  endif()
  get_filename_component(lib "${dir}" NAME)
  file(READ "${dir}/CMakeLists.txt" build_text)
  if(NOT build_text MATCHES "fpx_core_library\\(${lib}([^)]*)\\)")
    violation("${dir}/CMakeLists.txt" 1 "no fpx_core_library(${lib} …) call")
    continue()
  endif()
  set(arguments "${CMAKE_MATCH_1}")
  set(deps "")
  if(arguments MATCHES "DEPENDS([a-z_ \t\r\n]*)SOURCES")
    string(REGEX REPLACE "[ \t\r\n]+" ";" deps "${CMAKE_MATCH_1}")
    list(REMOVE_ITEM deps "")
  endif()
  list(APPEND core_libraries ${lib})
  set(allowed_${lib} ${lib} ${deps})
endforeach()

# check_file(FILE LAYER ALLOWED_FPX ALLOWED_ROOTS): every quoted include of FILE is "fpx/<x>/…"
# with <x> in ALLOWED_FPX, or resolves beside FILE or under one of ALLOWED_ROOTS.
function(check_file file layer allowed_fpx allowed_roots)
  file(STRINGS "${file}" lines)
  get_filename_component(here "${file}" DIRECTORY)
  set(number 0)
  set(found "")
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
      continue()
    endif()
    set(kind "${CMAKE_MATCH_1}")
    set(header "${CMAKE_MATCH_2}")
    if(kind STREQUAL "<")
      if(layer MATCHES "^core/" AND header MATCHES "^Q")
        string(APPEND found "${number}: <${header}>: the core is Qt-free\n")
      endif()
      continue()
    endif()
    if(header MATCHES "(^|/)\\.\\./")
      string(APPEND found "${number}: \"${header}\" climbs out of its folder with ../\n")
      continue()
    endif()
    if(header MATCHES "^fpx/([a-z_]+)/")
      if(NOT CMAKE_MATCH_1 IN_LIST allowed_fpx)
        list(JOIN allowed_fpx "," allowed_text)
        string(APPEND found
               "${number}: \"${header}\": ${layer} may include fpx/{${allowed_text}}/ only\n")
      endif()
      continue()
    endif()
    if(EXISTS "${here}/${header}")
      continue()
    endif()
    # A root is a folder headers are found under ("app/plots"), or "BASE|FOLDER": found under
    # BASE ("app/gui", as "pages/x/y.h"), and allowed only inside FOLDER.
    set(resolved FALSE)
    foreach(root IN LISTS allowed_roots)
      string(REPLACE "|" ";" root_parts "${root}")
      list(GET root_parts 0 base)
      list(GET root_parts -1 inside)
      if(EXISTS "${ROOT}/${base}/${header}")
        file(RELATIVE_PATH from_inside "${ROOT}/${inside}" "${ROOT}/${base}/${header}")
        if(NOT from_inside MATCHES "^\\.\\./")
          set(resolved TRUE)
          break()
        endif()
      endif()
    endforeach()
    # Generated or build-tree headers (moc output, embedded sources) are found nowhere here.
    if(NOT resolved AND NOT header MATCHES "^(moc_|ui_)|\\.inc$|kernel_source\\.h$")
      list(TRANSFORM allowed_roots REPLACE ".*\\|" "" OUTPUT_VARIABLE roots_text)
      list(JOIN roots_text ", " roots_text)
      string(APPEND found "${number}: \"${header}\" is not in ${layer}'s own folders "
                          "(beside it, ${roots_text})\n")
    endif()
  endforeach()
  if(found)
    file(RELATIVE_PATH relative "${ROOT}" "${file}")
    string(REGEX REPLACE "(^|\n)([0-9])" "\\1${relative}:\\2" found "${found}")
    set(violations "${violations}${found}" PARENT_SCOPE)
  endif()
endfunction()

function(check_tree dir layer allowed_fpx allowed_roots)
  file(GLOB_RECURSE files "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.cu"
       "${ROOT}/${dir}/*.cuh")
  foreach(file IN LISTS files)
    check_file("${file}" "${layer}" "${allowed_fpx}" "${allowed_roots}")
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

foreach(lib IN LISTS core_libraries)
  check_tree(core/${lib} core/${lib} "${allowed_${lib}}" "")
endforeach()
check_tree(app/plots app/plots "${core_libraries}" "app/plots")
check_tree(app/cli app/cli "${core_libraries}" "app/cli;app/plots")
# The explorer: the shell knows every page; a page knows common/ and itself; common/ knows
# only itself.
check_tree(app/gui/shell app/gui/shell "${core_libraries}" "app/gui;app/plots")
check_tree(app/gui/common app/gui/common "${core_libraries}" "app/gui|app/gui/common;app/plots")
file(GLOB page_dirs LIST_DIRECTORIES true "${ROOT}/app/gui/pages/*")
foreach(dir IN LISTS page_dirs)
  if(IS_DIRECTORY "${dir}")
    get_filename_component(page "${dir}" NAME)
    check_tree(app/gui/pages/${page} app/gui/pages/${page} "${core_libraries}"
               "app/gui|app/gui/common;app/gui|app/gui/pages/${page};app/plots")
  endif()
endforeach()
file(GLOB gui_entries LIST_DIRECTORIES true "${ROOT}/app/gui/*")
foreach(entry IN LISTS gui_entries)
  get_filename_component(name "${entry}" NAME)
  if(NOT name MATCHES "^(shell|common|pages|CMakeLists\\.txt)$")
    string(APPEND violations "app/gui/${name}: outside shell/, common/ and pages/<page>/\n")
  endif()
endforeach()
check_tree(app/backend_probe app/backend_probe "${core_libraries}" "")
file(GLOB backend_dirs LIST_DIRECTORIES true "${ROOT}/backends/*")
foreach(dir IN LISTS backend_dirs)
  if(IS_DIRECTORY "${dir}")
    get_filename_component(name "${dir}" NAME)
    check_tree(backends/${name} backends/${name} "${core_libraries}" "backends/${name}")
  endif()
endforeach()

if(violations)
  # NOTICE prints the lines as they are (FATAL_ERROR would wrap them), one per include.
  message(NOTICE "${violations}")
  string(REGEX MATCHALL "\n" newlines "${violations}")
  list(LENGTH newlines count)
  message(FATAL_ERROR "${count} includes break the layers (docs/architecture.md, \"Libraries\")")
endif()
list(LENGTH core_libraries count)
message(STATUS "check_layers: ${count} core libraries, every include within its layer")
