// Graph: the engine's intermediate representation of a model, independent of ONNX protobuf.
//
// A Graph holds values (named tensors) and nodes (one operator application each). The ONNX
// loader (engine/onnx/) fills it; the passes (engine/passes.h) resolve types and shapes, fold
// constants and simplify it; Model::Build (engine/model.h) turns the result into an execution
// plan. Nothing here knows about protobuf, so tests and future importers build graphs directly.
//
// Invariants, checked by Validate():
//  1. Every value is produced at most once: by one node, or as a constant, or as a graph input.
//  2. Every node input is kNoValue (an omitted optional input) or a value that is a graph input,
//     a constant or the output of a live node.
//  3. Value names are unique; empty names are allowed only for engine-made temporaries.
// Removing a node never renumbers anything: NodeIds and ValueIds are stable for the life of the
// graph, and removed nodes are skipped by LiveNodes().
//
// Thread safety: none; a Graph is built and transformed by one thread.

#ifndef EDGEMOND_ENGINE_GRAPH_H_
#define EDGEMOND_ENGINE_GRAPH_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "engine/activation.h"
#include "engine/tensor.h"

namespace edgemond::engine {

using ValueId = std::int32_t;
using NodeId = std::int32_t;
inline constexpr ValueId kNoValue = -1;
inline constexpr NodeId kNoNode = -1;

// One dimension as the model declares it: a number, a named symbol ("batch") or unknown.
struct Dim {
  std::int64_t value = -1;  // >= 0 when the dimension is a number.
  std::string symbol;       // The symbol's name when the model gives one.

  bool known() const { return value >= 0; }
  std::string ToString() const;
};

// A value's type as the model declares it (ONNX ValueInfoProto). Used to bind user input shapes
// and to cross-check the shapes the kernels compute.
struct DeclaredType {
  DataType dtype = DataType::kFloat32;
  bool has_shape = false;  // False when not even the rank is declared.
  std::vector<Dim> dims;

  std::string ToString() const;
};

struct Attribute {
  enum class Type : std::uint8_t {
    kFloat,
    kInt,
    kString,
    kTensor,
    kFloats,
    kInts,
    kStrings,
    kOther,  // A kind the engine does not use (graph, sparse tensor, ...); see other_type.
  };

  std::string name;
  Type type = Type::kOther;
  float f = 0.0f;
  std::int64_t i = 0;
  std::string s;
  std::shared_ptr<const Tensor> t;
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  std::vector<std::string> strings;
  std::string other_type;  // For kOther: the model's name for the kind ("GRAPH").

  static std::string_view TypeName(Type type);
};

struct Value {
  std::string name;
  std::optional<DeclaredType> declared;    // From the model, when it says.
  std::optional<TensorInfo> info;          // Resolved type and shape (after the passes).
  std::shared_ptr<const Tensor> constant;  // Non-null when the value is known at load time.
  NodeId producer = kNoNode;
  bool is_graph_input = false;
};

struct Node {
  std::string name;    // May be empty in ONNX files; Graph::Describe() falls back to outputs.
  std::string domain;  // "" for the default ONNX domain (ai.onnx).
  std::string op_type;
  int opset = 0;                 // The model's opset import for `domain`.
  std::vector<ValueId> inputs;   // kNoValue marks an omitted optional input.
  std::vector<ValueId> outputs;  // kNoValue marks an omitted optional output.
  std::vector<Attribute> attributes;
  // An activation applied to output 0 by this node's kernel; set only by the fusion pass
  // (FuseActivations, engine/passes.h), never by importers. engine/activation.h states the
  // contract.
  FusedActivation activation;
  bool removed = false;

  const Attribute* FindAttribute(std::string_view attribute_name) const;
  // "Conv", or "Conv+Relu" when the node carries a fused activation.
  std::string Label() const;
};

// A graph output: the name callers ask for and the value that holds it. After simplification
// the value may have another name (an Identity was removed), so the name is kept here.
struct GraphOutput {
  std::string name;
  ValueId value = kNoValue;
};

class Graph {
 public:
  Graph() = default;
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a value. Fails (kInvalidArgument) if a value of that name exists.
  Result<ValueId> AddValue(std::string name);
  // The value named `name`, or kNoValue.
  ValueId FindValue(std::string_view name) const;
  // The value named `name`, created if absent (for node inputs that refer to later outputs).
  ValueId FindOrAddValue(std::string_view name);

  // Adds a node and records it as the producer of its outputs. Fails if an output is already
  // produced (by a node, a constant or a graph input).
  Result<NodeId> AddNode(Node node);
  // Marks a node removed and clears it as producer of its outputs.
  void RemoveNode(NodeId id);

  // Makes a value a constant. Fails if it has a producer or is a graph input.
  Status SetConstant(ValueId id, std::shared_ptr<const Tensor> tensor);
  // Declares a graph input. Fails if the value is produced or constant.
  Status AddInput(ValueId id);
  // Turns graph input `id` into a constant holding `tensor` (a value fixed for the model's
  // lifetime). Fails if `id` is not a graph input.
  Status FreezeInput(ValueId id, std::shared_ptr<const Tensor> tensor);
  void AddOutput(std::string name, ValueId id) { outputs_.push_back({std::move(name), id}); }

  // Redirects every use of `from` (node inputs and graph outputs) to `to`.
  void ReplaceUses(ValueId from, ValueId to);
  // Makes live node `id` produce `value_id` as its output `index`; the value it produced there
  // before is left without a producer. Fails if `value_id` is produced, constant or a graph
  // input (a fusion pass removes the node that produced it first).
  Status SetNodeOutput(NodeId id, int index, ValueId value_id);

  int num_values() const { return static_cast<int>(values_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Value& value(ValueId id) { return values_[static_cast<std::size_t>(id)]; }
  const Value& value(ValueId id) const { return values_[static_cast<std::size_t>(id)]; }
  Node& node(NodeId id) { return nodes_[static_cast<std::size_t>(id)]; }
  const Node& node(NodeId id) const { return nodes_[static_cast<std::size_t>(id)]; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<GraphOutput>& outputs() const { return outputs_; }
  std::vector<GraphOutput>& mutable_outputs() { return outputs_; }

  // Ids of the nodes not removed, in insertion order.
  std::vector<NodeId> LiveNodes() const;
  // Number of live nodes that read each value (graph outputs not counted).
  std::vector<int> UseCounts() const;

  // Checks invariants 1-3 and that every graph output is defined. Errors name the node and the
  // value: a missing initializer reads "node 'add' (Add) input 'b' is not produced by any node,
  // initializer or graph input".
  Status Validate() const;

  // Live nodes ordered so that producers come before consumers; ties keep insertion order.
  // A cycle is kInvalidArgument naming a node on it.
  Result<std::vector<NodeId>> TopologicalOrder() const;

  // "node 'conv1' (Conv)" or, for unnamed nodes, "node producing 'x' (Conv)"; the op is
  // Node::Label(), so a fused node reads "(Conv+Relu)".
  std::string Describe(NodeId id) const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<GraphOutput> outputs_;
  std::unordered_map<std::string, ValueId> by_name_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_GRAPH_H_
