// The format table. GGUF block sizes from llama.cpp ggml/src/ggml-common.h:
// bits = 8 * sizeof(block) / elements per block. Mixed-recipe figures are the file sizes
// llama.cpp's quantize tool reports for Llama-3-8B (8.03e9 weights), turned into bits.
#include "core/model/dtype.h"

#include "core/parse/text.h"
#include <cstdio>

namespace llmmem::core {
namespace {

constexpr const char* kIeee = "IEEE 754 / bfloat16 storage width";
constexpr const char* kGgml = "llama.cpp ggml-common.h block layout";
constexpr const char* kMix =
    "llama.cpp quantize table, Llama-3-8B file size (a typical average: estimates choose each tensor's block "
    "type by llama.cpp's rules, gguf_mix.h)";

// bits for a GGUF recipe from its reported file size in GiB for 8.03e9 weights
constexpr double MixBits(double gib) { return gib * 1073741824.0 * 8.0 / 8.03e9; }

constexpr DtypeInfo kTable[] = {
    // Aliases: the runtimes' own spellings (llama.cpp -ctk f16/f32; vLLM --kv-cache-dtype
    // fp8_e4m3/fp8_e5m2; safetensors F8_E4M3).
    {Dtype::kFp32, "fp32", "float32 f32", "FP32", 32, true, kIeee},
    {Dtype::kFp16, "fp16", "float16 f16 half", "FP16", 16, true, kIeee},
    {Dtype::kBf16, "bf16", "bfloat16", "BF16", 16, true, kIeee},
    {Dtype::kFp8, "fp8", "fp8_e4m3 fp8_e5m2 e4m3 e5m2 f8_e4m3 f8_e5m2 float8_e4m3fn", "FP8 (E4M3/E5M2)", 8, true,
     "OCP FP8 formats, 1 byte"},
    {Dtype::kInt8, "int8", "", "INT8", 8, true, "1 byte per value"},
    {Dtype::kInt4, "int4", "", "INT4 (no constants)", 4, false, "half a byte per value"},
    {Dtype::kNf4, "nf4", "", "NF4 (bitsandbytes, QLoRA)", 4, false, "Dettmers et al. 2023, QLoRA §2"},
    {Dtype::kGptq, "gptq", "", "GPTQ (group-wise)", 4, false, "Frantar et al. 2023; AutoGPTQ packing"},
    {Dtype::kAwq, "awq", "", "AWQ (group-wise)", 4, false, "Lin et al. 2024; AutoAWQ packing"},
    {Dtype::kMxfp4, "mxfp4", "mxfp4_moe", "MXFP4 (experts; rest 16-bit)", 4.25, false,
     "OCP Microscaling Formats v1.0: 32 x 4-bit E2M1 + an 8-bit E8M0 scale = 136 bits per 32 (llama.cpp "
     "block_mxfp4, 17 bytes)"},
    {Dtype::kNvfp4, "nvfp4", "", "NVFP4", 4.5, false,
     "NVIDIA NVFP4 (TensorRT Model Optimizer): 16 x 4-bit E2M1 + an E4M3 scale = 72 bits per 16; the "
     "per-tensor fp32 scale is negligible"},
    {Dtype::kQ8_0, "q8_0", "", "GGUF Q8_0", 34 * 8 / 32.0, false, kGgml},
    {Dtype::kQ6_K, "q6_k", "", "GGUF Q6_K block", 210 * 8 / 256.0, false, kGgml},
    {Dtype::kQ5_K, "q5_k", "", "GGUF Q5_K block", 176 * 8 / 256.0, false, kGgml},
    {Dtype::kQ5_0, "q5_0", "", "GGUF Q5_0", 22 * 8 / 32.0, false, kGgml},
    {Dtype::kQ5_1, "q5_1", "", "GGUF Q5_1", 24 * 8 / 32.0, false, kGgml},
    {Dtype::kQ4_K, "q4_k", "", "GGUF Q4_K block", 144 * 8 / 256.0, false, kGgml},
    {Dtype::kQ4_0, "q4_0", "", "GGUF Q4_0", 18 * 8 / 32.0, false, kGgml},
    {Dtype::kQ4_1, "q4_1", "", "GGUF Q4_1", 20 * 8 / 32.0, false, kGgml},
    {Dtype::kQ3_K, "q3_k", "", "GGUF Q3_K block", 110 * 8 / 256.0, false, kGgml},
    {Dtype::kQ2_K, "q2_k", "", "GGUF Q2_K block", 84 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ4_XS, "iq4_xs", "", "GGUF IQ4_XS", 136 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ4_NL, "iq4_nl", "", "GGUF IQ4_NL", 18 * 8 / 32.0, false, kGgml},
    {Dtype::kIQ3_S, "iq3_s", "", "GGUF IQ3_S", 110 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ3_XXS, "iq3_xxs", "", "GGUF IQ3_XXS", 98 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ2_S, "iq2_s", "", "GGUF IQ2_S", 82 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ2_XS, "iq2_xs", "", "GGUF IQ2_XS", 74 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ2_XXS, "iq2_xxs", "", "GGUF IQ2_XXS", 66 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ1_M, "iq1_m", "", "GGUF IQ1_M", 56 * 8 / 256.0, false, kGgml},
    {Dtype::kIQ1_S, "iq1_s", "", "GGUF IQ1_S", 50 * 8 / 256.0, false, kGgml},
    {Dtype::kQ6_K_File, "q6_k_file", "", "GGUF Q6_K file", MixBits(6.14), false, kMix},
    {Dtype::kQ5_K_M, "q5_k_m", "", "GGUF Q5_K_M file", MixBits(5.33), false, kMix},
    {Dtype::kQ5_K_S, "q5_k_s", "", "GGUF Q5_K_S file", MixBits(5.21), false, kMix},
    {Dtype::kQ4_K_M, "q4_k_m", "", "GGUF Q4_K_M file", MixBits(4.58), false, kMix},
    {Dtype::kQ4_K_S, "q4_k_s", "", "GGUF Q4_K_S file", MixBits(4.37), false, kMix},
    {Dtype::kQ3_K_L, "q3_k_l", "", "GGUF Q3_K_L file", MixBits(4.03), false, kMix},
    {Dtype::kQ3_K_M, "q3_k_m", "", "GGUF Q3_K_M file", MixBits(3.74), false, kMix},
    {Dtype::kQ3_K_S, "q3_k_s", "", "GGUF Q3_K_S file", MixBits(3.41), false, kMix},
    {Dtype::kQ2_K_File, "q2_k_file", "", "GGUF Q2_K file", MixBits(2.96), false, kMix},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(Dtype::kCount), "every Dtype needs a row");

static_assert(OneRowPerEnumerator(kTable, static_cast<size_t>(Dtype::kCount)), "one row per Dtype, in order");

}  // namespace

EnumTable<DtypeInfo> TableOf(Dtype) { return TableFrom(kTable); }

double BitsPerWeight(Dtype d, const QuantOptions& q) {
  switch (d) {
    case Dtype::kNf4:
      // QLoRA §2: blocks of 64 weights, one absmax per block; double quantisation stores
      // that absmax in 8 bits with one fp32 second-level constant per 256 blocks.
      return q.nf4_double_quant ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 4.0 + 32.0 / 64.0;
    case Dtype::kGptq:
    case Dtype::kAwq: {
      double g = static_cast<double>(q.group_size);
      return q.gptq_bits + 16.0 / g + q.gptq_bits / g;
    }
    default:
      return Info(d).bits;
  }
}

std::string BitsPerWeightFormula(Dtype d, const QuantOptions& q) {
  char buf[160];
  switch (d) {
    case Dtype::kNf4:
      if (q.nf4_double_quant) return "4 + 8/64 + 32/(64*256) = 4.127 bits (NF4, double-quantised constants)";
      return "4 + 32/64 = 4.5 bits (NF4, fp32 absmax per 64 weights)";
    case Dtype::kGptq:
    case Dtype::kAwq:
      std::snprintf(buf, sizeof buf,
                    "%lld + 16/%lld + %lld/%lld = %.4g bits (values, fp16 scale and packed zero per group)",
                    static_cast<long long>(q.gptq_bits), static_cast<long long>(q.group_size),
                    static_cast<long long>(q.gptq_bits), static_cast<long long>(q.group_size), BitsPerWeight(d, q));
      return buf;
    default:
      std::snprintf(buf, sizeof buf, "%.4g bits", Info(d).bits);
      return buf;
  }
}

}  // namespace llmmem::core
