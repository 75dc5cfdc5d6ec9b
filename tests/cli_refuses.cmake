# cmake -DEXE=mha-train -DARGS="a;b;c" -DSENTENCE="..." -P cli_refuses.cmake: runs EXE with ARGS and passes only if
# it exits with 2 and its standard error contains SENTENCE (mha-train's way of refusing a flag)
execute_process(COMMAND "${EXE}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
string(FIND "${err}" "${SENTENCE}" at)
if(NOT rc EQUAL 2 OR at EQUAL -1)
  message(FATAL_ERROR "expected exit 2 and \"${SENTENCE}\"; got exit ${rc}\nstderr: ${err}\nstdout: ${out}")
endif()
