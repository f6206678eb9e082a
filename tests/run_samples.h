// Start-up logs quoted from public issues and pull requests (each names its source), for the
// run readers' tests (test_run_log.cpp) and the CLI test. Whole lines as pasted; only lines
// unrelated to memory were left out where noted.
#pragma once

namespace llmmem::test::run_samples {

// vLLM v0 engine, TP=2 on L40S (Qwen2.5-32B-Instruct): https://github.com/vllm-project/vllm/issues/15815
// (2025-04-02, worker.py:266 / executor_base.py:108: v0.7.x-v0.8.x). The concurrency line after it is cut
// in the paste and left out.
inline const char* kVllmV0Tp2 =
    "INFO 04-02 10:20:45 model_runner.py:1116] Loading model weights took 30.7098 GB\n"
    "(VllmWorkerProcess pid=3280379) INFO 04-02 10:20:50 model_runner.py:1116] Loading model weights took 30.7098 GB\n"
    "(VllmWorkerProcess pid=3280379) INFO 04-02 10:20:54 worker.py:266] Memory profiling takes 4.44 seconds\n"
    "(VllmWorkerProcess pid=3280379) INFO 04-02 10:20:54 worker.py:266] the current vLLM instance can use "
    "total_gpu_memory (44.42GiB) x gpu_memory_utilization (0.90) = 39.98GiB\n"
    "(VllmWorkerProcess pid=3280379) INFO 04-02 10:20:54 worker.py:266] model weights take 30.71GiB; non_torch_memory "
    "takes 0.30GiB; PyTorch activation peak memory takes 1.26GiB; the rest of the memory reserved for KV Cache is "
    "7.71GiB.\n"
    "INFO 04-02 10:20:55 worker.py:266] Memory profiling takes 4.72 seconds\n"
    "INFO 04-02 10:20:55 worker.py:266] the current vLLM instance can use total_gpu_memory (44.42GiB) x "
    "gpu_memory_utilization (0.90) = 39.98GiB\n"
    "INFO 04-02 10:20:55 worker.py:266] model weights take 30.71GiB; non_torch_memory takes 0.30GiB; PyTorch "
    "activation peak memory takes 1.26GiB; the rest of the memory reserved for KV Cache is 7.71GiB.\n"
    "INFO 04-02 10:20:55 executor_base.py:108] # CUDA blocks: 3947, # CPU blocks: 2048\n";

// vLLM v0.6.5's profile table, Meta-Llama-3-8B on one H100-80G:
// https://github.com/vllm-project/vllm/pull/10511 (youkaichao's sanity check, 2024-12-14).
inline const char* kVllmTable =
    "INFO 12-13 19:54:18 worker.py:243] Memory profiling results:\n"
    "INFO 12-13 19:54:18 worker.py:243] duration     0.75 seconds\n"
    "INFO 12-13 19:54:18 worker.py:243] total_gpu_memory     79.22GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] gpu_memory_utilization       0.90\n"
    "INFO 12-13 19:54:18 worker.py:243] the current vLLM instance can use    71.29GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] non_torch_memory     1.79GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] PyTorch activation peak memory       1.26GiB\n"
    "INFO 12-13 19:54:18 worker.py:243] available_kv_cache_memory    53.29GiB\n";

// vLLM v1 (v0.8.5), Llama-3.1-8B-Instruct on one L40S: https://github.com/vllm-project/vllm/pull/17122
// ("Before this change" block; its torch.compile lines left out).
inline const char* kVllmV1 =
    "INFO 04-24 16:32:59 [loader.py:458] Loading weights took 2.95 seconds\n"
    "INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and 3.652170 seconds\n"
    "INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens\n"
    "INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: 4.84x\n";

// vLLM's v1 worker after graph capture (google/gemma-3-4b-it, `vllm bench latency`):
// https://github.com/vllm-project/vllm/pull/21489 (the line that PR adds, cut after its first suggestion).
inline const char* kVllmUsage =
    "Free memory on device (177.66/178.36 GiB) on startup. Desired GPU memory utilization is (0.9, 160.53 GiB). "
    "Actual usage is 8.58 GiB for weight, 9.96 GiB for peak activation, 0.07 GiB for non-torch memory, and 0.65 GiB "
    "for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory=151519866880` to fit into "
    "requested memory,\n";

// Qwen3-235B-A22B-FP8 on 4xH100 under vLLM and SGLang: https://github.com/vllm-project/vllm/issues/21348.
inline const char* kVllmAndSglang21348 =
    "Available KV cache memory: 8.11 GiB\n"
    "GPU KV cache size: 178,880 tokens\n"
    "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n";

// SGLang, TP=2: https://github.com/sgl-project/sglang/pull/12978 (graph capture), and the scheduler's line
// from https://github.com/sgl-project/sglang/issues/29575.
inline const char* kSglang =
    "[2025-11-10 19:59:08 TP0] Registering 3492 cuda graph addresses\n"
    "[2025-11-10 19:59:09 TP1] Capture cuda graph end. Time elapsed: 11.35 s. mem usage=1.04 GB. avail mem=11.22 GB.\n"
    "[2025-11-10 19:59:09 TP0] Capture cuda graph end. Time elapsed: 11.39 s. mem usage=1.00 GB. avail mem=11.17 GB.\n"
    "[2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384, "
    "max_running_requests=33, context_len=256000, available_gpu_mem=17.22 GB\n";

// llama-server (mid-2024, llm_load_tensors / llama_new_context_with_model), two GPUs and the CPU:
// https://github.com/ggml-org/llama.cpp/pull/8035 (matteoserva's server log).
inline const char* kLlamaCppTwoGpus =
    "llm_load_tensors: ggml ctx size =    1.01 MiB\n"
    "llm_load_tensors: offloading 78 repeating layers to GPU\n"
    "llm_load_tensors: offloaded 78/81 layers to GPU\n"
    "llm_load_tensors:        CPU buffer size = 22994.45 MiB\n"
    "llm_load_tensors:      CUDA0 buffer size = 12633.25 MiB\n"
    "llm_load_tensors:      CUDA1 buffer size =  8652.00 MiB\n"
    "llama_new_context_with_model: n_ctx      = 8192\n"
    "llama_new_context_with_model: n_batch    = 2048\n"
    "llama_new_context_with_model: n_ubatch   = 512\n"
    "llama_kv_cache_init:  CUDA_Host KV buffer size =    64.00 MiB\n"
    "llama_kv_cache_init:      CUDA0 KV buffer size =  1472.00 MiB\n"
    "llama_kv_cache_init:      CUDA1 KV buffer size =  1024.00 MiB\n"
    "llama_new_context_with_model: KV self size  = 2560.00 MiB, K (f16): 1280.00 MiB, V (f16): 1280.00 MiB\n"
    "llama_new_context_with_model:  CUDA_Host  output buffer size =     0.98 MiB\n"
    "llama_new_context_with_model:      CUDA0 compute buffer size =  1108.50 MiB\n";

// llama.cpp b4500s+ load_tensors (Ollama's runner, one GPU): https://github.com/ollama/ollama/issues/10114.
inline const char* kLlamaCppLoadTensors =
    "load_tensors: offloading output layer to GPU\n"
    "load_tensors: offloaded 25/25 layers to GPU\n"
    "load_tensors:        CUDA0 model buffer size =   577.22 MiB\n"
    "load_tensors:   CPU_Mapped model buffer size =   520.30 MiB\n"
    "llama_init_from_model: n_ctx         = 32768\n";

// common_memory_breakdown_print in llama-server (Ollama 2026, one RTX 3090):
// https://github.com/ollama/ollama/issues/17482.
inline const char* kLlamaCppBreakdown =
    "common_memory_breakdown_print: | memory breakdown [MiB] | total    free     self   model   context   compute    "
    "unaccounted |\n"
    "common_memory_breakdown_print: |   - CUDA0 (RTX 3090)   | 24124 = 23860 + (15946 = 15364 +     411 +     170) +  "
    "    -15681 |\n"
    "common_memory_breakdown_print: |   - Host               |                    804 =   682 +       0 +     122     "
    "           |\n";

// Ollama's plan before starting the runner (v0.11, journald): https://github.com/ollama/ollama/issues/11819.
inline const char* kOllamaPlan =
    "Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.145+01:00 level=INFO source=server.go:135 "
    "msg=\"system memory\" total=\"30.9 GiB\" free=\"25.4 GiB\" free_swap=\"2.0 GiB\"\n"
    "Aug 08 23:02:37 j-360 ollama[1617]: time=2025-08-08T23:02:37.146+01:00 level=INFO source=server.go:175 "
    "msg=offload library=cuda layers.requested=49 layers.model=49 layers.offload=48 layers.split=\"\" "
    "memory.available=\"[10.9 GiB]\" memory.gpu_overhead=\"0 B\" memory.required.full=\"11.0 GiB\" "
    "memory.required.partial=\"8.5 GiB\" memory.required.kv=\"608.0 MiB\" memory.required.allocations=\"[8.5 GiB]\" "
    "memory.weights.total=\"6.8 GiB\" memory.weights.repeating=\"6.0 GiB\" memory.weights.nonrepeating=\"787.5 MiB\" "
    "memory.graph.full=\"519.5 MiB\" memory.graph.partial=\"1.3 GiB\" projector.weights=\"795.9 MiB\" "
    "projector.graph=\"1.0 GiB\"\n";

// Ollama's own engine, two GPUs: https://github.com/ollama/ollama/pull/11090 (MarkWard0110's log, 2025-07-18).
inline const char* kOllamaEngine =
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:351 msg=\"offloading 40 repeating layers to GPU\"\n"
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:357 msg=\"offloading output layer to GPU\"\n"
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:362 msg=\"offloaded 41/41 layers to GPU\"\n"
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\" buffer=CUDA0 size=\"11.5 GiB\"\n"
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\" buffer=CUDA1 size=\"11.9 GiB\"\n"
    "time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\" buffer=CPU size=\"680.0 MiB\"\n";

}  // namespace llmmem::test::run_samples
