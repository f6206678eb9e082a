// llama.cpp's mixed quantisation recipes (Q4_K_M, Q5_K_S, Q3_K_L...), tensor by tensor: the
// block type llama-quantize gives each tensor, so a file's size follows from the model's
// shape, not from an average measured on one model. Source: llama.cpp src/llama-quant.cpp
// llama_tensor_get_type (use_more_bits, the output, attn_v / attn_qkv, ffn_down and
// attn_output rules, the fallback for rows not a multiple of the block), which a recipe
// starts from its default block type (llama_model_quantize_impl). Standard library only.
#pragma once

#include "core/model/dtype.h"
#include "core/model/model.h"

namespace llmmem::core {

// Whether `d` is one of the mixed file recipes (kQ6_K_File .. kQ2_K_File).
bool IsGgufRecipe(Dtype d);

// Bytes of the tensor family `t` of model `m` in a GGUF file made with `recipe`: its
// matrices by llama.cpp's per-tensor rules (layer by layer where the rule depends on the
// layer), vectors, routers and position tables in fp32 as the converter writes them.
double GgufRecipeTensorBytes(const TensorShape& t, Dtype recipe, const ModelSpec& m);

}  // namespace llmmem::core
