# Precompiled headers (D-070): most of a window or test file's compile time is
# parsing Qt's headers. The window targets precompile cmake/pch/qt_window.hpp
# each; the test suites, one file each, reuse one precompiled qt_test.hpp per
# kind (core, GUI) built by a host target with the same flags.
# STEADYSCOPE_PCH=OFF builds without them (e.g. to check that every file
# includes what it uses).
option(STEADYSCOPE_PCH "Precompile the Qt headers of the window code and the tests" ON)
set(STEADYSCOPE_PCH_DIR ${CMAKE_CURRENT_LIST_DIR}/pch)

function(steadyscope_window_pch target)
  if(STEADYSCOPE_PCH)
    target_precompile_headers(${target} PRIVATE ${STEADYSCOPE_PCH_DIR}/qt_window.hpp)
  endif()
endfunction()

# steadyscope_test_pch_host(NAME LIBS...): the host of one kind's test header.
function(steadyscope_test_pch_host name)
  if(STEADYSCOPE_PCH)
    add_executable(${name} ${STEADYSCOPE_PCH_DIR}/host.cpp)
    target_link_libraries(${name} PRIVATE ${ARGN})
    target_precompile_headers(${name} PRIVATE ${STEADYSCOPE_PCH_DIR}/qt_test.hpp)
  endif()
endfunction()

function(steadyscope_reuse_pch target host)
  if(STEADYSCOPE_PCH AND TARGET ${host})
    target_precompile_headers(${target} REUSE_FROM ${host})
  endif()
endfunction()
