#include "engine/session.h"

#include <cstring>

namespace edgemond::engine {

Result<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options) {
  if (model == nullptr) return Status::InvalidArgument("no model");
  if (options.threads < 1) {
    return Status::InvalidArgument("threads must be at least 1, not " +
                                   std::to_string(options.threads));
  }
  Allocator& allocator = options.allocator != nullptr ? *options.allocator : DefaultAllocator();
  const auto bytes = static_cast<std::size_t>(model->stats().arena_bytes);
  AlignedBuffer arena = AllocateBuffer(allocator, bytes, /*zero=*/false);
  if (arena == nullptr) {
    return Status::ResourceExhausted("cannot allocate the " + std::to_string(bytes) +
                                     "-byte arena");
  }
  std::unique_ptr<ThreadPool> pool;
  if (options.threads > 1) {
    EDGEMOND_ASSIGN_OR_RETURN(pool, ThreadPool::Create(options.threads));
  }
  std::unique_ptr<Session> session(
      new Session(std::move(model), options, std::move(arena), std::move(pool)));
  session->Bind();
  return session;
}

Session::Session(std::shared_ptr<const Model> model, const SessionOptions& options,
                 AlignedBuffer arena, std::unique_ptr<ThreadPool> pool)
    : model_(std::move(model)),
      options_(options),
      arena_(std::move(arena)),
      pool_(std::move(pool)),
      input_set_(model_->inputs().size(), false) {}

ConstTensorView Session::ViewOf(ValueId id) const {
  const Model::Slot& slot = model_->slots()[static_cast<std::size_t>(id)];
  switch (slot.kind) {
    case Model::Slot::Kind::kArena:
      return {slot.info.dtype, slot.info.shape.dims(), arena_.get() + slot.offset};
    case Model::Slot::Kind::kConstant:
      return slot.constant->view();
    case Model::Slot::Kind::kNone:
      break;
  }
  return {};
}

void Session::Bind() {
  const std::vector<Model::Slot>& slots = model_->slots();
  bindings_.resize(model_->steps().size());
  for (std::size_t s = 0; s < bindings_.size(); ++s) {
    const Model::Step& step = model_->steps()[s];
    StepBinding& binding = bindings_[s];
    binding.inputs.resize(step.inputs.size());
    binding.input_present = std::make_unique<bool[]>(step.inputs.size() + 1);
    for (std::size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.inputs[i] == kNoValue) continue;
      binding.inputs[i] = ViewOf(step.inputs[i]);
      binding.input_present[i] = true;
    }
    binding.outputs.resize(step.outputs.size());
    binding.output_present = std::make_unique<bool[]>(step.outputs.size() + 1);
    for (std::size_t i = 0; i < step.outputs.size(); ++i) {
      if (step.outputs[i] == kNoValue) continue;
      const Model::Slot& slot = slots[static_cast<std::size_t>(step.outputs[i])];
      binding.outputs[i] =
          TensorView(slot.info.dtype, slot.info.shape.dims(), arena_.get() + slot.offset);
      binding.output_present[i] = true;
    }
    binding.scratch = std::span<std::byte>(arena_.get() + step.scratch_offset, step.scratch_bytes);
  }
}

Status Session::SetInput(std::string_view name, const ConstTensorView& value) {
  const std::vector<IoInfo>& inputs = model_->inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name != name) continue;
    const TensorInfo& expected = inputs[i].info;
    const bool same_shape =
        value.rank() == expected.shape.rank() &&
        std::equal(value.dims().begin(), value.dims().end(), expected.shape.dims().begin());
    if (value.dtype() != expected.dtype || !same_shape) {
      std::vector<std::int64_t> given(value.dims().begin(), value.dims().end());
      return Status::InvalidArgument(
          "input '" + std::string(name) + "' is " + expected.ToString() + "; " +
          TensorInfo{value.dtype(), Shape(std::move(given)), Layout::kPlain}.ToString() +
          " was given");
    }
    const Model::Slot& slot = model_->slots()[static_cast<std::size_t>(model_->input_values()[i])];
    if (slot.kind == Model::Slot::Kind::kArena && value.byte_size() > 0) {
      std::memcpy(arena_.get() + slot.offset, value.raw_data(), value.byte_size());
    }
    input_set_[i] = true;
    return Status::Ok();
  }
  std::string names;
  for (const IoInfo& input : inputs) names += (names.empty() ? "" : ", ") + input.name;
  return Status::NotFound("the model has no input '" + std::string(name) + "' (inputs: " + names +
                          ")");
}

Status Session::Run(StepObserver* observer) {
  for (std::size_t i = 0; i < input_set_.size(); ++i) {
    if (!input_set_[i]) {
      return Status::FailedPrecondition("input '" + model_->inputs()[i].name + "' was not set");
    }
  }
  const std::vector<Model::Step>& steps = model_->steps();
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Model::Step& step = steps[s];
    const StepBinding& binding = bindings_[s];
    const RunContext context(
        binding.inputs, std::span<const bool>(binding.input_present.get(), binding.inputs.size()),
        binding.outputs,
        std::span<const bool>(binding.output_present.get(), binding.outputs.size()),
        binding.scratch, options_.threads, pool_.get(), model_->stats().constant_bytes);
    if (observer != nullptr) observer->BeforeStep(static_cast<int>(s));
    const Status status = step.kernel->Run(context);
    if (!status.ok()) {
      return status.WithContext("node '" + step.name + "' (" + step.op_type + ")");
    }
    if (observer != nullptr) observer->AfterStep(static_cast<int>(s));
  }
  return Status::Ok();
}

Result<ConstTensorView> Session::Output(std::string_view name) const {
  const std::vector<IoInfo>& outputs = model_->outputs();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].name == name) return ViewOf(model_->output_values()[i]);
  }
  std::string names;
  for (const IoInfo& output : outputs) names += (names.empty() ? "" : ", ") + output.name;
  return Status::NotFound("the model has no output '" + std::string(name) + "' (outputs: " + names +
                          ")");
}

Result<std::vector<Tensor>> Session::Run(
    const std::vector<std::pair<std::string, ConstTensorView>>& inputs) {
  for (const auto& [name, value] : inputs) EDGEMOND_RETURN_IF_ERROR(SetInput(name, value));
  EDGEMOND_RETURN_IF_ERROR(Run());
  std::vector<Tensor> results;
  for (const IoInfo& output : model_->outputs()) {
    EDGEMOND_ASSIGN_OR_RETURN(const ConstTensorView view, Output(output.name));
    EDGEMOND_ASSIGN_OR_RETURN(Tensor copy, Tensor::CopyOf(view));
    results.push_back(std::move(copy));
  }
  return results;
}

}  // namespace edgemond::engine
