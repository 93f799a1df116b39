// Mean is header-only (a VariadicKernel instantiation); this file anchors it in the build so
// that every op keeps its own translation unit.
#include "engine/kernels/mean.h"

namespace edgemond::engine {

template class VariadicKernel<MeanOp>;

}  // namespace edgemond::engine
