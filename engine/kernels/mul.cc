// Mul is header-only (a BinaryKernel instantiation); this file anchors it in the build so that
// every op keeps its own translation unit.
#include "engine/kernels/mul.h"

namespace edgemond::engine {

template class BinaryKernel<MulOp>;

}  // namespace edgemond::engine
