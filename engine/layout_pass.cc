#include "engine/layout_pass.h"

#include "engine/layout/nhwc_rewriter.h"

namespace edgemond::engine {

Status ConvertToNhwc(Graph& graph, const KernelRegistry& registry, LayoutStats* stats) {
  LayoutStats local;
  layout::NhwcRewriter rewriter(graph, registry, stats != nullptr ? *stats : local);
  return rewriter.Run();
}

}  // namespace edgemond::engine
