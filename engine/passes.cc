#include "engine/passes.h"

#include <cmath>
#include <limits>
#include <set>

namespace edgemond::engine {
namespace {

std::string DimsToString(std::span<const std::int64_t> dims) {
  return Shape(std::vector<std::int64_t>(dims.begin(), dims.end())).ToString();
}

// Checks a computed type against the model's declaration of the value, where it has one.
Status CheckDeclared(const Value& value, const TensorInfo& info) {
  if (!value.declared.has_value()) return Status::Ok();
  const DeclaredType& declared = *value.declared;
  if (declared.dtype != info.dtype) {
    return Status::InvalidArgument("output '" + value.name + "' is " +
                                   std::string(DataTypeName(info.dtype)) +
                                   " but the model declares " + declared.ToString());
  }
  if (!declared.has_shape) return Status::Ok();
  bool match = static_cast<int>(declared.dims.size()) == info.shape.rank();
  for (int i = 0; match && i < info.shape.rank(); ++i) {
    const Dim& dim = declared.dims[static_cast<std::size_t>(i)];
    if (dim.known() && dim.value != info.shape.dim(i)) match = false;
  }
  if (!match) {
    return Status::InvalidArgument("output '" + value.name + "' has shape " +
                                   info.shape.ToString() + " but the model declares " +
                                   declared.ToString());
  }
  return Status::Ok();
}

// Runs a prepared kernel on constant inputs and returns its outputs.
Result<std::vector<std::shared_ptr<const Tensor>>> RunOnConstants(const Graph& graph,
                                                                  const Node& node,
                                                                  const PreparedKernel& prepared) {
  // std::vector<bool> has no contiguous storage; the contexts take spans of bool.
  const std::size_t num_inputs = node.inputs.size();
  const std::size_t num_outputs = node.outputs.size();
  std::vector<ConstTensorView> inputs(num_inputs);
  std::unique_ptr<bool[]> input_present = std::make_unique<bool[]>(num_inputs + 1);
  for (std::size_t i = 0; i < num_inputs; ++i) {
    if (node.inputs[i] == kNoValue) continue;
    const Value& v = graph.value(node.inputs[i]);
    input_present[i] = true;
    // Inputs whose data the kernel does not read (Shape's) get a view without data.
    inputs[i] = v.constant != nullptr
                    ? v.constant->view()
                    : ConstTensorView(v.info->dtype, v.info->shape.dims(), nullptr);
  }
  std::vector<Tensor> outputs;
  outputs.reserve(num_outputs);
  std::vector<TensorView> output_views(num_outputs);
  std::unique_ptr<bool[]> output_present = std::make_unique<bool[]>(num_outputs + 1);
  for (std::size_t i = 0; i < num_outputs; ++i) {
    if (!prepared.outputs[i].has_value()) continue;
    const TensorInfo& info = *prepared.outputs[i];
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Create(info.dtype, info.shape));
    outputs.push_back(std::move(tensor));
    output_views[i] = outputs.back().mutable_view();
    output_present[i] = true;
  }
  AlignedBuffer scratch =
      AllocateBuffer(DefaultAllocator(), prepared.scratch_bytes, /*zero=*/false);
  if (scratch == nullptr) return Status::ResourceExhausted("cannot allocate scratch memory");
  const RunContext context(inputs, std::span<const bool>(input_present.get(), num_inputs),
                           output_views, std::span<const bool>(output_present.get(), num_outputs),
                           std::span<std::byte>(scratch.get(), prepared.scratch_bytes),
                           /*threads=*/1);
  EDGEMOND_RETURN_IF_ERROR(prepared.kernel->Run(context));
  std::vector<std::shared_ptr<const Tensor>> results(num_outputs);
  std::size_t next = 0;
  for (std::size_t i = 0; i < num_outputs; ++i) {
    if (!prepared.outputs[i].has_value()) continue;
    results[i] = std::make_shared<const Tensor>(std::move(outputs[next++]));
  }
  return results;
}

bool IsDefaultDomain(const Node& node) { return node.domain.empty() || node.domain == "ai.onnx"; }

// Whether every attribute of `node` is one of `known`: the optimizations only rewrite nodes
// whose every attribute they understand.
bool OnlyAttributes(const Node& node, std::initializer_list<std::string_view> known) {
  for (const Attribute& attribute : node.attributes) {
    bool found = false;
    for (const std::string_view name : known) found = found || attribute.name == name;
    if (!found) return false;
  }
  return true;
}

// The float attribute `name`, `fallback` when absent, nullopt when it has another type.
std::optional<float> FloatAttribute(const Node& node, std::string_view name, float fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  if (attribute == nullptr) return fallback;
  if (attribute->type != Attribute::Type::kFloat) return std::nullopt;
  return attribute->f;
}

// The int attribute `name`, `fallback` when absent, nullopt when it has another type.
std::optional<std::int64_t> IntAttribute(const Node& node, std::string_view name,
                                         std::int64_t fallback) {
  const Attribute* attribute = node.FindAttribute(name);
  if (attribute == nullptr) return fallback;
  if (attribute->type != Attribute::Type::kInt) return std::nullopt;
  return attribute->i;
}

// The constant float32 tensor of `id`, or nullptr.
const Tensor* FloatConstant(const Graph& graph, ValueId id) {
  if (id == kNoValue) return nullptr;
  const Tensor* tensor = graph.value(id).constant.get();
  return tensor != nullptr && tensor->dtype() == DataType::kFloat32 ? tensor : nullptr;
}

// A value name not used yet, derived from `base`.
std::string UniqueName(const Graph& graph, const std::string& base) {
  if (graph.FindValue(base) == kNoValue) return base;
  for (int n = 2;; ++n) {
    std::string name = base + "_" + std::to_string(n);
    if (graph.FindValue(name) == kNoValue) return name;
  }
}

// Who reads what, for the optimizations. Graph outputs count as readers that never go away.
struct Uses {
  std::vector<int> count;                    // Live node inputs reading each value.
  std::vector<bool> graph_output;            // Each value that is a graph output.
  std::vector<std::vector<NodeId>> readers;  // Live nodes reading each value.

  explicit Uses(const Graph& graph)
      : count(graph.UseCounts()),
        graph_output(static_cast<std::size_t>(graph.num_values()), false),
        readers(static_cast<std::size_t>(graph.num_values())) {
    for (const GraphOutput& output : graph.outputs()) {
      graph_output[static_cast<std::size_t>(output.value)] = true;
    }
    for (const NodeId id : graph.LiveNodes()) {
      for (const ValueId input : graph.node(id).inputs) {
        if (input != kNoValue) readers[static_cast<std::size_t>(input)].push_back(id);
      }
    }
  }
  // Read by exactly `n` node inputs and not a graph output.
  bool ReadOnlyBy(ValueId id, int n) const {
    return count[static_cast<std::size_t>(id)] == n && !graph_output[static_cast<std::size_t>(id)];
  }
};

// The fused form of activation node `node`, or kNone when it is not an activation the pass
// fuses (or has a form it does not: a Clip bound computed at run time).
FusedActivation AsActivation(const Graph& graph, const Node& node) {
  if (!IsDefaultDomain(node) || node.activation.active() || node.inputs.empty() ||
      node.inputs[0] == kNoValue || node.outputs.size() != 1 || node.outputs[0] == kNoValue) {
    return FusedActivation::None();
  }
  const std::string& op = node.op_type;
  if ((op == "Relu" || op == "Sigmoid" || op == "HardSwish") && node.inputs.size() == 1 &&
      node.attributes.empty()) {
    if (op == "Relu") return FusedActivation::Relu();
    if (op == "Sigmoid") return FusedActivation::Sigmoid();
    return FusedActivation::HardSwish();
  }
  if (op == "LeakyRelu" && node.inputs.size() == 1 && OnlyAttributes(node, {"alpha"})) {
    const std::optional<float> alpha = FloatAttribute(node, "alpha", 0.01f);
    if (alpha.has_value()) return FusedActivation::LeakyRelu(*alpha);
  }
  if (op == "HardSigmoid" && node.inputs.size() == 1 && OnlyAttributes(node, {"alpha", "beta"})) {
    const std::optional<float> alpha = FloatAttribute(node, "alpha", 0.2f);
    const std::optional<float> beta = FloatAttribute(node, "beta", 0.5f);
    if (alpha.has_value() && beta.has_value()) {
      return FusedActivation::HardSigmoid(*alpha, *beta);
    }
  }
  if (op == "Clip") {
    // The same defaults as the Clip kernel, so that fusing changes nothing.
    float lower = -std::numeric_limits<float>::infinity();
    float upper = std::numeric_limits<float>::infinity();
    if (node.opset < 11) {
      if (node.inputs.size() != 1 || !OnlyAttributes(node, {"min", "max"})) {
        return FusedActivation::None();
      }
      const std::optional<float> min = FloatAttribute(node, "min", lower);
      const std::optional<float> max = FloatAttribute(node, "max", upper);
      if (!min.has_value() || !max.has_value()) return FusedActivation::None();
      lower = *min;
      upper = *max;
    } else {
      if (node.inputs.size() > 3 || !node.attributes.empty()) return FusedActivation::None();
      for (std::size_t i = 1; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == kNoValue) continue;
        const Tensor* bound = FloatConstant(graph, node.inputs[i]);
        if (bound == nullptr || bound->num_elements() != 1) return FusedActivation::None();
        (i == 1 ? lower : upper) = bound->values<float>()[0];
      }
    }
    return FusedActivation::Clip(lower, upper);
  }
  return FusedActivation::None();
}

// The inference-mode BatchNormalization parameters of `node` when they are foldable
// (constant float32 vectors of `channels` elements), else false.
bool FoldableBatchNormalization(const Graph& graph, const Node& node, std::int64_t channels,
                                float& epsilon) {
  if (!IsDefaultDomain(node) || node.activation.active() || node.inputs.size() != 5 ||
      node.outputs.empty() || node.outputs[0] == kNoValue ||
      !OnlyAttributes(node, {"epsilon", "momentum", "spatial", "training_mode"})) {
    return false;
  }
  for (std::size_t i = 1; i < node.outputs.size(); ++i) {
    if (node.outputs[i] != kNoValue) return false;
  }
  const std::optional<float> eps = FloatAttribute(node, "epsilon", 1e-5f);
  const std::optional<std::int64_t> spatial = IntAttribute(node, "spatial", 1);
  const std::optional<std::int64_t> training = IntAttribute(node, "training_mode", 0);
  if (!eps.has_value() || spatial != 1 || training != 0) return false;
  for (std::size_t i = 1; i < 5; ++i) {
    const Tensor* p = FloatConstant(graph, node.inputs[i]);
    if (p == nullptr || p->shape().rank() != 1 || p->shape().dim(0) != channels) return false;
  }
  epsilon = *eps;
  return true;
}

}  // namespace

std::string DescribeForError(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  std::string out = graph.Describe(id);
  out.pop_back();  // ")"
  if (!node.domain.empty()) out += ", domain '" + node.domain + "'";
  out += ", opset " + std::to_string(node.opset) + ")";
  return out;
}

Status FreezeInputs(Graph& graph, const ConstantInputs& values) {
  for (const auto& [name, tensor] : values) {
    const ValueId id = graph.FindValue(name);
    if (id == kNoValue || !graph.value(id).is_graph_input) {
      return Status::InvalidArgument("a constant was given for '" + name +
                                     "', which is not a model input");
    }
    const Value& value = graph.value(id);
    if (value.declared.has_value()) {
      const DeclaredType& declared = *value.declared;
      bool match = declared.dtype == tensor->dtype();
      if (declared.has_shape) {
        match = match && static_cast<int>(declared.dims.size()) == tensor->shape().rank();
        for (std::size_t i = 0; match && i < declared.dims.size(); ++i) {
          const Dim& dim = declared.dims[i];
          if (dim.known() && dim.value != tensor->shape().dim(static_cast<int>(i))) match = false;
        }
      }
      if (!match) {
        return Status::InvalidArgument("input '" + name + "' is " + declared.ToString() +
                                       "; the constant given is " + tensor->info().ToString());
      }
    }
    EDGEMOND_RETURN_IF_ERROR(graph.FreezeInput(id, tensor));
  }
  return Status::Ok();
}

Status BindInputShapes(Graph& graph, const InputShapes& shapes) {
  std::set<std::string, std::less<>> used;
  std::map<std::string, std::int64_t, std::less<>> symbols;
  std::string input_names;
  for (const ValueId id : graph.inputs()) {
    Value& value = graph.value(id);
    if (!input_names.empty()) input_names += ", ";
    input_names += value.name;
    if (!value.declared.has_value()) {
      return Status::InvalidArgument("input '" + value.name + "' has no declared type");
    }
    const DeclaredType& declared = *value.declared;
    std::vector<std::int64_t> dims;
    const auto given = shapes.find(value.name);
    if (given != shapes.end()) {
      used.insert(given->first);
      dims = given->second;
      if (declared.has_shape && dims.size() != declared.dims.size()) {
        return Status::InvalidArgument(
            "input '" + value.name + "' has rank " + std::to_string(declared.dims.size()) + " (" +
            declared.ToString() + "); shape " + DimsToString(dims) + " was given");
      }
      for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 0) {
          return Status::InvalidArgument("input '" + value.name + "': negative dimension in " +
                                         DimsToString(dims));
        }
        if (!declared.has_shape) continue;
        const Dim& dim = declared.dims[i];
        if (dim.known() && dim.value != dims[i]) {
          return Status::InvalidArgument("input '" + value.name + "' dimension " +
                                         std::to_string(i) + " is " + std::to_string(dim.value) +
                                         " in the model (" + declared.ToString() + "); " +
                                         DimsToString(dims) + " was given");
        }
        if (!dim.known() && !dim.symbol.empty()) {
          const auto [it, inserted] = symbols.emplace(dim.symbol, dims[i]);
          if (!inserted && it->second != dims[i]) {
            return Status::InvalidArgument(
                "dimension '" + dim.symbol + "' is bound to both " + std::to_string(it->second) +
                " and " + std::to_string(dims[i]) + " (input '" + value.name + "')");
          }
        }
      }
    } else {
      if (!declared.has_shape) {
        return Status::InvalidArgument("input '" + value.name +
                                       "' has no declared shape; its shape must be given");
      }
      for (std::size_t i = 0; i < declared.dims.size(); ++i) {
        const Dim& dim = declared.dims[i];
        if (!dim.known()) {
          return Status::InvalidArgument("input '" + value.name + "' (" + declared.ToString() +
                                         ") has unresolved dimension " + std::to_string(i) +
                                         (dim.symbol.empty() ? "" : " ('" + dim.symbol + "')") +
                                         "; its shape must be given");
        }
        dims.push_back(dim.value);
      }
    }
    TensorInfo info{declared.dtype, Shape(std::move(dims)), Layout::kPlain};
    const Result<std::int64_t> bytes = CheckedByteSize(info.shape, info.dtype);
    if (!bytes.ok()) return bytes.status().WithContext("input '" + value.name + "'");
    value.info = std::move(info);
  }
  for (const auto& [name, dims] : shapes) {
    if (used.count(name) == 0) {
      return Status::InvalidArgument("a shape was given for '" + name +
                                     "', which is not a model input (inputs: " + input_names + ")");
    }
  }
  return Status::Ok();
}

Result<PreparedKernel> PrepareNode(const Graph& graph, NodeId id, const KernelRegistry& registry) {
  const Node& node = graph.node(id);
  const Result<const KernelDef*> def = registry.Find(node.domain, node.op_type, node.opset);
  if (!def.ok()) return def.status().WithContext(DescribeForError(graph, id));
  // Every ONNX operator's first output is required; kernels rely on it.
  if (node.outputs.empty() || node.outputs[0] == kNoValue) {
    return Status::InvalidArgument(DescribeForError(graph, id) + ": output 0 is missing");
  }

  std::vector<const TensorInfo*> inputs(node.inputs.size(), nullptr);
  std::vector<const Tensor*> constants(node.inputs.size(), nullptr);
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoValue) continue;
    const Value& v = graph.value(node.inputs[i]);
    if (!v.info.has_value()) {
      return Status::Internal(DescribeForError(graph, id) + ": input '" + v.name +
                              "' is not resolved");
    }
    inputs[i] = &*v.info;
    constants[i] = v.constant.get();
  }
  std::vector<bool> output_present(node.outputs.size());
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    output_present[i] = node.outputs[i] != kNoValue;
  }

  PreparedKernel prepared;
  prepared.kernel = (*def)->factory();
  if (!prepared.kernel->SupportsActivation(node.activation.kind)) {
    return Status::Unsupported(DescribeForError(graph, id) +
                               ": the kernel does not apply a fused " + node.activation.ToString() +
                               " activation");
  }
  PrepareContext context(node, std::move(inputs), std::move(constants), output_present);
  const Status status = prepared.kernel->Prepare(context);
  if (!status.ok()) return status.WithContext(DescribeForError(graph, id));
  const std::vector<std::string> unread = context.attributes().Unread();
  if (!unread.empty()) {
    std::string names;
    for (const std::string& name : unread) names += (names.empty() ? "'" : ", '") + name + "'";
    return Status::Unsupported(DescribeForError(graph, id) + ": attribute" +
                               (unread.size() > 1 ? "s " : " ") + names + " not supported");
  }
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    if (output_present[i] && !context.outputs()[i].has_value()) {
      return Status::Unsupported(DescribeForError(graph, id) + ": output " + std::to_string(i) +
                                 " ('" + graph.value(node.outputs[i]).name + "') is not supported");
    }
  }
  prepared.outputs = context.outputs();
  prepared.scratch_bytes = context.scratch_bytes();
  prepared.flops = context.flops();
  return prepared;
}

Status ResolveAndFold(Graph& graph, const KernelRegistry& registry, std::int64_t max_tensor_bytes,
                      FoldStats* stats) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<NodeId> order, graph.TopologicalOrder());
  for (const NodeId id : order) {
    EDGEMOND_ASSIGN_OR_RETURN(PreparedKernel prepared, PrepareNode(graph, id, registry));
    const Node& node = graph.node(id);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] == kNoValue) continue;
      Value& value = graph.value(node.outputs[i]);
      const Status declared = CheckDeclared(value, *prepared.outputs[i]);
      if (!declared.ok()) return declared.WithContext(DescribeForError(graph, id));
      if (prepared.outputs[i]->byte_size() > max_tensor_bytes) {
        return Status::ResourceExhausted(DescribeForError(graph, id) + ": output '" + value.name +
                                         "' (" + prepared.outputs[i]->ToString() +
                                         ") is larger than the " +
                                         std::to_string(max_tensor_bytes) + "-byte limit");
      }
      value.info = *prepared.outputs[i];
    }

    bool foldable = true;
    for (std::size_t i = 0; i < node.inputs.size() && foldable; ++i) {
      if (node.inputs[i] == kNoValue) continue;
      if (prepared.kernel->ReadsInputData(static_cast<int>(i)) &&
          graph.value(node.inputs[i]).constant == nullptr) {
        foldable = false;
      }
    }
    if (!foldable) continue;
    const Result<std::vector<std::shared_ptr<const Tensor>>> folded =
        RunOnConstants(graph, node, prepared);
    if (!folded.ok()) {
      return folded.status().WithContext(DescribeForError(graph, id) + " (at load time)");
    }
    const std::vector<ValueId> outputs = node.outputs;
    graph.RemoveNode(id);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i] == kNoValue) continue;
      EDGEMOND_RETURN_IF_ERROR(graph.SetConstant(outputs[i], (*folded)[i]));
    }
    if (stats != nullptr) ++stats->folded_nodes;
  }
  return Status::Ok();
}

int RemoveIdentities(Graph& graph) {
  std::vector<bool> is_graph_output(static_cast<std::size_t>(graph.num_values()), false);
  for (const GraphOutput& output : graph.outputs()) {
    is_graph_output[static_cast<std::size_t>(output.value)] = true;
  }
  const std::vector<int> uses = graph.UseCounts();
  int removed = 0;
  for (const NodeId id : graph.LiveNodes()) {
    const Node& node = graph.node(id);
    if (!IsDefaultDomain(node) || node.inputs.empty() || node.inputs[0] == kNoValue ||
        node.outputs.empty() || node.outputs[0] == kNoValue) {
      continue;
    }
    bool identity = node.op_type == "Identity";
    if (node.op_type == "Dropout") {
      // The kernel already refused training mode; without a consumer of the mask, inference
      // Dropout passes its input through.
      identity = true;
      for (std::size_t i = 1; i < node.outputs.size(); ++i) {
        const ValueId mask = node.outputs[i];
        if (mask != kNoValue && (uses[static_cast<std::size_t>(mask)] > 0 ||
                                 is_graph_output[static_cast<std::size_t>(mask)])) {
          identity = false;
        }
      }
    }
    if (!identity) continue;
    const ValueId from = node.outputs[0];
    const ValueId to = node.inputs[0];
    graph.RemoveNode(id);
    graph.ReplaceUses(from, to);
    ++removed;
  }
  return removed;
}

int RemoveDeadNodes(Graph& graph) {
  // One sweep in reverse topological order suffices: a node's consumers are decided first.
  const Result<std::vector<NodeId>> order = graph.TopologicalOrder();
  if (!order.ok()) return 0;  // Validated graphs have no cycles; leave it to the caller.
  std::vector<bool> needed(static_cast<std::size_t>(graph.num_values()), false);
  for (const GraphOutput& output : graph.outputs()) {
    needed[static_cast<std::size_t>(output.value)] = true;
  }
  int removed = 0;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const Node& node = graph.node(*it);
    bool live = false;
    for (const ValueId output : node.outputs) {
      if (output != kNoValue && needed[static_cast<std::size_t>(output)]) live = true;
    }
    if (!live) {
      graph.RemoveNode(*it);
      ++removed;
      continue;
    }
    for (const ValueId input : node.inputs) {
      if (input != kNoValue) needed[static_cast<std::size_t>(input)] = true;
    }
  }
  return removed;
}

Result<int> FoldConvBatchNormalization(Graph& graph) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<NodeId> order, graph.TopologicalOrder());
  Uses uses(graph);
  int removed = 0;
  for (const NodeId bn_id : order) {
    const Node& bn = graph.node(bn_id);
    if (bn.removed || bn.op_type != "BatchNormalization" || bn.inputs.empty()) continue;
    const ValueId x = bn.inputs[0];
    if (x == kNoValue || !uses.ReadOnlyBy(x, 1)) continue;
    const NodeId conv_id = graph.value(x).producer;
    if (conv_id == kNoNode) continue;
    const Node& conv = graph.node(conv_id);
    if (conv.removed || conv.op_type != "Conv" || !IsDefaultDomain(conv) ||
        conv.activation.active() || conv.inputs.size() < 2 || conv.inputs.size() > 3 ||
        conv.outputs.size() != 1 || conv.outputs[0] != x) {
      continue;
    }
    const Tensor* w = FloatConstant(graph, conv.inputs[1]);
    if (w == nullptr || w->shape().rank() < 3) continue;
    const std::int64_t channels = w->shape().dim(0);
    const ValueId b_id = conv.inputs.size() == 3 ? conv.inputs[2] : kNoValue;
    const Tensor* b = FloatConstant(graph, b_id);
    if (b_id != kNoValue &&
        (b == nullptr || b->shape().rank() != 1 || b->shape().dim(0) != channels)) {
      continue;
    }
    float epsilon = 0.0f;
    if (!FoldableBatchNormalization(graph, bn, channels, epsilon)) continue;

    const float* scale = graph.value(bn.inputs[1]).constant->data<float>();
    const float* bias = graph.value(bn.inputs[2]).constant->data<float>();
    const float* mean = graph.value(bn.inputs[3]).constant->data<float>();
    const float* var = graph.value(bn.inputs[4]).constant->data<float>();
    EDGEMOND_ASSIGN_OR_RETURN(Tensor folded_w, Tensor::Create(DataType::kFloat32, w->shape()));
    EDGEMOND_ASSIGN_OR_RETURN(Tensor folded_b, Tensor::Create(DataType::kFloat32, Shape{channels}));
    const std::int64_t per_channel = w->num_elements() / std::max<std::int64_t>(channels, 1);
    const float* w_in = w->data<float>();
    float* w_out = folded_w.data<float>();
    float* b_out = folded_b.data<float>();
    for (std::int64_t m = 0; m < channels; ++m) {
      const double s = static_cast<double>(scale[m]) /
                       std::sqrt(static_cast<double>(var[m]) + static_cast<double>(epsilon));
      for (std::int64_t i = m * per_channel; i < (m + 1) * per_channel; ++i) {
        w_out[i] = static_cast<float>(static_cast<double>(w_in[i]) * s);
      }
      const double conv_bias = b != nullptr ? static_cast<double>(b->data<float>()[m]) : 0.0;
      b_out[m] = static_cast<float>((conv_bias - static_cast<double>(mean[m])) * s +
                                    static_cast<double>(bias[m]));
    }

    // The BatchNormalization's parameters and the old weights are read once less.
    const std::vector<ValueId> released = {conv.inputs[1], b_id,         bn.inputs[1],
                                           bn.inputs[2],   bn.inputs[3], bn.inputs[4]};
    const std::string w_name = graph.value(conv.inputs[1]).name;
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId new_w,
                              graph.AddValue(UniqueName(graph, w_name + "_bn_folded")));
    EDGEMOND_ASSIGN_OR_RETURN(
        const ValueId new_b,
        graph.AddValue(UniqueName(
            graph, (b_id != kNoValue ? graph.value(b_id).name : w_name) + "_bn_folded_bias")));
    EDGEMOND_RETURN_IF_ERROR(
        graph.SetConstant(new_w, std::make_shared<const Tensor>(std::move(folded_w))));
    EDGEMOND_RETURN_IF_ERROR(
        graph.SetConstant(new_b, std::make_shared<const Tensor>(std::move(folded_b))));
    const ValueId y = bn.outputs[0];
    graph.RemoveNode(bn_id);
    Node& rewritten = graph.node(conv_id);
    rewritten.inputs.resize(3, kNoValue);
    rewritten.inputs[1] = new_w;
    rewritten.inputs[2] = new_b;
    EDGEMOND_RETURN_IF_ERROR(graph.SetNodeOutput(conv_id, 0, y));
    uses.count.resize(static_cast<std::size_t>(graph.num_values()), 1);
    uses.graph_output.resize(static_cast<std::size_t>(graph.num_values()), false);
    uses.count[static_cast<std::size_t>(x)] = 0;
    for (const ValueId id : released) {
      if (id == kNoValue) continue;
      int& count = uses.count[static_cast<std::size_t>(id)];
      --count;
      // Weights nothing reads any more are released now rather than kept by the model.
      if (count == 0 && !uses.graph_output[static_cast<std::size_t>(id)]) {
        graph.value(id).constant.reset();
      }
    }
    ++removed;
  }
  return removed;
}

Result<int> FuseActivations(Graph& graph, const KernelRegistry& registry) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<NodeId> order, graph.TopologicalOrder());
  Uses uses(graph);
  int removed = 0;
  for (const NodeId id : order) {
    const Node& node = graph.node(id);
    if (node.removed) continue;
    FusedActivation activation = AsActivation(graph, node);
    if (!activation.active()) continue;
    const ValueId x = node.inputs[0];
    const Value& input = graph.value(x);
    if (input.producer == kNoNode || !input.info.has_value() ||
        input.info->dtype != DataType::kFloat32) {
      continue;
    }
    std::vector<NodeId> absorbed = {id};
    ValueId result = node.outputs[0];
    // x * Sigmoid(x) is Silu; x * HardSigmoid(x) with HardSwish's constants is HardSwish.
    const bool gate = activation.kind == ActivationKind::kSigmoid ||
                      activation == FusedActivation::HardSigmoid(kHardSwishAlpha, kHardSwishBeta);
    if (gate && uses.ReadOnlyBy(x, 2) && uses.ReadOnlyBy(result, 1)) {
      const NodeId mul_id = uses.readers[static_cast<std::size_t>(result)][0];
      const Node& mul = graph.node(mul_id);
      const bool operands =
          mul.inputs.size() == 2 && ((mul.inputs[0] == x && mul.inputs[1] == result) ||
                                     (mul.inputs[0] == result && mul.inputs[1] == x));
      if (!mul.removed && mul.op_type == "Mul" && IsDefaultDomain(mul) && operands &&
          mul.attributes.empty() && !mul.activation.active() && mul.outputs.size() == 1 &&
          mul.outputs[0] != kNoValue) {
        activation = activation.kind == ActivationKind::kSigmoid ? FusedActivation::Silu()
                                                                 : FusedActivation::HardSwish();
        absorbed.push_back(mul_id);
        result = mul.outputs[0];
      }
    }
    if (!uses.ReadOnlyBy(x, static_cast<int>(absorbed.size()))) continue;
    const NodeId producer_id = input.producer;
    const Node& producer = graph.node(producer_id);
    if (producer.removed || producer.activation.active() || producer.outputs.empty() ||
        producer.outputs[0] != x) {
      continue;
    }
    const Result<const KernelDef*> def =
        registry.Find(producer.domain, producer.op_type, producer.opset);
    if (!def.ok() || !(*def)->factory()->SupportsActivation(activation.kind)) continue;

    const ValueId gate_output = node.outputs[0];
    for (const NodeId absorbed_id : absorbed) graph.RemoveNode(absorbed_id);
    EDGEMOND_RETURN_IF_ERROR(graph.SetNodeOutput(producer_id, 0, result));
    graph.node(producer_id).activation = activation;
    uses.count[static_cast<std::size_t>(x)] = 0;
    uses.count[static_cast<std::size_t>(gate_output)] = 0;
    removed += static_cast<int>(absorbed.size());
  }
  return removed;
}

}  // namespace edgemond::engine
