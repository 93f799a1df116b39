#include "engine/kernels/constant.h"

#include <cstring>
#include <vector>

namespace edgemond::engine {

Status ConstantKernel::Prepare(PrepareContext& context) {
  EDGEMOND_RETURN_IF_ERROR(context.RequireInputCount(0, 0));
  const Node& node = context.node();
  if (node.attributes.size() != 1) {
    return Status::InvalidArgument("Constant needs exactly one value attribute, " +
                                   std::to_string(node.attributes.size()) + " given");
  }
  AttributeReader& attributes = context.attributes();
  const std::string& name = node.attributes[0].name;
  Result<Tensor> tensor = Status::Unsupported("attribute '" + name + "' is not supported");
  if (name == "value") {
    EDGEMOND_ASSIGN_OR_RETURN(const Tensor* value, attributes.GetTensor("value"));
    tensor = Tensor::CopyOf(value->view());
  } else if (name == "value_float") {
    EDGEMOND_ASSIGN_OR_RETURN(const float value, attributes.GetFloat(name, 0.0f));
    tensor = Tensor::FromVector<float>(Shape{}, {value});
  } else if (name == "value_floats") {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<float> values, attributes.GetFloats(name));
    tensor = Tensor::FromVector(Shape{static_cast<std::int64_t>(values.size())}, values);
  } else if (name == "value_int") {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t value, attributes.GetInt(name, 0));
    tensor = Tensor::FromVector<std::int64_t>(Shape{}, {value});
  } else if (name == "value_ints") {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> values, attributes.GetInts(name));
    tensor = Tensor::FromVector(Shape{static_cast<std::int64_t>(values.size())}, values);
  }
  if (!tensor.ok()) return tensor.status();
  value_ = std::make_shared<const Tensor>(std::move(tensor).value());
  return context.SetOutput(0, value_->dtype(), value_->shape());
}

Status ConstantKernel::Run(const RunContext& context) const {
  if (value_->byte_size() > 0) {
    std::memcpy(context.output(0).raw_data(), value_->raw_data(), value_->byte_size());
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
