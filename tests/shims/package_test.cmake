# Installs the aoti_shims component of BUILD_DIR into WORK_DIR/prefix, builds
# the consumer in package/ against it, and runs the consumer's probes.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -DPROBE_SOURCE=...
#         -DPROBE_INCLUDE=... -DGENERATOR=... -P package_test.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "failed (${result}): ${command}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --component aoti_shims
    --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
    -DAOTI_PROBE_SOURCE=${PROBE_SOURCE} -DAOTI_PROBE_INCLUDE=${PROBE_INCLUDE})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer_shared --expect=all)
run(${WORK_DIR}/build/consumer_static --expect=all)
