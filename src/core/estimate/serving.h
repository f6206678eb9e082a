// Serving (issue 16): each runtime's settings with its defaults applied, its own rules
// (what it refuses to start with), and the report people ask for beside the memory
// breakdown: vLLM's KV blocks and "maximum concurrency for N tokens per request", SGLang's
// token pool, llama.cpp's layers on the GPU and the RAM the rest needs. The numbers come
// from the same plan the accounting uses (account_serving.h PlanServing), so the report and
// the breakdown cannot disagree. Standard library and core only; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/runtime_rules.h"
#include "core/base/report_line.h"
#include "core/base/diagnostics.h"

namespace llmmem::core {

struct Gpu;

// Every runtime setting with its default applied: what the runtime would run with.
struct ServingSettings {
  Runtime runtime = Runtime::kHfGenerate;
  double total_bytes = 0;  // one GPU's memory as the runtime reads it (gpu_memory_gb)
  // vLLM / SGLang.
  double mem_fraction = 0;     // gpu_memory_utilization (vLLM) or mem_fraction_static (SGLang)
  int64_t batched_tokens = 0;  // max_num_batched_tokens (vLLM) / chunked_prefill_size (SGLang)
  int64_t max_num_seqs = 0;    // max_num_seqs (vLLM) / cuda_graph_max_bs (SGLang)
  bool cuda_graphs = true;
  int64_t graph_sizes = 0;         // CUDA graphs captured (batch sizes)
  int64_t graph_max_tokens = 0;    // the largest captured batch
  double sglang_reserved_mib = 0;  // SGLang's reserved memory behind its default mem_fraction_static
  // llama.cpp / Ollama.
  int64_t n_ctx = 0;               // KV cells: seq x slots, padded to 256 (-c)
  int64_t slots = 1;               // -np: parallel sequences, n_ctx / slots cells each
  int64_t n_ubatch = 512;          // tokens per compute graph (-ub)
  int64_t gpu_layers = 0;          // -ngl resolved: 0 .. layers + 1 (the output layer counts as one)
  Dtype k_type = Dtype::kFp16;     // -ctk
  Dtype v_type = Dtype::kFp16;     // -ctv
  int64_t ollama_default_ctx = 0;  // the num_ctx Ollama picks for this GPU's VRAM
};

ServingSettings ResolveServing(const Config& c);
// One GPU's memory as the runtime sees it: gpu_memory_gb, or for a catalogue card at its
// reported size under a serving runtime, the total CUDA reports (gpus.json cuda_bytes).
double ServingTotalBytes(const Config& c, int pipeline_stage = 0);



// The host RAM llama.cpp / Ollama need with the first GPU: the layers left on the CPU
// (mmapped), their KV cache and the host compute and output buffers. 0 for other runtimes.
double HostRamBytes(const Config& c);


// The memory the verdict compares against under the runtime: the GPU's memory, or for
// vLLM/SGLang the share they may fill plus what lives outside it (CUDA context, graphs,
// SGLang's activations), never more than the GPU's memory.
double ServingCapacityBytes(const Config& c, int pipeline_stage);

// One line of the report: a label, a value in words, and where it comes from.
using ServingLine = ReportLine;

struct ServingReport {
  bool ok = false;  // false: the config has errors, or hf-generate (no report)
  Runtime runtime = Runtime::kHfGenerate;
  ServingSettings settings;
  // vLLM / SGLang.
  double budget_bytes = 0;        // mem_fraction x memory (SGLang: x the free memory)
  double kv_available_bytes = 0;  // what the budget leaves for the KV pool
  int64_t blocks = 0;             // vLLM: KV blocks; SGLang: pool tokens
  int64_t pool_tokens = 0;        // tokens the pool holds (all requests together)
  double block_bytes = 0;         // vLLM: one block on this GPU, all its layers; SGLang: one token
  double max_concurrency = 0;     // requests of `seq` tokens the pool holds at once
  int64_t max_model_len = 0;      // the longest max_model_len that still starts (vLLM estimate_max_model_len)
  // llama.cpp / Ollama.
  int64_t gpu_layers = 0;           // layers (and output) on the GPUs
  double gpu_bytes = 0;             // on the estimated GPU
  double ram_bytes = 0;             // in system RAM: mmapped weights, CPU KV, host buffers
  double kv_bytes = 0;              // whole KV cache (all devices)
  double compute_buffer_bytes = 0;  // on the estimated GPU
  double host_buffer_bytes = 0;     // host compute + output buffers
  double host_compute_bytes = 0;    // of which the host compute buffer
  double output_buffer_bytes = 0;   // of which the logits output buffer
  bool ram_fits = true;             // ram_gb == 0 or ram_bytes <= ram_gb
  std::vector<ServingLine> lines;   // the report in words, in order
};

ServingReport Serve(const Config& c);

}  // namespace llmmem::core
