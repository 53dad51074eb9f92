# The pipeline's two steps: optionally generate a trace (GEN, a ;-list), split
# TRACE into WORK/out with SPLIT_ARGS (exit 0 required), then gate WORK/out
# from WORK with GATE_ARGS; require exit status EXIT and that the gate's
# output matches REGEX.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(GEN)
  execute_process(COMMAND ${GEN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "generator failed (${rc}): ${err}")
  endif()
endif()
execute_process(COMMAND ${CLI} split ${TRACE} -o out ${SPLIT_ARGS} WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "split exit status ${rc}\n${out}${err}")
endif()
execute_process(COMMAND ${CLI} gate out ${GATE_ARGS} WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE gout ERROR_VARIABLE gerr)
if(NOT rc STREQUAL "${EXIT}")
  message(FATAL_ERROR "gate exit status ${rc}, expected ${EXIT}\nsplit:\n${out}${err}\ngate:\n${gout}${gerr}")
endif()
if(NOT "${gout}${gerr}" MATCHES "${REGEX}")
  message(FATAL_ERROR "gate output does not match '${REGEX}':\n${gout}${gerr}")
endif()
