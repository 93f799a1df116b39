// OpTester: runs one operator through the whole engine (graph, passes, kernel, session), for
// kernel tests. Inputs are either fed at run time or constants (initializers), so a test sees
// exactly what a model would see, folding included.
//
//   OpTester test("Conv", 13);
//   test.Input("x", x).Constant("w", w).AttrInts("pads", {1, 1, 1, 1}).Output("y");
//   EDGEMOND_ASSIGN_OR_RETURN(std::vector<Tensor> y, test.Run());
//
// Test-only (engine/testing/ is never linked into edgemond).

#ifndef EDGEMOND_ENGINE_TESTING_OP_TESTER_H_
#define EDGEMOND_ENGINE_TESTING_OP_TESTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/graph.h"
#include "engine/model.h"
#include "engine/tensor.h"

namespace edgemond::engine::testing {

class OpTester {
 public:
  explicit OpTester(std::string op_type, int opset, std::string domain = "");

  // A graph input fed at run time.
  OpTester& Input(std::string name, Tensor value);
  // An initializer.
  OpTester& Constant(std::string name, Tensor value);
  // An omitted optional input ("" in ONNX).
  OpTester& OmittedInput();
  OpTester& Output(std::string name);
  OpTester& OmittedOutput();

  OpTester& Attr(Attribute attribute);
  OpTester& AttrInt(std::string name, std::int64_t value);
  OpTester& AttrInts(std::string name, std::vector<std::int64_t> values);
  OpTester& AttrFloat(std::string name, float value);
  OpTester& AttrFloats(std::string name, std::vector<float> values);
  OpTester& AttrTensor(std::string name, Tensor value);
  OpTester& AttrString(std::string name, std::string value);
  // Makes the node carry a fused activation, as the fusion pass would (engine/activation.h).
  OpTester& Activation(FusedActivation activation);

  // Runs the CPU layout pass (ModelOptions::optimize), so that the node executes on the
  // optimized kernels where it can. Off by default: a kernel test sees the kernel it names.
  OpTester& Optimize(bool optimize) {
    optimize_ = optimize;
    return *this;
  }

  // Builds the one-node model.
  Result<std::shared_ptr<const Model>> Build() const;
  // Builds, runs once and returns copies of the outputs, in Output() order.
  Result<std::vector<Tensor>> Run() const;

 private:
  struct Operand {
    std::string name;
    std::shared_ptr<const Tensor> value;  // Null for omitted inputs.
    bool constant = false;
  };

  std::string op_type_;
  std::string domain_;
  int opset_;
  std::vector<Operand> inputs_;
  std::vector<std::string> outputs_;  // "" for omitted outputs.
  std::vector<Attribute> attributes_;
  bool optimize_ = false;
  FusedActivation activation_;
};

// Shorthand for test tensors.
Tensor FloatTensor(Shape shape, std::vector<float> values);
Tensor Int64Tensor(Shape shape, std::vector<std::int64_t> values);
// 0, 1, 2, ... as float32.
Tensor IotaTensor(Shape shape);
// The elements of a float32 tensor.
std::vector<float> FloatValues(const Tensor& tensor);

}  // namespace edgemond::engine::testing

#endif  // EDGEMOND_ENGINE_TESTING_OP_TESTER_H_
