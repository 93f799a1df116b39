// GraphBuilder: small engine graphs by name, for tests of the graph passes.
//
//   Graph graph = GraphBuilder()
//                     .Input("x", DataType::kFloat32, {{1, ""}, {3, ""}})
//                     .Constant("w", FloatTensor(...))
//                     .Node("MatMul", {"x", "w"}, {"y"})
//                     .Output("y")
//                     .Take();
//
// The first failure to add an input, a constant or a node is kept in status(); the builder
// goes on, so a test checks status() once.

#ifndef EDGEMOND_ENGINE_TESTING_GRAPH_BUILDER_H_
#define EDGEMOND_ENGINE_TESTING_GRAPH_BUILDER_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "engine/graph.h"
#include "engine/tensor.h"

namespace edgemond::engine::testing {

class GraphBuilder {
 public:
  GraphBuilder& Input(const std::string& name, DataType dtype, std::vector<Dim> dims);
  GraphBuilder& Constant(const std::string& name, Tensor tensor);
  // Node names are op + node index ("Conv0"); an empty input or output name is omitted.
  GraphBuilder& Node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs,
                     std::vector<Attribute> attributes = {}, int opset = 13);
  GraphBuilder& Output(const std::string& name);
  const Status& status() const { return status_; }
  Graph Take() { return std::move(graph_); }

 private:
  void Keep(const Status& status) {
    if (status_.ok()) status_ = status;
  }

  Graph graph_;
  Status status_;
};

Attribute IntAttribute(std::string name, std::int64_t value);
Attribute FloatAttribute(std::string name, float value);
Attribute IntsAttribute(std::string name, std::vector<std::int64_t> values);

}  // namespace edgemond::engine::testing

#endif  // EDGEMOND_ENGINE_TESTING_GRAPH_BUILDER_H_
