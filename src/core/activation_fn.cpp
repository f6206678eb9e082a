// Counts from transformers/src/transformers/activations.py (the expressions each class
// evaluates) and PyTorch's tools/autograd/derivatives.yaml (what each op's backward
// saves): mul by a Python scalar keeps nothing, mul of two tensors keeps both, pow keeps
// its input, tanh/sigmoid/relu keep their result, silu/gelu keep their input.
#include "core/activation_fn.h"

#include <cstring>

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
    {ActivationFn::kGeluFast, "gelu_fast", "", 7, false,
     "MulBackward0 x3 (both factors each), TanhBackward0 (result)"},
    // x*sigmoid(1.702x): sigmoid keeps its result, the product x and the sigmoid.
    {ActivationFn::kQuickGelu, "quick_gelu", "", 2, false, "SigmoidBackward0 (result), MulBackward0 (x)"},
    {ActivationFn::kRelu, "relu", "", 0, true, "ReluBackward0 (result)"},
};

bool InList(const char* list, const std::string& id) {
  const size_t n = id.size();
  for (const char* p = list; *p != '\0';) {
    const char* end = std::strchr(p, ' ');
    const size_t len = end ? static_cast<size_t>(end - p) : std::strlen(p);
    if (len == n && id.compare(0, n, p, len) == 0) return true;
    if (end == nullptr) break;
    p = end + 1;
  }
  return false;
}

}  // namespace

const ActivationFnInfo& Info(ActivationFn f) {
  for (const ActivationFnInfo& i : kActivationFns) {
    if (i.fn == f) return i;
  }
  return kActivationFns[0];
}

const char* ActivationFnId(ActivationFn f) { return Info(f).id; }

bool ParseActivationFn(const std::string& id, ActivationFn& out) {
  for (const ActivationFnInfo& i : kActivationFns) {
    if (id == i.id || InList(i.aliases, id)) {
      out = i.fn;
      return true;
    }
  }
  return false;
}

std::string ActivationFnIdList() {
  std::string s;
  for (const ActivationFnInfo& i : kActivationFns) s += (s.empty() ? "" : ", ") + std::string(i.id);
  return s;
}

}  // namespace llmmem::core
