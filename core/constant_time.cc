#include "core/constant_time.h"

#include <algorithm>
#include <cstddef>

namespace edgemond {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of the longer one is visited and folded into `diff`; nothing branches on a byte.
  // volatile keeps the loop from stopping once `diff` is known to be non-zero.
  volatile unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

}  // namespace edgemond
