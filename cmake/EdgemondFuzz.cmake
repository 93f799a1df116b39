# edgemond_add_fuzzer(NAME <name> SOURCES <files...> LIBS <libs...> SEEDS <dir>)
#
# One fuzz target per parser that takes outside input: a source file defining
# LLVMFuzzerTestOneInput, and a directory of seed inputs checked in beside it (a crasher, once
# fixed, is added there and stays a regression test).
#
# - With EDGEMOND_FUZZ (clang only), <name>_fuzzer is a libFuzzer program, and every library is
#   built with coverage instrumentation so that the fuzzer sees inside it. bench/fuzz.sh builds
#   this way and fuzzes each target for a set time.
# - Otherwise, in a build with tests, <name>_fuzzer links tests/fuzz/replay_main.cc instead of
#   libFuzzer and the CTest test fuzz_<name>_seeds runs it once over every seed: every compiler
#   and build type builds the targets, and the sanitizer build checks each seed under ASan+UBSan.

option(EDGEMOND_FUZZ "Build the libFuzzer targets, instrumenting every library (needs clang)" OFF)
if(EDGEMOND_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "EDGEMOND_FUZZ needs clang (libFuzzer): CXX=clang++ CC=clang cmake ...")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

function(edgemond_add_fuzzer)
  cmake_parse_arguments(ARG "" "NAME;SEEDS" "SOURCES;LIBS" ${ARGN})
  set(target ${ARG_NAME}_fuzzer)
  if(EDGEMOND_FUZZ)
    add_executable(${target} ${ARG_SOURCES})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  elseif(EDGEMOND_BUILD_TESTS)
    add_executable(${target} ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/tests/fuzz/replay_main.cc)
    add_test(NAME fuzz_${ARG_NAME}_seeds COMMAND ${target} ${ARG_SEEDS})
    set_tests_properties(fuzz_${ARG_NAME}_seeds PROPERTIES LABELS "unit;fuzz" TIMEOUT 120)
  else()
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  edgemond_set_warnings(${target})
  # bench/fuzz.sh finds each target's program and seeds here.
  set_property(GLOBAL APPEND PROPERTY EDGEMOND_FUZZERS "${target}=${ARG_SEEDS}")
endfunction()
