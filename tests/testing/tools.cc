#include "tests/testing/tools.h"

#include <cstdlib>

namespace edgemond::testing {

std::string Promtool() { return EDGEMOND_PROMTOOL; }

std::string Prometheus() { return EDGEMOND_PROMETHEUS; }

bool PromtoolAccepts(const std::string& file) {
  return std::system(("'" + Promtool() + "' check metrics < '" + file + "' >&2").c_str()) == 0;
}

}  // namespace edgemond::testing
