# AotiAudit.cmake: run aoti-audit on your own targets as CTest tests.
#
#   include(AotiAudit)            # in-tree, or with CMAKE_MODULE_PATH set
#   find_package(AotiAudit)       # installed: <prefix>/lib/cmake/AotiAudit
#
#   aoti_audit_add_test(NAME <name> HOST <target-or-path>
#                       PLUGINS <target-or-path>...
#                       [ARCHIVES <target-or-path>...] [SARIF <file>]
#                       [ARGS <aoti-audit check arguments>...])
#     A test that runs `aoti-audit check --host HOST PLUGIN...` on the built
#     files and fails when a plugin would not load (exit status 1) or an input
#     is unreadable (2). ARCHIVES become --archive (the static archives the host
#     links, so that a left-out member is explained). SARIF also writes a
#     SARIF 2.1.0 log of the findings to <file>, for code scanning.
#
#   aoti_audit_add_dups_test(NAME <name> TARGET <target> [SARIF <file>]
#                            [ARGS <aoti-audit dups arguments>...])
#     A test that runs `aoti-audit dups` over what TARGET links: every target
#     among its LINK_LIBRARIES (followed through static and interface
#     libraries, and through $<LINK_LIBRARY:feature,...>), as the archive,
#     shared library or objects it builds. It fails on a duplicate definition
#     at error severity.
#
# The tool is the aoti-audit target when the project builds it, else
# AOTI_AUDIT_EXECUTABLE (found next to this file's installed location, or on
# PATH). The test runs this file in script mode, so that the text report lands
# in the test log and the SARIF log in its file from one test.
#
# Why HOST and PLUGINS take targets: $<TARGET_FILE:...> names the file the
# build really made, in every configuration, and makes the test depend on
# nothing that a stale path could fake.

# --- Script mode: the test's command ---------------------------------------------
# cmake [-DAOTI_AUDIT_SARIF=FILE] -P AotiAudit.cmake -- AOTI-AUDIT COMMAND ARGS...
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  set(_cmd "")
  set(_seen_dashes FALSE)
  math(EXPR _last "${CMAKE_ARGC} - 1")
  foreach(_i RANGE 1 ${_last})
    if(_seen_dashes)
      list(APPEND _cmd "${CMAKE_ARGV${_i}}")
    elseif(CMAKE_ARGV${_i} STREQUAL "--")
      set(_seen_dashes TRUE)
    endif()
  endforeach()
  if(NOT _cmd)
    message(FATAL_ERROR "AotiAudit.cmake: usage: cmake -P AotiAudit.cmake -- aoti-audit COMMAND ARGS...")
  endif()
  list(JOIN _cmd " " _shown)
  message(STATUS "${_shown}")
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc)
  if(AOTI_AUDIT_SARIF)
    # Right after the command's name: the arguments end with `--` and inputs.
    set(_sarif_cmd ${_cmd})
    list(INSERT _sarif_cmd 2 --format sarif)
    execute_process(COMMAND ${_sarif_cmd} OUTPUT_FILE "${AOTI_AUDIT_SARIF}"
                    RESULT_VARIABLE _sarif_rc)
    if(NOT _sarif_rc MATCHES "^[01]$")
      message(FATAL_ERROR "aoti-audit --format sarif exited ${_sarif_rc}")
    endif()
    message(STATUS "SARIF: ${AOTI_AUDIT_SARIF}")
  endif()
  if(NOT _rc STREQUAL "0")
    message(FATAL_ERROR "aoti-audit exited ${_rc}: 1 means a finding at error "
                        "severity (above), 2 bad usage or an unreadable input")
  endif()
  return()
endif()

include_guard(GLOBAL)
set(_AOTI_AUDIT_MODULE "${CMAKE_CURRENT_LIST_FILE}")

# How the test names aoti-audit: the target in-tree, else the installed tool.
function(_aoti_audit_executable out)
  if(TARGET aoti-audit)
    set(${out} "$<TARGET_FILE:aoti-audit>" PARENT_SCOPE)
    return()
  endif()
  get_filename_component(_here "${_AOTI_AUDIT_MODULE}" DIRECTORY)
  find_program(AOTI_AUDIT_EXECUTABLE aoti-audit
               HINTS "${_here}/../../../bin" "${_here}/../../../../bin"
               DOC "The aoti-audit executable")
  if(NOT AOTI_AUDIT_EXECUTABLE)
    message(FATAL_ERROR "AotiAudit: aoti-audit not found; set AOTI_AUDIT_EXECUTABLE")
  endif()
  set(${out} "${AOTI_AUDIT_EXECUTABLE}" PARENT_SCOPE)
endfunction()

# A target's built file, or a path (relative: to the current source dir).
function(_aoti_audit_file out item)
  if(TARGET "${item}")
    set(${out} "$<TARGET_FILE:${item}>" PARENT_SCOPE)
  else()
    get_filename_component(_abs "${item}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(${out} "${_abs}" PARENT_SCOPE)
  endif()
endfunction()

function(_aoti_audit_add name sarif)
  # ARGN: the aoti-audit command line.
  set(_script_args)
  if(sarif)
    get_filename_component(_sarif "${sarif}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    set(_script_args "-DAOTI_AUDIT_SARIF=${_sarif}")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} ${_script_args} -P "${_AOTI_AUDIT_MODULE}" -- ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS aoti-audit)
endfunction()

function(aoti_audit_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;HOST;SARIF" "PLUGINS;ARCHIVES;ARGS")
  if(NOT A_NAME OR NOT A_HOST OR NOT A_PLUGINS)
    message(FATAL_ERROR "aoti_audit_add_test: NAME, HOST and PLUGINS are required")
  endif()
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "aoti_audit_add_test: unknown arguments: ${A_UNPARSED_ARGUMENTS}")
  endif()
  _aoti_audit_executable(_tool)
  _aoti_audit_file(_host "${A_HOST}")
  set(_cmd "${_tool}" check --host "${_host}")
  foreach(_a IN LISTS A_ARCHIVES)
    _aoti_audit_file(_f "${_a}")
    list(APPEND _cmd --archive "${_f}")
  endforeach()
  # `--`: what follows is a plugin, even after an option that takes a list.
  list(APPEND _cmd ${A_ARGS} --)
  foreach(_p IN LISTS A_PLUGINS)
    _aoti_audit_file(_f "${_p}")
    list(APPEND _cmd "${_f}")
  endforeach()
  _aoti_audit_add(${A_NAME} "${A_SARIF}" ${_cmd})
endfunction()

# Appends to ${out} the link inputs that ${item} stands for, following static
# and interface libraries (their own link libraries end up on the same link
# line). ${visited} is the name of the list of targets already seen.
function(_aoti_audit_link_inputs out visited item)
  set(_inputs ${${out}})
  set(_seen ${${visited}})
  # $<LINK_ONLY:x> and $<LINK_LIBRARY:FEATURE,x,y> wrap targets: unwrap them.
  if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
    set(item "${CMAKE_MATCH_1}")
  endif()
  set(_items "${item}")
  if(item MATCHES "^\\$<LINK_LIBRARY:[^,>]+,(.*)>$")
    string(REPLACE "," ";" _items "${CMAKE_MATCH_1}")
  endif()
  foreach(_lib IN LISTS _items)
    if(NOT TARGET "${_lib}")
      continue() # -ldl, a path, a flag: not a target this project builds
    endif()
    get_target_property(_aliased "${_lib}" ALIASED_TARGET)
    if(_aliased)
      set(_lib "${_aliased}")
    endif()
    if(_lib IN_LIST _seen)
      continue()
    endif()
    list(APPEND _seen "${_lib}")
    get_target_property(_type "${_lib}" TYPE)
    set(_follow)
    if(_type STREQUAL "STATIC_LIBRARY")
      list(APPEND _inputs "$<TARGET_FILE:${_lib}>")
      get_target_property(_follow "${_lib}" LINK_LIBRARIES)
    elseif(_type STREQUAL "SHARED_LIBRARY" OR _type STREQUAL "UNKNOWN_LIBRARY")
      list(APPEND _inputs "$<TARGET_FILE:${_lib}>")
    elseif(_type STREQUAL "OBJECT_LIBRARY")
      list(APPEND _inputs "$<TARGET_OBJECTS:${_lib}>")
      get_target_property(_follow "${_lib}" LINK_LIBRARIES)
    endif()
    get_target_property(_iface "${_lib}" INTERFACE_LINK_LIBRARIES)
    foreach(_next IN LISTS _follow _iface)
      if(_next AND NOT _next MATCHES "-NOTFOUND$")
        _aoti_audit_link_inputs(_inputs _seen "${_next}")
      endif()
    endforeach()
  endforeach()
  set(${out} ${_inputs} PARENT_SCOPE)
  set(${visited} ${_seen} PARENT_SCOPE)
endfunction()

function(aoti_audit_add_dups_test)
  cmake_parse_arguments(PARSE_ARGV 0 A "" "NAME;TARGET;SARIF" "ARGS")
  if(NOT A_NAME OR NOT A_TARGET)
    message(FATAL_ERROR "aoti_audit_add_dups_test: NAME and TARGET are required")
  endif()
  if(NOT TARGET "${A_TARGET}")
    message(FATAL_ERROR "aoti_audit_add_dups_test: ${A_TARGET} is not a target")
  endif()
  _aoti_audit_executable(_tool)
  get_target_property(_libs "${A_TARGET}" LINK_LIBRARIES)
  set(_inputs)
  set(_seen "${A_TARGET}")
  foreach(_l IN LISTS _libs)
    if(_l AND NOT _l MATCHES "-NOTFOUND$")
      _aoti_audit_link_inputs(_inputs _seen "${_l}")
    endif()
  endforeach()
  if(NOT _inputs)
    message(FATAL_ERROR "aoti_audit_add_dups_test: ${A_TARGET} links no library target "
                        "of this project to look at")
  endif()
  _aoti_audit_add(${A_NAME} "${A_SARIF}" "${_tool}" dups ${A_ARGS} -- ${_inputs})
endfunction()
