/* A benchmark program that crashes: it starts a JSON report, then dies of SIGSEGV, as an engine
   bug or a hostile model could make edgemond-bench do. The self-benchmark end-to-end test points
   selfbench.bench_path at it. */
#include <signal.h>
#include <stdio.h>

int main(void) {
  fputs("{\"model\": {\"path\": ", stdout);
  fflush(stdout);
  fputs("loading the model\n", stderr);
  raise(SIGSEGV);
  return 0;
}
