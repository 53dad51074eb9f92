# Run at every build (cmake -DSOURCE_DIR=... -DOUT=... -P git_revision.cmake): writes OUT with the
# source tree's git revision, touching it only when the revision changes, so a new commit recompiles
# one file. A tree without git (a source tarball) says "unknown".
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE rev RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
file(WRITE "${OUT}.tmp" "#pragma once\n#define STEADYSCOPE_GIT_REVISION \"${rev}\"\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
file(REMOVE "${OUT}.tmp")
