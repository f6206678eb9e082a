// The generic reader behind every config.json whose model_type the table does not know
// (hf_config.h ReadGenericConfig). Generic field names: the attribute_map entries of
// transformers' configs (GPT-2 n_embd/n_layer/n_head, T5 d_model/num_layers/d_ff, Falcon
// n_head_kv).
#include <initializer_list>
#include <string>

#include "core/import/hf_config.h"

namespace llmmem::core {
namespace {

int64_t FirstInt(const Json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    const Json* v = j.Find(k);
    if (v != nullptr && v->IsNumber() && v->AsNumber() > 0 && v->AsNumber() < 9e15)
      return static_cast<int64_t>(v->AsNumber());
  }
  return 0;
}

}  // namespace

bool ReadGenericConfig(const Json& config, ModelSpec* m, std::string* missing) {
  const Json* text = config.Find("text_config");
  const Json& j = FirstInt(config, {"hidden_size", "n_embd", "d_model"}) == 0 && text != nullptr && text->IsObject()
                      ? *text
                      : config;
  m->hidden = FirstInt(j, {"hidden_size", "n_embd", "d_model", "dim"});
  m->layers = FirstInt(j, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  m->heads = FirstInt(j, {"num_attention_heads", "n_head", "num_heads", "n_heads"});
  m->kv_heads = FirstInt(j, {"num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num"});
  if (m->kv_heads == 0) m->kv_heads = m->heads;
  m->head_dim = FirstInt(j, {"head_dim", "kv_channels", "d_kv"});
  if (m->head_dim == 0 && m->heads > 0) m->head_dim = m->hidden / m->heads;
  m->ffn = FirstInt(j, {"intermediate_size", "ffn_dim", "d_ff", "n_inner", "ffn_hidden_size"});
  if (m->ffn == 0) m->ffn = 4 * m->hidden;
  m->vocab = FirstInt(j, {"vocab_size", "padded_vocab_size", "n_vocab"});
  if (m->vocab == 0) m->vocab = FirstInt(config, {"vocab_size"});
  m->max_positions = FirstInt(j, {"max_position_embeddings", "n_positions", "seq_length", "max_seq_len"});
  m->experts = FirstInt(j, {"num_local_experts", "num_experts", "n_routed_experts"});
  if (m->experts > 0) {
    m->experts_per_token = FirstInt(j, {"num_experts_per_tok", "moe_top_k", "top_k"});
    m->moe_ffn = FirstInt(j, {"moe_intermediate_size"});
    if (m->moe_ffn == 0) m->moe_ffn = m->ffn;
    if (m->experts_per_token == 0) m->experts_per_token = 1;
  }
  std::string gaps;
  if (m->hidden == 0) gaps += " hidden_size";
  if (m->layers == 0) gaps += " num_hidden_layers";
  if (m->heads == 0) gaps += " num_attention_heads";
  if (missing) *missing = gaps;
  return gaps.empty();
}

}  // namespace llmmem::core
