// Every line form the run readers know, with the file that prints it and where the exact
// format was read: the runtime's source at a commit where it could be read (Ollama's at
// tags, one stored vLLM gpu_worker.py), otherwise the lines as pasted in the public issue or
// pull request named (their version printed in the paste or known from the date).
#include <string>
#include <vector>

#include "core/run/run_scan.h"

namespace llmmem::core::run {

const std::vector<LineForm>& LineForms() {
  static const std::vector<LineForm> kForms = {
      // vLLM
      {"vllm_loading_weights", RunSource::kVllm, "Loading model weights took 7.9692 GB",
       "vllm/worker/model_runner.py load_model, v0.4-v0.7.0; pasted in vllm-project/vllm#11550"},
      {"vllm_model_loading", RunSource::kVllm, "Model loading took 14.9889 GiB and 3.652170 seconds",
       "vllm/v1/worker/gpu_model_runner.py load_model (v0 model_runner.py from v0.7.1 prints \"GB\", /2**30); "
       "vllm-project/vllm#17122 (v0.8.5), #14011 (v0, GB); \"12.66 GiB memory and\" in #38820"},
      {"vllm_profile_weights", RunSource::kVllm,
       "model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; "
       "the rest of the memory reserved for KV Cache is 1.57GiB.",
       "vllm/worker/worker.py determine_num_available_blocks, v0.7-v0.10 (v0 engine); vllm-project/vllm#15815, "
       "PR #12126; the v0.6.5 table rows (\"model weights take   14.96GiB\") in PR #10511"},
      {"vllm_profile_non_torch", RunSource::kVllm, "non_torch_memory takes 0.20GiB", "as vllm_profile_weights"},
      {"vllm_profile_activation", RunSource::kVllm, "PyTorch activation peak memory takes 0.37GiB",
       "as vllm_profile_weights"},
      {"vllm_profile_kv", RunSource::kVllm, "the rest of the memory reserved for KV Cache is 1.57GiB",
       "as vllm_profile_weights"},
      {"vllm_can_use", RunSource::kVllm,
       "the current vLLM instance can use total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB",
       "vllm/worker/worker.py, v0.7-v0.10; vllm-project/vllm#15815, PR #14447"},
      {"vllm_profile_table", RunSource::kVllm, "total_gpu_memory     79.22GiB",
       "vllm/worker/worker.py, v0.6.5 (PR #10511's table)"},
      {"vllm_available_kv", RunSource::kVllm, "Available KV cache memory: 8.11 GiB",
       "vllm/v1/worker/gpu_worker.py determine_available_memory, v0.8-v0.11; vllm-project/vllm#21348"},
      {"vllm_blocks", RunSource::kVllm, "# CUDA blocks: 3947, # CPU blocks: 2048",
       "vllm/executor/executor_base.py initialize_cache (\"# GPU blocks\" to v0.6, \"# CUDA blocks\" / \"# cuda "
       "blocks\" from v0.7); vllm-project/vllm#15815, #14452"},
      {"vllm_kv_tokens", RunSource::kVllm, "GPU KV cache size: 158,656 tokens",
       "vllm/v1/core/kv_cache_utils.py, v0.8-v0.11; vllm-project/vllm PR #17122"},
      {"vllm_concurrency", RunSource::kVllm, "Maximum concurrency for 32,768 tokens per request: 4.84x",
       "vllm/v1/core/kv_cache_utils.py and v0 executor_base.py (N is max_model_len); vllm-project/vllm PR #17122, "
       "#15815"},
      {"vllm_graphs", RunSource::kVllm, "Graph capturing finished in 5 secs, took 0.67 GiB",
       "vllm/v1/worker/gpu_model_runner.py capture_model (v0 model_runner.py from v0.6.4, PR #10027)"},
      {"vllm_usage", RunSource::kVllm,
       "Free memory on device (78.66/79.19 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual "
       "usage is 14.08 GiB for weight, 1.97 GiB for peak activation, 0.07 GiB for non-torch memory, and 0.67 GiB for "
       "CUDAGraph memory. ... Current kv cache memory in use is 59212694937 bytes.",
       "vllm/v1/worker/gpu_worker.py compile_or_warm_up_model, v0.10.1+ (vllm-project/vllm PR #21489)"},
      // SGLang
      {"sglang_load_weight", RunSource::kSglang,
       "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=16.00 GB, mem usage=7.08 GB.",
       "python/sglang/srt/model_executor/model_runner.py load_model (mem usage from v0.4.1)"},
      {"sglang_kv_allocated", RunSource::kSglang, "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB",
       "python/sglang/srt/mem_cache/memory_pool.py MHATokenToKVPool (MLA: \"KV size: X GB\"); vllm-project/vllm#21348, "
       "sgl-project/sglang PR #11716"},
      {"sglang_graph_end", RunSource::kSglang,
       "Capture cuda graph end. Time elapsed: 11.39 s. mem usage=1.00 GB. avail mem=11.17 GB.",
       "python/sglang/srt/model_executor/model_runner.py init_cuda_graphs; sgl-project/sglang PR #12978"},
      {"sglang_scheduler", RunSource::kSglang,
       "max_total_num_tokens=298447, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=3730, "
       "context_len=40960, available_gpu_mem=2.82 GB",
       "python/sglang/srt/managers/scheduler.py init_memory_pool_and_cache"},
      // llama.cpp
      {"llama_model_buffer", RunSource::kLlamaCpp, "load_tensors:        CUDA0 model buffer size =   577.22 MiB",
       "src/llama-model.cpp load_tensors (b4500+; \"llm_load_tensors:      CUDA0 buffer size\" before); "
       "ollama/ollama#10114, ggml-org/llama.cpp PR #8035"},
      {"llama_kv_buffer", RunSource::kLlamaCpp, "llama_kv_cache:      CUDA0 KV buffer size =   182.75 MiB",
       "src/llama-kv-cache.cpp (llama_kv_cache_init before b5000s); ggml-org/llama.cpp#27680, PR #8035"},
      {"llama_kv_total", RunSource::kLlamaCpp,
       "llama_kv_cache_unified: size =  256.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  128.00 MiB, V (f16): "
       " 128.00 MiB",
       "src/llama-kv-cache.cpp (\"KV self size  = X MiB, K (f16): ...\" in llama_new_context_with_model before); "
       "ggml-org/llama.cpp#27680, PR #8035"},
      {"llama_compute_buffer", RunSource::kLlamaCpp, "llama_context:      CUDA0 compute buffer size =  1108.50 MiB",
       "src/llama-context.cpp (llama_new_context_with_model before b5000s); ggml-org/llama.cpp PR #8035"},
      {"llama_output_buffer", RunSource::kLlamaCpp, "llama_context:  CUDA_Host  output buffer size =     0.60 MiB",
       "src/llama-context.cpp; ollama/ollama#10740"},
      {"llama_offloaded", RunSource::kLlamaCpp, "load_tensors: offloaded 25/25 layers to GPU",
       "src/llama-model.cpp load_tensors; ollama/ollama#10114"},
      {"llama_memory_breakdown", RunSource::kLlamaCpp,
       "common_memory_breakdown_print: |   - CUDA0 (RTX 3090)   | 24124 = 23860 + (15946 = 15364 +     411 +     170) "
       "+      -15681 |",
       "common/common.cpp common_memory_breakdown_print (llama_memory_breakdown_print in src/llama-context.cpp, "
       "ggml-org/llama.cpp PR #15860, b6400s+); ollama/ollama#17482, PR #16031"},
      // Ollama
      {"ollama_offload_plan", RunSource::kOllama,
       "msg=offload library=cuda layers.requested=-1 layers.model=33 layers.offload=33 memory.required.full=\"5.6 "
       "GiB\" memory.required.kv=\"1.0 GiB\" memory.weights.total=\"3.9 GiB\" memory.graph.full=\"560.0 MiB\"",
       "ollama llm/server.go + llm/memory.go MemoryEstimate.LogValue at v0.6.8 (msg=\"offload to cuda\" before); "
       "Ollama's plan, not an allocation"},
      {"ollama_backend_memory", RunSource::kOllama, "msg=\"model weights\" device=CUDA0 size=\"4.0 GiB\"",
       "ollama ml/device.go BackendMemory.Log at v0.12.11 and v0.33.0-rc2 (also \"kv cache\", \"compute graph\")"},
      {"ollama_offloaded", RunSource::kOllama, "msg=\"offloaded 29/29 layers to GPU\"",
       "ollama ml/backend/ggml/ggml.go at v0.12.11"},
      // torch.cuda.memory_stats()
      {"torch_memory_stats", RunSource::kMemoryStats,
       "{\"allocated_bytes.all.peak\": 17179869184, \"reserved_bytes.all.peak\": ..., \"num_alloc_retries\": 0, ...}",
       "torch/cuda/memory.py memory_stats (pytorch v2.5.0), dumped with json.dumps"},
  };
  return kForms;
}

std::string ExpectedFormsText() {
  std::string out;
  for (const LineForm& f : LineForms()) {
    if (f.id == std::string("vllm_profile_non_torch") || f.id == std::string("vllm_profile_activation") ||
        f.id == std::string("vllm_profile_kv"))
      continue;  // shown with vllm_profile_weights
    out += std::string("- ") + RunSourceName(f.source) + ": " + f.example + "\n";
  }
  return out;
}

}  // namespace llmmem::core::run
