# Runs COMMAND (a CMake list) and fails unless it exits with EXPECTED_EXIT and, when given, its
# output matches EXPECTED_OUTPUT (a regular expression). For tests of failure paths, which a
# plain CTest command cannot tell from a crash.
#
#   cmake -DEXPECTED_EXIT=1 "-DEXPECTED_OUTPUT=MISMATCH" "-DCOMMAND=prog;arg;..." -P expect_exit.cmake

execute_process(COMMAND ${COMMAND} RESULT_VARIABLE result OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
message("${output}")
if(NOT "${result}" STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "exit status ${result}, expected ${EXPECTED_EXIT}")
endif()
if(DEFINED EXPECTED_OUTPUT AND NOT output MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "the output does not match '${EXPECTED_OUTPUT}'")
endif()
