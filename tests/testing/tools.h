// Programs from outside the repository that tests run, as CMake found them
// (cmake/EdgemondTest.cmake): an absolute path, or empty when the program is missing and the test
// should skip.

#ifndef EDGEMOND_TESTS_TESTING_TOOLS_H_
#define EDGEMOND_TESTS_TESTING_TOOLS_H_

#include <string>

namespace edgemond::testing {

std::string Promtool();
std::string Prometheus();

// Runs `promtool check metrics` on a file of Prometheus text; true when it passes (its findings
// go to stderr).
bool PromtoolAccepts(const std::string& file);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_TESTING_TOOLS_H_
