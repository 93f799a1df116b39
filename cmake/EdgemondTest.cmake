# edgemond_add_test(NAME <name> SOURCES <files...> LIBS <libs...> [LABEL unit|golden|e2e])
#
# Builds one GoogleTest binary and registers every TEST in it with CTest under the given label
# (default: unit). Tests run with the repository root in EDGEMOND_SOURCE_DIR so that they can find
# fixtures without relying on the working directory.

include(GoogleTest)

function(edgemond_add_test)
  cmake_parse_arguments(ARG "" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  edgemond_set_warnings(${ARG_NAME})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${ARG_NAME} PRIVATE
      EDGEMOND_SOURCE_DIR="${PROJECT_SOURCE_DIR}" EDGEMOND_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${ARG_NAME}
      PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT}
      DISCOVERY_TIMEOUT 60)
endfunction()
