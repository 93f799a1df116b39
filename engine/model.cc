#include "engine/model.h"

#include <algorithm>
#include <set>

#include "engine/layout_pass.h"
#include "engine/memory_planner.h"

namespace edgemond::engine {
namespace {

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

std::string StepName(const Graph& graph, const Node& node) {
  if (!node.name.empty()) return node.name;
  for (const ValueId output : node.outputs) {
    if (output != kNoValue) return graph.value(output).name;
  }
  return node.op_type;
}

}  // namespace

Result<std::shared_ptr<const Model>> Model::Build(Graph graph, const ModelOptions& options) {
  const KernelRegistry& registry =
      options.registry != nullptr ? *options.registry : KernelRegistry::Builtin();
  EDGEMOND_RETURN_IF_ERROR(graph.Validate());
  // Cycles are found here, before any kernel runs.
  EDGEMOND_RETURN_IF_ERROR(graph.TopologicalOrder().status());

  std::shared_ptr<Model> model(new Model());
  ModelStats& stats = model->stats_;
  for (const NodeId id : graph.LiveNodes()) {
    const Node& node = graph.node(id);
    ++stats.model_nodes;
    ++stats.model_ops[node.domain.empty() ? node.op_type : node.domain + "." + node.op_type];
    if (node.op_type == "Constant") {
      const Attribute* value = node.FindAttribute("value");
      if (value != nullptr && value->t != nullptr && IsFloatingPoint(value->t->dtype())) {
        stats.parameters += value->t->num_elements();
      }
    }
  }
  for (ValueId id = 0; id < graph.num_values(); ++id) {
    const Value& value = graph.value(id);
    if (value.constant != nullptr && IsFloatingPoint(value.constant->dtype())) {
      stats.parameters += value.constant->num_elements();
    }
  }

  EDGEMOND_RETURN_IF_ERROR(FreezeInputs(graph, options.constant_inputs));
  EDGEMOND_RETURN_IF_ERROR(BindInputShapes(graph, options.input_shapes));
  FoldStats fold;
  EDGEMOND_RETURN_IF_ERROR(ResolveAndFold(graph, registry, options.max_arena_bytes, &fold));
  stats.folded_nodes = fold.folded_nodes;
  stats.removed_nodes = RemoveIdentities(graph);
  stats.removed_nodes += RemoveDeadNodes(graph);
  if (options.optimize) {
    EDGEMOND_ASSIGN_OR_RETURN(const int folded, FoldConvBatchNormalization(graph));
    EDGEMOND_ASSIGN_OR_RETURN(const int fused, FuseActivations(graph, registry));
    stats.fused_nodes = folded + fused;
    // Last: it turns the fused nodes into NHWC kernels that keep their activations.
    if (options.cpu_layout) {
      LayoutStats layout;
      EDGEMOND_RETURN_IF_ERROR(ConvertToNhwc(graph, registry, &layout));
      stats.layout_reorders = layout.reorders;
    }
  }
  EDGEMOND_RETURN_IF_ERROR(graph.Validate());
  EDGEMOND_ASSIGN_OR_RETURN(const std::vector<NodeId> order, graph.TopologicalOrder());

  // Kernels of the final graph. Preparing again (rather than keeping the kernels used for
  // shape resolution) lets later passes rewrite nodes and choose other kernel variants.
  //
  // A constant that no kernel reads at run time (weights packed in Prepare) is released as soon
  // as the last node using it is prepared, so that a model's weights are not held twice: at
  // most one layer's are, in ONNX's and in packed form (ResNet-50: about 100 MB less at the
  // peak).
  std::vector<int> uses_left(static_cast<std::size_t>(graph.num_values()), 0);
  std::vector<bool> read_at_run(static_cast<std::size_t>(graph.num_values()), false);
  for (const NodeId id : order) {
    for (const ValueId input : graph.node(id).inputs) {
      if (input != kNoValue) ++uses_left[static_cast<std::size_t>(input)];
    }
  }
  for (const GraphOutput& output : graph.outputs()) {
    read_at_run[static_cast<std::size_t>(output.value)] = true;
  }
  std::vector<Step>& steps = model->steps_;
  steps.reserve(order.size());
  for (const NodeId id : order) {
    EDGEMOND_ASSIGN_OR_RETURN(PreparedKernel prepared, PrepareNode(graph, id, registry));
    for (std::size_t i = 0; i < graph.node(id).inputs.size(); ++i) {
      const ValueId input = graph.node(id).inputs[i];
      if (input == kNoValue) continue;
      const auto v = static_cast<std::size_t>(input);
      if (prepared.kernel->ReadsInputAtRun(static_cast<int>(i))) read_at_run[v] = true;
      if (--uses_left[v] == 0 && !read_at_run[v]) graph.value(input).constant.reset();
    }
    const Node& node = graph.node(id);
    Step step;
    step.node = id;
    step.name = StepName(graph, node);
    step.op_type = node.op_type;
    step.activation = node.activation;
    step.label = node.Label();
    step.kernel = std::move(prepared.kernel);
    step.inputs = node.inputs;
    step.outputs = node.outputs;
    step.scratch_bytes = prepared.scratch_bytes;
    step.flops = prepared.flops;
    stats.flops += prepared.flops;
    OpCount& count = stats.executed_ops[step.label];
    ++count.nodes;
    count.flops += prepared.flops;
    steps.push_back(std::move(step));
  }
  stats.executed_nodes = static_cast<int>(steps.size());

  for (const Step& step : steps) {
    stats.constant_bytes += static_cast<std::int64_t>(step.kernel->PackedBytes());
  }

  // Lifetimes, in steps. Graph inputs are written before step 0 and stay set from one run to
  // the next (a benchmark sets them once), so they live through every step, as graph outputs,
  // read after the last step, do.
  const int num_steps = static_cast<int>(steps.size());
  std::vector<Slot>& slots = model->slots_;
  slots.resize(static_cast<std::size_t>(graph.num_values()));
  std::vector<int> first(slots.size(), -1);
  std::vector<int> last(slots.size(), -1);
  for (const ValueId id : graph.inputs()) {
    first[static_cast<std::size_t>(id)] = 0;
    last[static_cast<std::size_t>(id)] = 0;
  }
  for (int s = 0; s < num_steps; ++s) {
    for (const ValueId output : steps[static_cast<std::size_t>(s)].outputs) {
      if (output == kNoValue) continue;
      first[static_cast<std::size_t>(output)] = s;
      last[static_cast<std::size_t>(output)] = s;
    }
    for (const ValueId input : steps[static_cast<std::size_t>(s)].inputs) {
      if (input != kNoValue) last[static_cast<std::size_t>(input)] = s;
    }
  }
  for (const ValueId id : graph.inputs()) last[static_cast<std::size_t>(id)] = num_steps;
  for (const GraphOutput& output : graph.outputs()) {
    last[static_cast<std::size_t>(output.value)] = num_steps;
  }
  // Inputs that their producers write in place into a step's output (Kernel::
  // InPlaceInputOffset) get no buffer of their own but an address inside that output, which
  // must then be alive from the first of those producers on.
  struct InPlace {
    ValueId output = kNoValue;
    std::int64_t offset = 0;
  };
  std::vector<InPlace> in_place(slots.size());
  for (const Step& step : steps) {
    for (std::size_t i = 0; i < step.inputs.size(); ++i) {
      const std::optional<std::int64_t> offset =
          step.kernel->InPlaceInputOffset(static_cast<int>(i));
      if (!offset.has_value()) continue;
      const ValueId input = step.inputs[i];
      const ValueId output = step.outputs.empty() ? kNoValue : step.outputs[0];
      if (input == kNoValue || output == kNoValue ||
          in_place[static_cast<std::size_t>(input)].output != kNoValue ||
          in_place[static_cast<std::size_t>(output)].output != kNoValue ||
          graph.value(input).constant != nullptr || first[static_cast<std::size_t>(input)] < 0 ||
          std::find(graph.inputs().begin(), graph.inputs().end(), input) != graph.inputs().end()) {
        return Status::Internal("step '" + step.name + "': input " + std::to_string(i) +
                                " cannot be written in place into its output");
      }
      in_place[static_cast<std::size_t>(input)] = {output, *offset};
      int& output_first = first[static_cast<std::size_t>(output)];
      output_first = std::min(output_first, first[static_cast<std::size_t>(input)]);
    }
  }

  // Outputs that take over an input's buffer (Kernel::OutputReusesInput) share its request,
  // which then lives on to the last step that reads the output (and so on down a chain of
  // them, such as the residual path of a ResNet).
  std::vector<bool> holds_in_place(slots.size(), false);
  for (const InPlace& placed : in_place) {
    if (placed.output != kNoValue) holds_in_place[static_cast<std::size_t>(placed.output)] = true;
  }
  std::vector<ValueId> buffer_of(slots.size(), kNoValue);  // The value whose request it uses.
  for (int s = 0; s < num_steps; ++s) {
    const Step& step = steps[static_cast<std::size_t>(s)];
    const std::optional<int> index = step.kernel->OutputReusesInput();
    if (!index.has_value() || *index < 0 ||
        static_cast<std::size_t>(*index) >= step.inputs.size() || step.outputs.empty()) {
      continue;
    }
    const ValueId input = step.inputs[static_cast<std::size_t>(*index)];
    const ValueId output = step.outputs[0];
    if (input == kNoValue || output == kNoValue) continue;
    const std::size_t in = static_cast<std::size_t>(input);
    const std::size_t out = static_cast<std::size_t>(output);
    const Value& in_value = graph.value(input);
    const Value& out_value = graph.value(output);
    if (last[in] != s || first[in] < 0 || in_value.constant != nullptr ||
        std::count(step.inputs.begin(), step.inputs.end(), input) != 1 ||
        std::find(graph.inputs().begin(), graph.inputs().end(), input) != graph.inputs().end() ||
        in_place[in].output != kNoValue || in_place[out].output != kNoValue || holds_in_place[in] ||
        holds_in_place[out] || !in_value.info.has_value() || !out_value.info.has_value() ||
        in_value.info->byte_size() != out_value.info->byte_size()) {
      continue;
    }
    const ValueId root = buffer_of[in] != kNoValue ? buffer_of[in] : input;
    buffer_of[out] = root;
    int& root_last = last[static_cast<std::size_t>(root)];
    root_last = std::max(root_last, last[out]);
    stats.unshared_bytes += static_cast<std::int64_t>(out_value.info->byte_size());
    ++stats.outputs_reusing_inputs;
  }

  std::vector<BufferRequest> requests;
  std::vector<ValueId> request_values;  // kNoValue for scratch requests.
  std::vector<int> request_steps;
  std::set<const Tensor*> constants_in_use;
  for (ValueId id = 0; id < graph.num_values(); ++id) {
    const Value& value = graph.value(id);
    Slot& slot = slots[static_cast<std::size_t>(id)];
    if (value.info.has_value()) slot.info = *value.info;
    if (value.constant != nullptr) {
      slot.kind = Slot::Kind::kConstant;
      slot.constant = value.constant.get();
      continue;
    }
    if (first[static_cast<std::size_t>(id)] < 0) continue;
    slot.kind = Slot::Kind::kArena;
    if (in_place[static_cast<std::size_t>(id)].output != kNoValue ||
        buffer_of[static_cast<std::size_t>(id)] != kNoValue) {
      continue;  // Placed below.
    }
    requests.push_back({slot.info.byte_size(), first[static_cast<std::size_t>(id)],
                        last[static_cast<std::size_t>(id)]});
    request_values.push_back(id);
    request_steps.push_back(-1);
  }
  for (int s = 0; s < num_steps; ++s) {
    const Step& step = steps[static_cast<std::size_t>(s)];
    for (const ValueId input : step.inputs) {
      if (input != kNoValue && slots[static_cast<std::size_t>(input)].constant != nullptr) {
        constants_in_use.insert(slots[static_cast<std::size_t>(input)].constant);
      }
    }
    if (step.scratch_bytes == 0) continue;
    requests.push_back({static_cast<std::int64_t>(step.scratch_bytes), s, s});
    request_values.push_back(kNoValue);
    request_steps.push_back(s);
  }
  for (const GraphOutput& output : graph.outputs()) {
    const Slot& slot = slots[static_cast<std::size_t>(output.value)];
    if (slot.constant != nullptr) constants_in_use.insert(slot.constant);
  }

  const MemoryPlan plan = PlanMemory(requests, static_cast<std::int64_t>(kTensorAlignment));
  for (std::size_t r = 0; r < requests.size(); ++r) {
    stats.unshared_bytes += requests[r].bytes;
    if (request_values[r] != kNoValue) {
      slots[static_cast<std::size_t>(request_values[r])].offset = plan.offsets[r];
    } else {
      steps[static_cast<std::size_t>(request_steps[r])].scratch_offset = plan.offsets[r];
    }
  }
  for (std::size_t v = 0; v < slots.size(); ++v) {
    if (buffer_of[v] != kNoValue) {
      slots[v].offset = slots[static_cast<std::size_t>(buffer_of[v])].offset;
    }
  }
  for (std::size_t v = 0; v < slots.size(); ++v) {
    if (in_place[v].output == kNoValue) continue;
    slots[v].offset =
        slots[static_cast<std::size_t>(in_place[v].output)].offset + in_place[v].offset;
  }
  stats.arena_bytes = plan.arena_bytes;
  if (plan.arena_bytes > options.max_arena_bytes) {
    return Status::ResourceExhausted("the model needs a " + std::to_string(plan.arena_bytes) +
                                     "-byte arena, above the limit of " +
                                     std::to_string(options.max_arena_bytes) + " bytes");
  }
  for (const Tensor* constant : constants_in_use) {
    stats.constant_bytes += static_cast<std::int64_t>(constant->byte_size());
  }

  for (const ValueId id : graph.inputs()) {
    const Value& value = graph.value(id);
    model->inputs_.push_back({value.name, *value.info});
    model->input_values_.push_back(id);
  }
  for (const GraphOutput& output : graph.outputs()) {
    model->outputs_.push_back({output.name, *graph.value(output.value).info});
    model->output_values_.push_back(output.value);
  }
  model->graph_ = std::move(graph);
  return std::shared_ptr<const Model>(std::move(model));
}

}  // namespace edgemond::engine
