# Finds LLVM and defines aoti::llvm, an interface target that links the
# libObject stack statically. Debian's llvm-19-dev is preferred: it reads the
# newest Mach-O load commands (chained fixups, exports trie).
if(NOT LLVM_DIR AND EXISTS /usr/lib/llvm-19/lib/cmake/llvm)
  set(LLVM_DIR /usr/lib/llvm-19/lib/cmake/llvm)
endif()
find_package(LLVM CONFIG REQUIRED)
if(LLVM_PACKAGE_VERSION VERSION_LESS 19)
  message(FATAL_ERROR "aoti-audit needs LLVM >= 19 (found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}). "
                      "On Debian 12: apt-get install llvm-19-dev")
endif()
message(STATUS "aoti: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

llvm_map_components_to_libnames(AOTI_LLVM_LIBS Object Demangle Support BinaryFormat TextAPI)
add_library(aoti_llvm INTERFACE)
add_library(aoti::llvm ALIAS aoti_llvm)
target_include_directories(aoti_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(AOTI_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(aoti_llvm INTERFACE ${AOTI_LLVM_DEFS})
target_link_libraries(aoti_llvm INTERFACE ${AOTI_LLVM_LIBS})
if(NOT LLVM_ENABLE_RTTI)
  # LLVM is built without RTTI; our code does not need it either, but CLI11
  # and GoogleTest do, so only the audit library's own sources drop it.
endif()
