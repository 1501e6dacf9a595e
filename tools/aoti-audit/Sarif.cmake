# Embeds the rule pages (docs/rules/<ID>.md) into aoti-audit, so that the
# SARIF emitter can describe every rule without reading docs/ at run time.
#
# Two modes in one file:
#   include(Sarif.cmake) + aoti_audit_embed_rule_docs(TARGET)
#     adds a build step that regenerates RuleDocs.inc when a page changes;
#   cmake -DDOCS=DIR -DOUT=FILE -P Sarif.cmake
#     is that step: it writes one {"ID", R"(page)"} entry per page.
# The pages are embedded whole; Sarif.cpp takes the paragraphs it needs.

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB _pages "${DOCS}/AOTI*.md")
  list(SORT _pages)
  set(_out "// Generated from docs/rules/*.md by Sarif.cmake; do not edit.\n")
  foreach(_page IN LISTS _pages)
    get_filename_component(_id "${_page}" NAME_WE)
    file(READ "${_page}" _text)
    string(FIND "${_text}" ")aotipage\"" _clash)
    if(NOT _clash EQUAL -1)
      message(FATAL_ERROR "${_page} contains the raw-string delimiter )aotipage\"")
    endif()
    string(APPEND _out "{\"${_id}\", R\"aotipage(${_text})aotipage\"},\n")
  endforeach()
  file(WRITE "${OUT}" "${_out}")
  return()
endif()

function(aoti_audit_embed_rule_docs target)
  set(_docs "${PROJECT_SOURCE_DIR}/docs/rules")
  set(_inc "${CMAKE_CURRENT_BINARY_DIR}/aoti-audit-generated/RuleDocs.inc")
  # CONFIGURE_DEPENDS: a new page re-runs the glob, so it is embedded too.
  file(GLOB _pages CONFIGURE_DEPENDS "${_docs}/AOTI*.md")
  add_custom_command(
    OUTPUT "${_inc}"
    COMMAND ${CMAKE_COMMAND} -DDOCS=${_docs} -DOUT=${_inc}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    DEPENDS ${_pages} ${CMAKE_CURRENT_FUNCTION_LIST_FILE}
    COMMENT "Embedding docs/rules/*.md for SARIF"
    VERBATIM)
  target_sources(${target} PRIVATE "${_inc}")
  target_include_directories(${target} PRIVATE
                             "${CMAKE_CURRENT_BINARY_DIR}/aoti-audit-generated")
endfunction()
