# Warning and sanitizer flags shared by every Steadyscope target.
add_library(steadyscope_flags INTERFACE)
target_compile_options(steadyscope_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Wcast-align
  -Wno-missing-field-initializers)
if(STEADYSCOPE_WERROR)
  target_compile_options(steadyscope_flags INTERFACE -Werror)
endif()
if(STEADYSCOPE_SANITIZE)
  target_compile_options(steadyscope_flags INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(steadyscope_flags INTERFACE -fsanitize=address,undefined)
endif()
