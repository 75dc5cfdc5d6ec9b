# cmake -DEXE=mha-train -DARGS="--jsdoc-settings" -DFILE=web/js/run_settings_type.js -P generated_matches.cmake: passes
# only if the committed FILE is exactly what EXE ARGS prints (a file generated from a table of the core)
execute_process(COMMAND "${EXE}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${ARGS} failed (exit ${rc}): ${err}")
endif()
file(READ "${FILE}" committed)
if(NOT out STREQUAL committed)
  message(FATAL_ERROR "${FILE} is not what `mha-train ${ARGS}` prints: the table changed. Regenerate it:\n"
    "  build/native/core/mha-train ${ARGS} > ${FILE}")
endif()
