#include "engine/kernels/identity.h"

#include <cstring>

namespace edgemond::engine {

Status IdentityKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(1, 1));
  const TensorInfo& x = context.input(0);
  return context.SetOutput(0, x.dtype, x.shape);
}

Status IdentityKernel::Run(const RunContext& context) const {
  const ConstTensorView& x = context.input(0);
  if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
  return Status::Ok();
}

}  // namespace edgemond::engine
