# cmake -DEXE=mha-train -DKIB=N -DARGS="a;b;c" -P cli_out_of_memory.cmake: runs EXE with ARGS under `ulimit -v N`
# (KiB of address space) and passes only if it exits with 2 (not 134, an abort) and its standard error is a sentence
# about memory in the user's terms: no C++ library names ("std::bad_alloc") and no "what()"
execute_process(COMMAND sh -c "ulimit -v ${KIB} && exec \"$0\" \"$@\"" "${EXE}" ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
string(FIND "${err}" "std::" std_at)
string(FIND "${err}" "what()" what_at)
string(FIND "${err}" "memory" memory_at)
if(NOT rc EQUAL 2 OR NOT std_at EQUAL -1 OR NOT what_at EQUAL -1 OR memory_at EQUAL -1)
  message(FATAL_ERROR "expected exit 2 and a sentence about memory; got exit ${rc}\nstderr: ${err}\nstdout: ${out}")
endif()
message(STATUS "exit ${rc}: ${err}")
