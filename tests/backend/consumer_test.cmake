# Installs the aoti_shims and aoti_backend components of BUILD_DIR into
# WORK_DIR/prefix, builds the consumer in consumer/ against them, runs it on
# the CPU fake model, and audits it as a host:
#   consumer       (aoti::backend)            must run and pass the audit (0)
#   consumer_core  (plain archive, no export) must fail the audit (1)
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -DFIXTURES=...
#         -DAUDIT=... -DMODEL=... -DGENERATOR=... -P consumer_test.cmake
function(run expect)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL expect)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "exit ${result}, expected ${expect}: ${command}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
foreach(component aoti_shims aoti_backend)
  run(0 ${CMAKE_COMMAND} --install ${BUILD_DIR} --component ${component}
      --prefix ${WORK_DIR}/prefix)
endforeach()
run(0 ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(0 ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(0 ${WORK_DIR}/build/consumer ${FIXTURES})
run(0 ${AUDIT} check --host ${WORK_DIR}/build/consumer ${MODEL})
run(1 ${AUDIT} check --host ${WORK_DIR}/build/consumer_core ${MODEL})
