// GGUF files tensor by tensor: the block type llama-quantize gives each tensor, for a plain
// block type (Q4_0, Q8_0, IQ4_XS...) and for the mixed recipes (Q4_K_M, Q5_K_S, Q3_K_L...),
// so a file's size follows from the model's shape, not from an average measured on one
// model. Source: llama.cpp src/llama-quant.cpp llama_tensor_get_type (the output tensor's
// rule, which a tied embedding follows; use_more_bits; the attn_v / attn_qkv, ffn_down and
// attn_output rules of the K recipes; the fallback for rows a block does not divide) and
// llama_model_quantize_impl (what it leaves unquantised). Standard library only.
#pragma once

#include "core/model/dtype.h"
#include "core/model/model.h"

namespace llmmem::core {

// Whether `d` is one of the mixed file recipes (kQ6_K_File .. kQ2_K_File).
inline bool IsGgufRecipe(Dtype d) { return d >= Dtype::kQ6_K_File && d <= Dtype::kQ2_K_File; }

// Bytes of the tensor family `t` of model `m` in a GGUF file of `format` (a GGUF block type
// or recipe): its matrices by llama.cpp's per-tensor rules (layer by layer where a rule
// depends on the layer), vectors, routers and position tables in fp32 as the converter
// writes them.
double GgufTensorBytes(const TensorShape& t, Dtype format, const ModelSpec& m);

}  // namespace llmmem::core
