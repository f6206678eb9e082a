#include "core/config/runtime.h"

namespace llmmem::core {
namespace {

// Sources, as read for issue 16 (commits of the public index where a file was read there).
constexpr RuntimeInfo kRuntimes[] = {
    {Runtime::kHfGenerate, "hf-generate", "", "HF generate (default)",
     "transformers model.generate(): weights, a dynamic KV cache of batch x seq tokens (or a static cache "
     "preallocated for max_cache_len tokens), one layer's prefill workspace and the last position's fp32 logits",
     "transformers generation/utils.py and cache_utils.py DynamicLayer (torch.cat per step), StaticLayer "
     "(preallocated, written in place)"},
    {Runtime::kVllm, "vllm", "", "vLLM",
     "gpu_memory_utilization x total memory, less the weights, the profiled activation peak at "
     "max_num_batched_tokens and non-torch memory, becomes a KV pool of 16-token blocks; CUDA graphs and the "
     "CUDA context live outside that share",
     "vllm-project/vllm v1/worker/gpu_worker.py@0012cf69 determine_available_memory; "
     "v1/core/kv_cache_utils.py@001cabc1 get_num_blocks, get_max_concurrency_for_kv_cache_config; "
     "v1/kv_cache_interface.py@001cabc1 AttentionSpec.page_size_bytes, FullAttentionSpec.max_memory_usage_bytes; "
     "engine/arg_utils.py get_batch_defaults"},
    {Runtime::kSglang, "sglang", "", "SGLang",
     "mem_fraction_static of the free memory holds the weights and the token pool (KV of max_total_num_tokens); "
     "activations and CUDA graphs use the rest",
     "sgl-project/sglang srt/model_executor/model_runner.py profile_max_num_token (rest = available - total x "
     "(1 - mem_fraction_static); tokens = rest // cell_size); srt/server_args.py _handle_gpu_memory_settings "
     "(PR #10975: chunked_prefill_size, cuda_graph_max_bs and reserved memory by GPU size)"},
    {Runtime::kLlamaCpp, "llama.cpp", "llamacpp llama-cpp llama-server", "llama.cpp (llama-server)",
     "GGUF weights of the last -ngl layers (and the output layer past n_layer) on the GPU, the rest mmapped in "
     "system RAM; KV cells n_ctx (padded to 256) with -ctk/-ctv types beside their layers; ggml compute buffers "
     "for n_ubatch tokens; the logits output buffer in host memory",
     "ggml-org/llama.cpp src/llama-model.cpp load_tensors (i_gpu_start = n_layer - n_gpu_layers, output on the GPU "
     "when n_gpu_layers > n_layer, token embeddings on the CPU); src/llama-context.cpp (n_ctx = GGML_PAD(n_ctx, 256), "
     "graph_reserve(n_ubatch, ..., n_outputs = n_ubatch), output_reserve(n_seq_max): n_vocab x 4 B per sequence); "
     "src/llama-kv-cache.cpp (per layer ggml_row_size(type_k, n_embd_k_gqa) x kv_size); common/common.h defaults "
     "(n_batch 2048, n_ubatch 512, cache f16); calibrated on ggml-ci's V100 logs (build 4210, e90688ed)"},
    {Runtime::kOllama, "ollama", "", "Ollama",
     "llama-server as Ollama launches it: -c num_ctx x OLLAMA_NUM_PARALLEL, -np OLLAMA_NUM_PARALLEL (1), "
     "cache types from OLLAMA_KV_CACHE_TYPE (f16), num_batch 512; default num_ctx 4096/32768/262144 by total VRAM "
     "(< 23, < 47, >= 47 GiB)",
     "ollama/ollama@fb307609 llm/llama_server.go startLlamaServer; server/routes.go (VRAM-tiered defaultNumCtx); "
     "envconfig/config.go (OLLAMA_NUM_PARALLEL 1, OLLAMA_KV_CACHE_TYPE, OLLAMA_FLASH_ATTENTION); api/types.go "
     "(NumBatch 512); fs/ggml/ggml.go GraphSize (Ollama's own graph estimate)"},
};
static_assert(OneRowPerEnumerator(kRuntimes, EnumCount(Runtime::kLast)), "one row per Runtime, in order");

}  // namespace

EnumTable<RuntimeInfo> TableOf(Runtime) { return TableFrom(kRuntimes); }

}  // namespace llmmem::core
