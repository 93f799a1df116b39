#include "engine/graph.h"

#include <gtest/gtest.h>

#include <memory>

namespace edgemond::engine {
namespace {

// Adds node `op` reading `inputs` and writing `outputs` (values created as needed).
NodeId AddNode(Graph& graph, const std::string& name, const std::vector<std::string>& inputs,
               const std::vector<std::string>& outputs) {
  Node node;
  node.name = name;
  node.op_type = "Relu";
  node.opset = 13;
  for (const std::string& input : inputs) node.inputs.push_back(graph.FindOrAddValue(input));
  for (const std::string& output : outputs) node.outputs.push_back(graph.FindOrAddValue(output));
  Result<NodeId> id = graph.AddNode(std::move(node));
  EXPECT_TRUE(id.ok()) << id.status();
  return id.ok() ? *id : kNoNode;
}

TEST(GraphTest, OrdersProducersFirstAndKeepsFileOrderOtherwise) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  const NodeId c = AddNode(graph, "c", {"b"}, {"y"});
  const NodeId a = AddNode(graph, "a", {"x"}, {"a_out"});
  const NodeId b = AddNode(graph, "b", {"a_out"}, {"b"});
  const NodeId d = AddNode(graph, "d", {"x"}, {"z"});
  Result<std::vector<NodeId>> order = graph.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<NodeId>{a, b, c, d}));
}

TEST(GraphTest, NamesANodeOnACycle) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  AddNode(graph, "entry", {"x"}, {"e"});
  AddNode(graph, "downstream", {"loop2"}, {"out"});  // Waits on the cycle, is not on it.
  AddNode(graph, "first", {"loop2"}, {"loop1"});
  AddNode(graph, "second", {"loop1"}, {"loop2"});
  const Status status = graph.TopologicalOrder().status();
  ASSERT_EQ(status.code(), StatusCode::kInvalidArgument);
  const std::string message(status.message());
  EXPECT_NE(message.find("cycle"), std::string::npos);
  EXPECT_TRUE(message.find("'first'") != std::string::npos ||
              message.find("'second'") != std::string::npos)
      << message;
}

TEST(GraphTest, ValidateNamesAMissingInitializer) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  AddNode(graph, "add", {"x", "bias"}, {"y"});
  graph.AddOutput("y", graph.FindValue("y"));
  const Status status = graph.Validate();
  EXPECT_EQ(status.message(),
            "node 'add' (Relu) input 'bias' is not produced by any node, initializer or graph "
            "input");
}

TEST(GraphTest, RefusesAValueProducedTwice) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  AddNode(graph, "one", {"x"}, {"y"});
  Node node;
  node.op_type = "Relu";
  node.inputs = {graph.FindValue("x")};
  node.outputs = {graph.FindValue("y")};
  EXPECT_FALSE(graph.AddNode(std::move(node)).ok());
  // A graph input cannot also be a node output or a constant.
  Result<Tensor> tensor = Tensor::Create(DataType::kFloat32, Shape({1}));
  ASSERT_TRUE(tensor.ok());
  EXPECT_FALSE(
      graph.SetConstant(graph.FindValue("x"), std::make_shared<Tensor>(std::move(*tensor))).ok());
}

TEST(GraphTest, ReplaceUsesRewiresNodesAndOutputs) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  AddNode(graph, "id", {"x"}, {"a"});
  const NodeId consumer = AddNode(graph, "use", {"a"}, {"b"});
  graph.AddOutput("a", graph.FindValue("a"));
  graph.ReplaceUses(graph.FindValue("a"), graph.FindValue("x"));
  EXPECT_EQ(graph.node(consumer).inputs[0], graph.FindValue("x"));
  EXPECT_EQ(graph.outputs()[0].name, "a");
  EXPECT_EQ(graph.outputs()[0].value, graph.FindValue("x"));
}

TEST(GraphTest, DescribesUnnamedNodesByTheirOutput) {
  Graph graph;
  ASSERT_TRUE(graph.AddInput(graph.FindOrAddValue("x")).ok());
  const NodeId id = AddNode(graph, "", {"x"}, {"relu_out"});
  EXPECT_EQ(graph.Describe(id), "node producing 'relu_out' (Relu)");
}

}  // namespace
}  // namespace edgemond::engine
