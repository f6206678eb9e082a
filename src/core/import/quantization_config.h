// A checkpoint's storage format from config.json's quantization_config: one mapping for the
// presets (Preset::shipped_dtype) and the --hf path when no weight header is read.
// transformers utils/quantization_config.py (quant_method; bitsandbytes load_in_4bit/8bit;
// fp8 weight_block_size is DeepSeek-V3's block-wise FP8, same bytes); gpt-oss's "mxfp4";
// NVIDIA ModelOpt's quant_algo (NVFP4, FP8); compressed-tensors' format
// (compressed_tensors/config/base.py CompressionFormat: float-quantized = FP8,
// nvfp4-pack-quantized, int-quantized = INT8 W8A8).
#pragma once

#include "core/parse/json.h"
#include "core/parse/text.h"
#include "core/model/dtype.h"

namespace llmmem::core {

inline bool DtypeFromQuantConfig(const Json& config, Dtype* out) {
  const Json* q = config.Find("quantization_config");
  if (q == nullptr || !q->IsObject()) return false;
  const std::string m = AsciiLower(StringMember(*q, "quant_method"));
  auto set = [&](Dtype d) {
    *out = d;
    return true;
  };
  if (m == "gptq") return set(Dtype::kGptq);
  if (m == "awq") return set(Dtype::kAwq);
  if (m == "fp8" || m == "fbgemm_fp8") return set(Dtype::kFp8);
  if (m == "mxfp4") return set(Dtype::kMxfp4);  // gpt-oss: experts in MXFP4, the rest bf16
  if (m == "modelopt") {
    const std::string algo = AsciiLower(StringMember(*q, "quant_algo"));
    if (algo == "nvfp4") return set(Dtype::kNvfp4);
    if (algo == "fp8") return set(Dtype::kFp8);
  }
  if (m == "compressed-tensors") {
    const std::string format = AsciiLower(StringMember(*q, "format"));
    if (format == "float-quantized" || format == "naive-quantized") return set(Dtype::kFp8);
    if (format == "nvfp4-pack-quantized") return set(Dtype::kNvfp4);
    if (format == "int-quantized") return set(Dtype::kInt8);
  }
  if (m == "bitsandbytes") {
    const Json* four = q->Find("load_in_4bit");
    const Json* eight = q->Find("load_in_8bit");
    if (four != nullptr && four->IsBool() && four->AsBool()) return set(Dtype::kNf4);
    if (eight != nullptr && eight->IsBool() && eight->AsBool()) return set(Dtype::kInt8);
  }
  return false;
}

}  // namespace llmmem::core
