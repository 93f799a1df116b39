#include "engine/kernels/gelu.h"

#include <cmath>
#include <numbers>

namespace edgemond::engine {

Status GeluKernel::PrepareAttributes(AttributeReader& attributes) {
  const Result<std::string> read = attributes.GetString("approximate", "none");
  if (!read.ok()) return read.status();
  const std::string& approximate = *read;
  if (approximate == "tanh") {
    tanh_ = true;
  } else if (approximate == "none") {
    tanh_ = false;
  } else {
    return Status::InvalidArgument("approximate must be \"none\" or \"tanh\", not \"" +
                                   approximate + "\"");
  }
  return Status::Ok();
}

void GeluKernel::Apply(const float* x, float* y, std::int64_t count) const {
  if (tanh_) {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    for (std::int64_t i = 0; i < count; ++i) {
      const double v = x[i];
      y[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))));
    }
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const double v = x[i];
    y[i] = static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2)));
  }
}

}  // namespace edgemond::engine
