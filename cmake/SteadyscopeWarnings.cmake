# Warning and sanitizer flags shared by every Steadyscope target.
add_library(steadyscope_flags INTERFACE)
target_compile_options(steadyscope_flags INTERFACE
  -Wall -Wextra -Wpedantic $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local> -Wnon-virtual-dtor -Wcast-align
  -Wno-missing-field-initializers)
if(STEADYSCOPE_WERROR)
  target_compile_options(steadyscope_flags INTERFACE -Werror)
endif()
if(STEADYSCOPE_SANITIZE OR STEADYSCOPE_FUZZ)
  # GCC's `undefined` leaves out float-cast-overflow, which clang's includes:
  # name it, so a double too big for an integer fails under either compiler.
  # The suites' own files (target property STEADYSCOPE_TEST_CODE) compile without
  # the checks, in half the time, and link the runtime: the core, the CLI and the
  # generator they drive are checked (D-073).
  set(_san_compile -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                   -fno-sanitize-recover=undefined,float-cast-overflow)
  if(STEADYSCOPE_FUZZ)
    # libFuzzer's coverage on every checked target; the fuzz targets link its main.
    # One tree then serves the ASan suites and the fuzz targets (D-074).
    list(APPEND _san_compile -fsanitize=fuzzer-no-link)
  endif()
  set(_is_test "$<BOOL:$<TARGET_PROPERTY:STEADYSCOPE_TEST_CODE>>")
  target_compile_options(steadyscope_flags INTERFACE "$<$<NOT:${_is_test}>:${_san_compile}>")
  target_compile_definitions(steadyscope_flags INTERFACE "$<${_is_test}:STEADYSCOPE_SANITIZER_RUNTIME=1>")
  target_link_options(steadyscope_flags INTERFACE -fsanitize=address,undefined,float-cast-overflow)
endif()
