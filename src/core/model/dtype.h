// Number formats for weights, gradients, optimizer states and the KV cache, and their
// storage cost in bits per element, including the scales and zero points that
// quantised formats store beside the values.
// Sources: IEEE 754 / bfloat16 (plain widths); Dettmers et al. 2023, QLoRA §2 (NF4 with
// double quantisation); Frantar et al. 2023, GPTQ and Lin et al. 2024, AWQ (group-wise
// fp16 scales, packed zero points); llama.cpp ggml-common.h block structs (GGUF types);
// llama.cpp tools/quantize table for the mixed _S/_M/_L recipes.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/enum_table.h"

namespace llmmem::core {

enum class Dtype : uint8_t {
  kFp32,
  kFp16,
  kBf16,
  kFp8,
  kInt8,
  kInt4,
  kNf4,
  kGptq,
  kAwq,
  kMxfp4,  // OCP MX FP4: 32 E2M1 values + one E8M0 scale per block (gpt-oss experts)
  kNvfp4,  // NVIDIA NVFP4: 16 E2M1 values + one E4M3 scale per block (+ a per-tensor fp32 scale)
  // GGUF block types (exact bits per weight from the block layout).
  kQ8_0,
  kQ6_K,
  kQ5_K,
  kQ5_0,
  kQ5_1,
  kQ4_K,
  kQ4_0,
  kQ4_1,
  kQ3_K,
  kQ2_K,
  kIQ4_XS,
  kIQ4_NL,
  kIQ3_S,
  kIQ3_XXS,
  kIQ2_S,
  kIQ2_XS,
  kIQ2_XXS,
  kIQ1_M,
  kIQ1_S,
  // GGUF file recipes mixing block types (typical bits per weight of a whole file).
  kQ6_K_File,
  kQ5_K_M,
  kQ5_K_S,
  kQ4_K_M,
  kQ4_K_S,
  kQ3_K_L,
  kQ3_K_M,
  kQ3_K_S,
  kQ2_K_File,
  kCount
};

struct DtypeInfo {
  Dtype value;
  const char* id;       // stable name in configs, URLs and the CLI: "bf16", "q4_k_m"
  const char* aliases;  // other spellings accepted, space-separated: "bfloat16"
  const char* label;    // shown in the UI
  double bits;          // bits per element before group constants (fixed formats: exact)
  bool trainable;       // may hold trainable weights, gradients or optimizer states
  const char* source;   // where the bit count comes from
};

// Info, Id, ParseId ("bf16", "Q4_K_M", "bfloat16"; case-insensitive), IdList: enum_table.h.
EnumTable<DtypeInfo> TableOf(Dtype);

// fp32, fp16 or bf16: what a layer stack runs in, what LoRA adapters are stored as, an
// unquantised cache.
inline bool IsPlainFloat(Dtype d) { return d == Dtype::kFp32 || d == Dtype::kFp16 || d == Dtype::kBf16; }
inline bool IsPlainFloatRow(const DtypeInfo& row) { return IsPlainFloat(row.value); }
// The GGUF block types and file recipes (llama.cpp's formats).
inline bool IsGguf(Dtype d) { return d >= Dtype::kQ8_0 && d < Dtype::kCount; }
// The formats torch.autocast runs matmuls in on a GPU (the autocast setting).
inline bool IsAutocastFormat(Dtype d) { return d == Dtype::kFp16 || d == Dtype::kBf16; }
inline bool IsAutocastFormatRow(const DtypeInfo& row) { return IsAutocastFormat(row.value); }

// Group-quantisation settings that change the storage cost of some formats.
struct QuantOptions {
  int64_t group_size = 128;      // GPTQ / AWQ: weights per fp16 scale (and zero point)
  int64_t gptq_bits = 4;         // GPTQ / AWQ value width: 2, 3, 4 or 8
  bool nf4_double_quant = true;  // QLoRA double quantisation of the NF4 block constants
};

// Bits stored per weight, constants included.
//  NF4: 4 + 8/64 + 32/(64*256) with double quantisation (QLoRA §2: 0.127 bits of
//       constants), 4 + 32/64 without.
//  GPTQ/AWQ: b + 16/g (fp16 scale) + b/g (packed zero point).
//  int8 (bitsandbytes LLM.int8) keeps one fp32 scale per output row: counted per matrix
//  by the caller, not here.
double BitsPerWeight(Dtype d, const QuantOptions& q);
// A short formula for the bits above, with the values substituted.
std::string BitsPerWeightFormula(Dtype d, const QuantOptions& q);
// Every parameter stored in `d`: the Hugging Face Model Memory Calculator's per-precision
// size (seed 002's table, M6) and the P x Q/8 of the quick rule. Real quantised
// checkpoints keep some tensors in 16 bits; the estimate's weight lines count those.
inline double NaiveModelBytes(double params, Dtype d, const QuantOptions& q) {
  return params * BitsPerWeight(d, q) / 8.0;
}

}  // namespace llmmem::core
