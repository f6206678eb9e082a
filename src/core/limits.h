// The documented range of every numeric input. Validation, the CLI's --help, the UI's
// tooltips and the URL parser all read this one table.
#pragma once

#include <cstdint>

namespace llmmem::core {

struct FieldLimit {
  const char* field;  // name in JSON, URL and CLI (model fields without "model.")
  double min;
  double max;
  const char* help;
};

// Largest model the calculator accepts: 100 trillion parameters (about 5x beyond
// anything published); keeps every byte count far inside double's exact range.
constexpr double kMaxParams = 1e14;

inline constexpr FieldLimit kFieldLimits[] = {
    {"vocab", 1, 10'000'000, "vocabulary size V"},
    {"hidden", 1, 1'048'576, "hidden size h"},
    {"layers", 1, 16'384, "transformer layers L"},
    {"heads", 1, 65'536, "attention heads a"},
    {"kv_heads", 1, 65'536, "key/value heads (GQA/MQA); must divide heads"},
    {"head_dim", 1, 65'536, "dimension of one head (follows hidden / heads unless given)"},
    {"ffn", 1, 16'777'216, "MLP intermediate size f"},
    {"learned_positions", 0, 16'777'216, "rows of a learned position-embedding table (0: none)"},
    {"type_vocab", 0, 1024, "token-type embeddings (BERT)"},
    {"norms_per_layer", 1, 8, "norms per layer: 1 parallel, 2 pre-norm, 4 sandwich (Gemma 2/3)"},
    {"experts", 0, 16'384, "routed experts per MoE layer (0: dense)"},
    {"experts_per_token", 0, 1024, "experts each token is routed to (top-k)"},
    {"moe_ffn", 0, 16'777'216, "intermediate size of one routed expert"},
    {"shared_experts", 0, 1024, "always-active shared experts"},
    {"shared_ffn", 0, 16'777'216, "intermediate size of one shared expert"},
    {"dense_layers", 0, 16'384, "first layers that keep a dense MLP"},
    {"q_lora_rank", 0, 1'048'576, "MLA query bottleneck rank (0: none)"},
    {"kv_lora_rank", 0, 1'048'576, "MLA KV latent rank (0: not MLA)"},
    {"qk_nope_dim", 0, 65'536, "MLA per-head non-rotary width"},
    {"qk_rope_dim", 0, 65'536, "MLA rotary key width"},
    {"v_head_dim", 0, 65'536, "MLA per-head V width"},
    {"sliding_window", 0, 16'777'216, "sliding-window size in tokens (0: none)"},
    {"sliding_layers", 0, 16'384, "layers that use the sliding window"},
    {"max_positions", 0, 16'777'216, "the context length the model was trained for (0: unknown)"},
    {"params_override", 0, kMaxParams, "given parameter total for the model states (0: count the architecture)"},
    {"batch", 1, 1'048'576, "micro-batch (inference: concurrent sequences)"},
    {"seq", 1, 16'777'216, "sequence length in tokens"},
    {"grad_accum", 1, 1'048'576, "micro-batches per optimizer step"},
    {"tp", 1, 1024, "tensor-parallel size"},
    {"dp", 1, 1'048'576, "data-parallel replicas"},
    {"zero", 0, 3, "ZeRO stage / FSDP sharding: 0 none, 1 optimizer, 2 + gradients, 3 + parameters"},
    {"zero_group", 0, 1'048'576, "GPUs one ZeRO/FSDP shard spans (0: all data-parallel GPUs)"},
    {"pp", 1, 1024, "pipeline stages"},
    {"vpp", 1, 128, "virtual stages per pipeline rank (interleaved schedule)"},
    {"cp", 1, 1024, "context-parallel size"},
    {"ep", 1, 16'384, "expert-parallel size"},
    {"reduce_bucket", 0, 1e11, "DeepSpeed reduce_bucket_size, elements"},
    {"allgather_bucket", 0, 1e11, "DeepSpeed allgather_bucket_size, elements"},
    {"prefetch_bucket", 0, 1e11, "DeepSpeed stage3_prefetch_bucket_size, elements"},
    {"lora_rank", 1, 65'536, "LoRA rank r"},
    {"prefill_chunk", 0, 16'777'216, "tokens per prefill forward (vLLM max_num_batched_tokens); 0: all prompts at once"},
    {"max_cache_len", 0, 16'777'216, "HF generate's static cache, tokens per sequence (0: the dynamic cache)"},
    {"mem_fraction", 0, 1, "vLLM gpu_memory_utilization / SGLang mem_fraction_static (0: the runtime's default)"},
    {"max_num_seqs", 0, 1'048'576, "vLLM max_num_seqs / SGLang cuda_graph_max_bs (0: the runtime's default)"},
    {"gpu_layers", -1, 16'385, "llama.cpp -ngl: layers on the GPU, layers + 1 with the output layer (-1: all)"},
    {"ram_gb", 0, 1'000'000, "system RAM for offloaded weights and KV cache, GB (0: not checked)"},
    {"bw_efficiency", 0.01, 1, "share of the memory bandwidth a decode step reads at"},
    {"mfu", 0.01, 1, "share of the dense peak the matrix units sustain"},
    {"bandwidth_gbps", 0, 1'000'000, "one GPU's memory bandwidth, GB/s (0: the catalogue's)"},
    {"tflops", 0, 1'000'000, "one GPU's dense peak, TFLOPS (0: the catalogue's)"},
    {"ram_bandwidth_gbps", 0, 100'000, "system RAM bandwidth, GB/s"},
    {"gptq_bits", 2, 8, "GPTQ/AWQ bits per weight"},
    {"group_size", 1, 1'048'576, "GPTQ/AWQ weights per scale"},
    {"cuda_context_gb", 0, 100, "CUDA context and library workspaces, GB"},
    {"fragmentation_pct", 0, 100, "allocator fragmentation reserve, % of the allocated peak"},
    {"comm_buffer_gb", 0, 10'000, "communication buffers, GB"},
    {"other_processes_gb", 0, 100'000, "memory other processes already hold on the GPU (a shared card), GB"},
    {"gpu_memory_gb", 0.001, 100'000, "usable memory of one GPU, GB"},
};

// nullptr when the field has no numeric limit.
const FieldLimit* FindLimit(const char* field);

}  // namespace llmmem::core
