# Compiles two definitions of aoti_torch_cpu_cumsum against the generated
# torch_fallbacks.h: torch's own parameters must compile, and the same with
# `int32_t* dtype` made `const int32_t* dtype` must not ("conflicting
# declaration of C function"). So a shim whose signature drifts from torch's
# fails the build instead of binding a model to the wrong ABI.
#   cmake -DCXX=c++ -DINCLUDES=dir^dir -DWORK_DIR=dir -P signature_test.cmake
string(REPLACE "^" ";" _dirs "${INCLUDES}")
set(_flags -std=c++20 -fsyntax-only)
foreach(_d IN LISTS _dirs)
  list(APPEND _flags -I${_d})
endforeach()
file(MAKE_DIRECTORY ${WORK_DIR})
foreach(_case "right;int32_t* dtype;0" "wrong;const int32_t* dtype;1")
  list(GET _case 0 _name)
  list(GET _case 1 _param)
  list(GET _case 2 _must_fail)
  file(WRITE ${WORK_DIR}/${_name}.cpp "#include \"torch_fallbacks.h\"
extern \"C\" AOTITorchError aoti_torch_cpu_cumsum(AtenTensorHandle self,
    int64_t dim, ${_param}, AtenTensorHandle* ret0) { return 0; }
")
  execute_process(COMMAND ${CXX} ${_flags} ${WORK_DIR}/${_name}.cpp
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(_must_fail AND _rc EQUAL 0)
    message(FATAL_ERROR "a definition with '${_param}' compiled against torch's declaration")
  elseif(_must_fail AND NOT _err MATCHES "conflicting declaration")
    message(FATAL_ERROR "the wrong definition failed, but not on its signature:\n${_err}")
  elseif(NOT _must_fail AND NOT _rc EQUAL 0)
    message(FATAL_ERROR "torch's own signature did not compile:\n${_err}")
  endif()
endforeach()
message(STATUS "torch's signature compiles; one parameter changed does not")
