#include "engine/passes.h"

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

}  // namespace edgemond::engine
