# The link feature behind aoti::shims, shared by this build and the installed
# package.
#
# AotiNoAsNeeded links a shared library with --no-as-needed, scoped to that
# one library. Many toolchains (Debian's and Ubuntu's GCC among them) pass
# --as-needed by default, which drops the DT_NEEDED entry of a library the
# executable never calls; a host that only loads models never calls most
# shims, and without the entry libaoti_shims.so is simply not loaded and the
# model fails with "undefined symbol: aoti_torch_...".
#
# CMake reads the feature from the directory that links the consumer, so it is
# defined where the targets are made visible: in the config file (the
# find_package caller's scope) and, in this build, in the top-level scope.
#
# ld64 has no --as-needed (every dylib on the line gets its LC_LOAD_DYLIB), so
# on Apple platforms the feature is the library alone.
macro(aoti_shims_define_link_features)
  if(APPLE)
    set(CMAKE_LINK_LIBRARY_USING_AotiNoAsNeeded "<LINK_ITEM>" ${ARGN})
  else()
    set(CMAKE_LINK_LIBRARY_USING_AotiNoAsNeeded
      "LINKER:--push-state,--no-as-needed" "<LINK_ITEM>" "LINKER:--pop-state"
      ${ARGN})
  endif()
  set(CMAKE_LINK_LIBRARY_USING_AotiNoAsNeeded_SUPPORTED TRUE ${ARGN})
endmacro()
