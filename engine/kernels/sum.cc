// Sum is header-only (a VariadicKernel instantiation); this file anchors it in the build so
// that every op keeps its own translation unit.
#include "engine/kernels/sum.h"

namespace edgemond::engine {

template class VariadicKernel<SumOp>;

}  // namespace edgemond::engine
