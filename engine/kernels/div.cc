// Div is header-only (a BinaryKernel instantiation); this file anchors it in the build so that
// every op keeps its own translation unit.
#include "engine/kernels/div.h"

namespace edgemond::engine {

template class BinaryKernel<DivOp>;

}  // namespace edgemond::engine
