// ConstantTimeEquals: compares a secret (the API's bearer token) with a guess in a time that
// depends on their lengths only, never on where they first differ, so that response times do not
// let a client find the secret byte by byte. Out of line on purpose: inlined at a call site, the
// compiler could turn the loop back into an early exit.

#ifndef EDGEMOND_CORE_CONSTANT_TIME_H_
#define EDGEMOND_CORE_CONSTANT_TIME_H_

#include <string_view>

namespace edgemond {

bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace edgemond

#endif  // EDGEMOND_CORE_CONSTANT_TIME_H_
