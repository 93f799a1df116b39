# edgemond_add_test(NAME <name> SOURCES <files...> LIBS <libs...> [LABEL unit|golden|e2e] [ARCH]
#                   [ONE_PROCESS])
#
# Builds one GoogleTest binary and registers every TEST in it with CTest under the given label
# (default: unit); with ONE_PROCESS, the binary is one CTest test that runs all of them (for a
# binary of a thousand data-driven cases, where a process per case costs more than the cases: a
# sanitizer build takes 0.12 s of CPU to start one). Tests find the repository's fixtures and the build tree's programs through the
# testing library (tests/testing/temp_dir.h, child_process.h), not the working directory.
#
# ARCH marks a test whose result depends on the CPU architecture (kernels against references,
# real networks, byte-order-sensitive codecs, the daemon end to end): it also gets the label
# `arch`, and the target edgemond_arch_checks builds it. A cross build runs only those under an
# emulator (scripts/cross-arm64: `cmake --build --target edgemond_arch_checks`, `ctest -L arch`);
# everything else is architecture-neutral and runs natively.

include(GoogleTest)

# Programs of Debian's prometheus package that some tests run (promtool lints /metrics; a real
# Prometheus scrapes edgemond): the installed ones, else those scripts/quickstart unpacked into
# .cache/prometheus (it unpacks rather than installs, since installing starts prometheus.service).
# A test whose program is missing skips, unless EDGEMOND_REQUIRE_TEST_TOOLS (the quick start and
# CI) makes that a configuration error instead.
option(EDGEMOND_REQUIRE_TEST_TOOLS "Fail when a program or module a test needs is missing" OFF)
set(edgemond_unpacked_prometheus "${PROJECT_SOURCE_DIR}/.cache/prometheus/usr/bin")
find_program(EDGEMOND_PROMTOOL promtool PATHS "${edgemond_unpacked_prometheus}")
find_program(EDGEMOND_PROMETHEUS prometheus PATHS "${edgemond_unpacked_prometheus}")
foreach(tool EDGEMOND_PROMTOOL EDGEMOND_PROMETHEUS)
  if(${tool})
    set(${tool}_PATH "${${tool}}")
  else()
    set(${tool}_PATH "")
    if(EDGEMOND_REQUIRE_TEST_TOOLS)
      message(FATAL_ERROR "${tool}: not found (Debian package prometheus; scripts/quickstart "
                          "test unpacks it into .cache/prometheus)")
    endif()
    message(STATUS "${tool}: not found; the tests that run it will skip")
  endif()
endforeach()

# A test's own code is compiled without optimization whatever the build type: it is a third
# faster to compile (GoogleTest's macros are most of it), and the code it tests, in the parts'
# libraries, keeps the build type's flags. _FORTIFY_SOURCE, which distributions add and which
# needs optimization, is dropped for it.
function(edgemond_unoptimized_test_code target)
  target_compile_options(${target} PRIVATE -O0 -U_FORTIFY_SOURCE)
endfunction()

function(edgemond_add_test)
  cmake_parse_arguments(ARG "ARCH;ONE_PROCESS" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  set_target_properties(${ARG_NAME} PROPERTIES UNITY_BUILD OFF)
  edgemond_set_warnings(${ARG_NAME})
  edgemond_unoptimized_test_code(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  if(ARG_ONE_PROCESS)
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT})
    if(ARG_ARCH)
      edgemond_arch_test(${ARG_NAME} ${ARG_NAME})
    endif()
    return()
  endif()
  gtest_discover_tests(${ARG_NAME}
      PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT}
      DISCOVERY_TIMEOUT 60)
  if(ARG_ARCH)
    edgemond_arch_gtest(${ARG_NAME} ${ARG_LABEL})
  endif()
endfunction()

# Marks every test discovered in the GoogleTest binary `target` (gtest_discover_tests) as
# architecture-dependent: labels `label` and `arch`, and edgemond_arch_checks builds `target`.
# (gtest_discover_tests cannot pass a list of labels through its generated script in CMake 3.25,
# so a second script, run after it, sets them.)
function(edgemond_arch_gtest target label)
  add_dependencies(edgemond_arch_checks ${target})
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_arch_labels.cmake")
  file(WRITE "${script}"
       "foreach(test IN LISTS ${target}_TESTS)\n"
       "  set_tests_properties(\"\${test}\" PROPERTIES LABELS \"${label};arch\")\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

# Registers a plain (non-GoogleTest) test as architecture-dependent too: label `arch` beside its
# own, and `target`, which it runs, built by edgemond_arch_checks.
function(edgemond_arch_test test target)
  get_test_property(${test} LABELS labels)
  if(NOT labels)
    set(labels "")
  endif()
  list(APPEND labels arch)
  set_tests_properties(${test} PROPERTIES LABELS "${labels}")
  if(target)
    add_dependencies(edgemond_arch_checks ${target})
  endif()
endfunction()

# What a cross build builds to run the `arch` tests (and to package: the daemon and the CLI).
add_custom_target(edgemond_arch_checks)
