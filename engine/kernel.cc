#include "engine/kernel.h"

namespace edgemond::engine {

const Attribute* AttributeReader::Find(std::string_view name) const {
  for (const Attribute& attribute : attributes_) {
    if (attribute.name == name) return &attribute;
  }
  return nullptr;
}

Result<const Attribute*> AttributeReader::Take(std::string_view name, Attribute::Type type) {
  for (std::size_t i = 0; i < attributes_.size(); ++i) {
    const Attribute& attribute = attributes_[i];
    if (attribute.name != name) continue;
    read_[i] = true;
    if (attribute.type != type) {
      const std::string_view found = attribute.type == Attribute::Type::kOther
                                         ? std::string_view(attribute.other_type)
                                         : Attribute::TypeName(attribute.type);
      return Status::InvalidArgument("attribute '" + std::string(name) + "' should be of type " +
                                     std::string(Attribute::TypeName(type)) + ", not " +
                                     std::string(found));
    }
    return &attribute;
  }
  return static_cast<const Attribute*>(nullptr);
}

Result<std::int64_t> AttributeReader::GetInt(std::string_view name, std::int64_t default_value) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kInt));
  return attribute == nullptr ? default_value : attribute->i;
}

Result<std::int64_t> AttributeReader::GetRequiredInt(std::string_view name) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kInt));
  if (attribute == nullptr) {
    return Status::InvalidArgument("attribute '" + std::string(name) + "' is required");
  }
  return attribute->i;
}

Result<float> AttributeReader::GetFloat(std::string_view name, float default_value) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kFloat));
  return attribute == nullptr ? default_value : attribute->f;
}

Result<std::string> AttributeReader::GetString(std::string_view name,
                                               std::string_view default_value) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kString));
  return attribute == nullptr ? std::string(default_value) : attribute->s;
}

Result<std::vector<std::int64_t>> AttributeReader::GetInts(std::string_view name) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kInts));
  return attribute == nullptr ? std::vector<std::int64_t>() : attribute->ints;
}

Result<std::vector<float>> AttributeReader::GetFloats(std::string_view name) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kFloats));
  return attribute == nullptr ? std::vector<float>() : attribute->floats;
}

Result<std::vector<std::string>> AttributeReader::GetStrings(std::string_view name) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kStrings));
  return attribute == nullptr ? std::vector<std::string>() : attribute->strings;
}

Result<const Tensor*> AttributeReader::GetTensor(std::string_view name) {
  EDGEMOND_ASSIGN_OR_RETURN(const Attribute* attribute, Take(name, Attribute::Type::kTensor));
  return attribute == nullptr ? static_cast<const Tensor*>(nullptr) : attribute->t.get();
}

void AttributeReader::Ignore(std::string_view name) {
  for (std::size_t i = 0; i < attributes_.size(); ++i) {
    if (attributes_[i].name == name) read_[i] = true;
  }
}

std::vector<std::string> AttributeReader::Unread() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < attributes_.size(); ++i) {
    if (!read_[i]) names.push_back(attributes_[i].name);
  }
  return names;
}

PrepareContext::PrepareContext(const Node& node, std::vector<const TensorInfo*> inputs,
                               std::vector<const Tensor*> constants,
                               std::vector<bool> output_present)
    : node_(node),
      attributes_(node.attributes),
      inputs_(std::move(inputs)),
      constants_(std::move(constants)),
      output_present_(std::move(output_present)),
      outputs_(output_present_.size()) {}

Status PrepareContext::SetOutput(int index, DataType dtype, Shape shape) {
  if (!has_output(index)) return Status::Ok();
  const Result<std::int64_t> bytes = CheckedByteSize(shape, dtype);
  if (!bytes.ok()) return bytes.status().WithContext("output " + std::to_string(index));
  outputs_[static_cast<std::size_t>(index)] = TensorInfo{dtype, std::move(shape), Layout::kPlain};
  return Status::Ok();
}

Status PrepareContext::RequireInputCount(int min, int max) const {
  int given = num_inputs();
  // Trailing omitted inputs do not count.
  while (given > 0 && !has_input(given - 1)) --given;
  if (given < min || given > max) {
    return Status::InvalidArgument(
        "takes " +
        (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
        " inputs, " + std::to_string(given) + " given");
  }
  for (int i = 0; i < min; ++i) {
    if (!has_input(i)) {
      return Status::InvalidArgument("input " + std::to_string(i) + " is required");
    }
  }
  return Status::Ok();
}

Status PrepareContext::RequireInputType(int index, std::initializer_list<DataType> allowed) const {
  if (!has_input(index)) {
    return Status::InvalidArgument("input " + std::to_string(index) + " is required");
  }
  const DataType dtype = input(index).dtype;
  std::string names;
  for (const DataType type : allowed) {
    if (type == dtype) return Status::Ok();
    if (!names.empty()) names += ", ";
    names += DataTypeName(type);
  }
  return Status::Unsupported("input " + std::to_string(index) + " has type " +
                             std::string(DataTypeName(dtype)) + "; supported: " + names);
}

Status PrepareContext::RequireInputRank(int index, int min_rank, int max_rank) const {
  if (!has_input(index)) {
    return Status::InvalidArgument("input " + std::to_string(index) + " is required");
  }
  const int rank = input(index).shape.rank();
  if (rank < min_rank || rank > max_rank) {
    return Status::InvalidArgument(
        "input " + std::to_string(index) + " has rank " + std::to_string(rank) + "; expected " +
        (min_rank == max_rank ? std::to_string(min_rank)
                              : std::to_string(min_rank) + " to " + std::to_string(max_rank)));
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
