# Loads a generated trace under a ladder of address-space limits (ulimit -v): every run either
# succeeds or exits 1 with a message naming the file (never a signal: no abort on a failed
# allocation), and at least one parse says "not enough memory for this trace". Then the same
# ladder reading the model back from a fresh trace cache: again never a signal.
# -DCLI=… -DGEN=… -DWORK=dir
file(MAKE_DIRECTORY ${WORK})
set(trace ${WORK}/limit.json)
execute_process(COMMAND ${GEN} -o ${trace} --style training --target-bytes 40M --quiet RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "steadyscope-gen failed: ${rc}")
endif()
set(said_memory FALSE)
set(ENV{XDG_CACHE_HOME} ${WORK}/cache)
file(REMOVE_RECURSE ${WORK}/cache)
foreach(way --no-cache --threads=2)  # parsing every time; then the first run stores, the others read back
  foreach(kib 400000 250000 200000 170000 150000 130000 110000 90000 70000)
    execute_process(COMMAND sh -c "ulimit -v ${kib} && exec \"$0\" info --threads 2 \"$1\" $2" ${CLI} ${trace} ${way}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc MATCHES "^[01]$")
      message(FATAL_ERROR "ulimit -v ${kib} ${way}: exit status '${rc}' (a crash)\n${out}${err}")
    endif()
    if(rc EQUAL 1 AND NOT err MATCHES "limit.json: ")
      message(FATAL_ERROR "ulimit -v ${kib} ${way}: the message does not name the file:\n${err}")
    endif()
    if(way STREQUAL "--no-cache" AND err MATCHES "not enough memory for this trace \\(needs about [0-9.]+ [MG]B")
      set(said_memory TRUE)
    endif()
  endforeach()
endforeach()
if(NOT said_memory)
  message(FATAL_ERROR "no limit gave \"not enough memory for this trace (needs about …)\"")
endif()
file(REMOVE ${trace})
