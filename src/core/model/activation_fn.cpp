// Counts from transformers/src/transformers/activations.py (the expressions each class
// evaluates) and PyTorch's tools/autograd/derivatives.yaml (what each op's backward
// saves): mul by a Python scalar keeps nothing, mul of two tensors keeps both, pow keeps
// its input, tanh/sigmoid/relu keep their result, silu/gelu keep their input.
#include "core/model/activation_fn.h"

namespace llmmem::core {
namespace {

constexpr ActivationFnInfo kActivationFns[] = {
    {ActivationFn::kSilu, "silu", "swish", 1, false, "SiluBackward0 (self)"},
    {ActivationFn::kGelu, "gelu", "gelu_10 gelu_python", 1, false, "GeluBackward0 (self)"},
    {ActivationFn::kGeluTanh, "gelu_pytorch_tanh", "gelu_tanh", 1, false, "GeluBackward0 (self), approximate='tanh'"},
    // 0.5*x*(1+tanh(c*(x+0.044715*pow(x,3)))): pow keeps x, tanh its result, the last
    // product both factors (0.5x and 1+tanh).
    {ActivationFn::kGeluNew, "gelu_new", "", 4, false,
     "PowBackward0 (x), TanhBackward0 (result), MulBackward0 (0.5x, 1 + tanh)"},
    // 0.5*x*(1+tanh(x*0.79788*(1+0.044715*x*x))): three tensor-tensor products keep two
    // factors each (0.044715x and x; 0.79788x and 1+0.044715x^2; 0.5x and 1+tanh), tanh its result.
    {ActivationFn::kGeluFast, "gelu_fast", "", 7, false, "MulBackward0 x3 (both factors each), TanhBackward0 (result)"},
    // x*sigmoid(1.702x): sigmoid keeps its result, the product x and the sigmoid.
    {ActivationFn::kQuickGelu, "quick_gelu", "", 2, false, "SigmoidBackward0 (result), MulBackward0 (x)"},
    {ActivationFn::kRelu, "relu", "", 0, true, "ReluBackward0 (result)"},
    // square(relu(x)) (ReLUSquaredActivation): relu keeps its result, square (pow 2) the same tensor.
    {ActivationFn::kRelu2, "relu2", "", 1, false, "ReluBackward0 (result), PowBackward0 (the same result)"},
};

static_assert(OneRowPerEnumerator(kActivationFns, EnumCount(ActivationFn::kLast)),
              "one row per ActivationFn, in order");

}  // namespace

EnumTable<ActivationFnInfo> TableOf(ActivationFn) { return TableFrom(kActivationFns); }

}  // namespace llmmem::core
