#include "core/config/runtime_rules.h"

#include <algorithm>
#include <string>

#include "core/base/units.h"
#include "core/catalogue/gpus.h"

namespace llmmem::core {

std::vector<const Gpu*> GpuSet(const Config& c) {
  std::vector<const Gpu*> out;
  size_t at = 0;
  while (!c.gpu_set.empty() && at <= c.gpu_set.size()) {
    const size_t comma = std::min(c.gpu_set.find(',', at), c.gpu_set.size());
    const Gpu* g = FindGpu(c.gpu_set.substr(at, comma - at));
    if (g == nullptr) return {};
    out.push_back(g);
    at = comma + 1;
  }
  return out;
}

// [SECTION] Rules: what a runtime refuses -------------------------------------------------

bool RuntimeKvFormat(Runtime r, Dtype d) {
  switch (r) {
    case Runtime::kLlamaCpp:
    case Runtime::kOllama:  // common/arg.cpp kv_cache_types
      return d == Dtype::kFp32 || d == Dtype::kFp16 || d == Dtype::kBf16 || d == Dtype::kQ8_0 || d == Dtype::kQ4_0 ||
             d == Dtype::kQ4_1 || d == Dtype::kQ5_0 || d == Dtype::kQ5_1 || d == Dtype::kIQ4_NL;
    case Runtime::kVllm:  // --kv-cache-dtype auto | fp8 (e4m3, e5m2)
    case Runtime::kSglang:
      return d == Dtype::kFp32 || d == Dtype::kFp16 || d == Dtype::kBf16 || d == Dtype::kFp8;
    case Runtime::kHfGenerate:
      return true;
  }
  return true;
}

bool CheckRuntime(const Config& c, Diagnostics* out) {
  bool ok = true;
  auto error = [&](const char* field, const std::string& message) {
    ok = false;
    if (out) out->push_back({DiagId::kInconsistent, Severity::kError, field, message});
  };
  if (c.runtime == Runtime::kHfGenerate) {
    if (c.kv_dtype_v != Dtype::kCount && c.kv_dtype_v != c.kv_dtype && out) {
      out->push_back({DiagId::kIgnoredSetting, Severity::kInfo, "kv_dtype_v",
                      "a separate V cache format is a llama.cpp setting (-ctv); transformers keeps K and V alike"});
    }
    // The static cache writes position p at index p of its preallocated tensors: a longer
    // sequence overruns it (transformers raises; cache_utils.py StaticLayer.update).
    if (c.mode == Mode::kInference && c.max_cache_len > 0 && c.max_cache_len < c.seq) {
      error("max_cache_len", "the static cache holds " + FormatCount(c.max_cache_len) +
                                 " tokens per sequence; a sequence of " + FormatCount(c.seq) +
                                 " tokens does not fit in it (raise max_cache_len, or 0 for the dynamic cache)");
      return false;
    }
    if (c.mode != Mode::kInference && c.max_cache_len > 0 && out) {
      out->push_back({DiagId::kIgnoredSetting, Severity::kInfo, "max_cache_len",
                      "the static KV cache is a setting of inference (HF generate)"});
    }
    return true;
  }
  if (c.max_cache_len > 0 && out) {
    out->push_back(
        {DiagId::kIgnoredSetting, Severity::kInfo, "max_cache_len",
         std::string("max_cache_len is HF generate's static cache; ") + Id(c.runtime) + " allocates its own"});
  }
  if (c.mode != Mode::kInference) {
    if (out) {
      out->push_back({DiagId::kIgnoredSetting, Severity::kInfo, "runtime",
                      std::string("the serving runtime (") + Id(c.runtime) + ") applies to inference only"});
    }
    return true;
  }
  const char* id = Id(c.runtime);
  if (!RuntimeKvFormat(c.runtime, c.kv_dtype)) {
    error("kv_dtype", std::string(id) + " does not store a KV cache in " + Info(c.kv_dtype).id +
                          (IsGgml(c.runtime) ? "; -ctk takes f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl"
                                             : "; --kv-cache-dtype takes auto (the model's 16 bits) or fp8"));
  }
  if (!RuntimeKvFormat(c.runtime, KvDtypeV(c))) {
    error("kv_dtype_v", std::string(id) + " does not store a V cache in " + Info(KvDtypeV(c)).id);
  }
  if (IsPagedServer(c.runtime) && c.kv_dtype_v != Dtype::kCount && c.kv_dtype_v != c.kv_dtype) {
    error("kv_dtype_v", std::string(id) + " keeps K and V in one format (--kv-cache-dtype)");
  }
  if (!c.gpu_set.empty()) {
    const size_t n = GpuSet(c).size();
    if (n == 0)
      error("gpu_set", "gpu_set names a GPU that is not in the catalogue");
    else if (static_cast<int64_t>(n) != c.pp) {
      error("gpu_set", "gpu_set has " + std::to_string(n) + " GPUs but pp is " + std::to_string(c.pp) +
                           ": one pipeline stage per GPU");
    } else if (!IsGgml(c.runtime) && out) {
      out->push_back(
          {DiagId::kIgnoredSetting, Severity::kInfo, "gpu_set",
           "a set of unlike GPUs is modelled for llama.cpp's layer split; the other runtimes size every GPU as gpu"});
    }
  }
  if (IsGgml(c.runtime)) {
    const Dtype v = KvDtypeV(c);
    const bool v_quantised = !IsPlainFloat(v);
    if (v_quantised && !c.flash_attn) {
      // llama-context.cpp: "V cache quantization requires flash_attn"
      error("kv_dtype_v", std::string(id) +
                              " needs flash attention for a quantised V cache (-fa on; llama_init_from_model "
                              "refuses \"V cache quantization requires flash_attn\")");
    }
    if (c.tp > 1) {
      error("tp", std::string(id) +
                      " splits layers over GPUs (--split-mode layer, its default): use pp for the number of "
                      "GPUs; row split is not modelled");
    }
    if (c.dtype == Dtype::kNf4 || c.dtype == Dtype::kGptq || c.dtype == Dtype::kAwq) {
      error("dtype", std::string(id) + " loads GGUF files: choose a GGUF type (q4_k_m, q8_0, ...) or f16/bf16/f32");
    }
  }
  if (RuntimePathUnchecked(c) && out) {
    out->push_back({DiagId::kNotCounted, Severity::kWarning, "dtype",
                    std::string(id) +
                        " runs GGUF checkpoints only experimentally and how it allocates for them is not modelled, "
                        "so the verdict cannot say it fits; AWQ, GPTQ or fp8 checkpoints are its usual quantised "
                        "formats"});
  }
  if (out && c.runtime == Runtime::kVllm && c.batch > 1 && c.max_num_seqs > 0 && c.batch > c.max_num_seqs) {
    out->push_back({DiagId::kInconsistent, Severity::kWarning, "batch",
                    "vLLM runs at most max_num_seqs (" + std::to_string(c.max_num_seqs) + ") requests at once"});
  }
  return ok;
}

bool RuntimePathUnchecked(const Config& c) {
  return UsesServingRuntime(c) && IsPagedServer(c.runtime) && IsGguf(c.dtype);
}

}  // namespace llmmem::core
