// FUZZ_CHECK(condition, what): a property a fuzz target asserts about the code under test (a
// round trip that must be exact, an error that must carry a message). A violation prints what
// failed and aborts, which libFuzzer and the seed replay both report as a finding.

#ifndef EDGEMOND_TESTS_FUZZ_FUZZ_CHECK_H_
#define EDGEMOND_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                              \
  do {                                                                                           \
    if (!(condition)) {                                                                          \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", __FILE__, __LINE__, #condition, \
                   what);                                                                        \
      std::abort();                                                                              \
    }                                                                                            \
  } while (false)

#endif  // EDGEMOND_TESTS_FUZZ_FUZZ_CHECK_H_
