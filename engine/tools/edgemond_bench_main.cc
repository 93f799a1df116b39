// edgemond-bench: see engine/tools/bench_cli.h.
#include <iostream>

#include "engine/tools/bench_cli.h"

int main(int argc, char** argv) {
  return edgemond::engine::BenchMain(argc, argv, std::cout, std::cerr);
}
