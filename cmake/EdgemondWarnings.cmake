# Compiler flags shared by every edgemond target.
#
# edgemond_set_warnings(<target>) turns on the house warning set. Warnings are errors with
# EDGEMOND_WERROR, which the quick start, the cross build and CI turn on; it is off by default, so
# that a release built by a distribution or a user with a newer compiler than ours still builds.

option(EDGEMOND_WERROR "Treat compiler warnings as errors" OFF)
option(EDGEMOND_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

set(EDGEMOND_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(EDGEMOND_WERROR)
  list(APPEND EDGEMOND_WARNING_FLAGS -Werror)
endif()

function(edgemond_set_warnings target)
  target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:${EDGEMOND_WARNING_FLAGS}>
      $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra $<$<BOOL:${EDGEMOND_WERROR}>:-Werror>>)
endfunction()

# How much debug information the Debug and RelWithDebInfo builds carry: CMake's default for the
# build type (-g); line tables only (lines, -g1), which is enough for backtraces, sanitizer
# reports and perf's per-line profiles, and compiles in about three quarters of the time at -O2
# (the quick start asks for it: compiling is most of its time); or none (-g0: the cross build,
# whose emulated binaries nobody debugs).
set(EDGEMOND_DEBUG_INFO "default" CACHE STRING "Debug information: default, lines (-g1) or none")
set_property(CACHE EDGEMOND_DEBUG_INFO PROPERTY STRINGS default lines none)
if(EDGEMOND_DEBUG_INFO STREQUAL "lines")
  # After CMAKE_<LANG>_FLAGS_<CONFIG> on the command line, so it overrides their -g.
  add_compile_options($<$<CONFIG:Debug,RelWithDebInfo>:-g1>)
elseif(EDGEMOND_DEBUG_INFO STREQUAL "none")
  add_compile_options($<$<CONFIG:Debug,RelWithDebInfo>:-g0>)
elseif(NOT EDGEMOND_DEBUG_INFO STREQUAL "default")
  message(FATAL_ERROR
          "EDGEMOND_DEBUG_INFO is '${EDGEMOND_DEBUG_INFO}'; it must be default, lines or none")
endif()

if(EDGEMOND_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# GCC 12 at -O3 reports std::operator+(const char*, std::string&&), once inlined, as a memcpy of
# 2^63 bytes onto itself (-Wrestrict, GCC bug 105329). edgemond_gcc_bug_105329(<files...>) turns
# that one warning off, under GCC only, for the files of the calling directory where it appears.
function(edgemond_gcc_bug_105329)
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS
               $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
endfunction()
