# Link with lld where the toolchain has it: the suite links about a hundred
# executables, each about five times faster with lld than with BFD ld (most of
# a clean build's tail on two cores). Falls back to the default linker.
include(CheckLinkerFlag)
option(STEADYSCOPE_LLD "Link with lld when the compiler accepts -fuse-ld=lld" ON)
if(STEADYSCOPE_LLD)
  check_linker_flag(CXX "-fuse-ld=lld" STEADYSCOPE_HAVE_LLD)
  if(STEADYSCOPE_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
