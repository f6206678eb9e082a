// Serving settings, rules and report (serving.h). The figures come from PlanServing
// (account_serving.h), the same plan the breakdown is built from.
//
// Index
//  [SECTION] Defaults: each runtime's, from its source
//  [SECTION] Rules: what a runtime refuses
//  [SECTION] Capacity
//  [SECTION] Report
#include "core/estimate/serving.h"

#include <algorithm>
#include <cmath>

#include "core/estimate/account_serving.h"
#include "core/estimate/estimate.h"
#include "core/catalogue/gpus.h"
#include "core/base/units.h"

namespace llmmem::core {

// [SECTION] Defaults: each runtime's, from its source ------------------------------------

namespace {

int64_t PadTo(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// vLLM engine/arg_utils.py get_batch_defaults (`vllm serve`, UsageContext.OPENAI_API_SERVER):
// GPUs of 70 GiB or more that are not A100s get max_num_batched_tokens 8192 and max_num_seqs
// 1024; the others 2048 and 256; max_num_seqs is capped at max_num_batched_tokens.
// cudagraph capture sizes: 1, 2, 4 and every multiple of 8 up to min(2 x max_num_seqs, 512).
void VllmDefaults(const Config& c, ServingSettings& s) {
  const bool large = s.total_bytes >= 70 * kGiB && c.gpu.find("A100") == std::string::npos;
  s.mem_fraction = c.mem_fraction > 0 ? c.mem_fraction : 0.9;
  s.batched_tokens = c.prefill_chunk > 0 ? c.prefill_chunk : large ? 8192 : 2048;
  s.max_num_seqs = std::min(c.max_num_seqs > 0 ? c.max_num_seqs : large ? 1024 : 256, s.batched_tokens);
  s.graph_max_tokens = std::min<int64_t>(2 * s.max_num_seqs, 512);
  s.graph_sizes = std::min<int64_t>(s.graph_max_tokens, 4) >= 4 ? 3 + s.graph_max_tokens / 8 : s.graph_max_tokens;
}

// SGLang server_args.py _handle_gpu_memory_settings: chunked_prefill_size and
// cuda_graph_max_bs by GPU memory (MiB), then reserved = 512 + max(chunk, 2048) x 1.5 +
// cuda_graph_max_bs x 2 + tp x pp / 8 x 1024 MiB (at least 10 GiB above 60 GiB), and
// mem_fraction_static = round((memory - reserved) / memory, 3).
void SglangDefaults(const Config& c, ServingSettings& s) {
  const double mib = s.total_bytes / kMiB;
  int64_t chunk = 4096, graph_bs = 160;
  const bool tp4 = c.tp >= 4;
  if (mib < 20 * 1024) {
    chunk = 2048;
    graph_bs = 8;
  } else if (mib < 35 * 1024) {
    chunk = 2048;
    graph_bs = tp4 ? 80 : 24;
  } else if (mib < 60 * 1024) {
    chunk = 4096;
    graph_bs = tp4 ? 160 : 32;
  } else if (mib < 160 * 1024) {
    chunk = 8192;
    graph_bs = tp4 ? 512 : 256;
  } else {
    chunk = 16384;
    graph_bs = 512;
  }
  s.batched_tokens = c.prefill_chunk > 0 ? c.prefill_chunk : chunk;
  s.max_num_seqs = c.max_num_seqs > 0 ? c.max_num_seqs : graph_bs;
  double reserved = 512 + std::max<double>(static_cast<double>(s.batched_tokens), 2048) * 1.5 +
                    static_cast<double>(s.max_num_seqs) * 2 + static_cast<double>(c.tp * c.pp) / 8 * 1024;
  if (mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  s.sglang_reserved_mib = reserved;
  s.mem_fraction = c.mem_fraction > 0 ? c.mem_fraction : std::round((mib - reserved) / mib * 1000) / 1000;
  // _generate_cuda_graph_batch_sizes: 1, 2, 4, 8, 12, 16..256 by 8, 272..496 by 16, 512.. by 32.
  int64_t n = 0;
  for (int64_t bs : {1, 2, 4, 8, 12}) n += bs <= s.max_num_seqs;
  for (int64_t bs = 16; bs <= 256; bs += 8) n += bs <= s.max_num_seqs;
  for (int64_t bs = 272; bs < 512; bs += 16) n += bs <= s.max_num_seqs;
  for (int64_t bs = 512; bs <= s.max_num_seqs; bs += 32) ++n;
  s.graph_sizes = n;
  s.graph_max_tokens = s.max_num_seqs;
}

// llama.cpp common/common.h (n_batch 2048, n_ubatch 512) and src/llama-context.cpp
// (n_ctx = GGML_PAD(n_ctx, 256); n_ubatch <= n_batch <= n_ctx). -ngl -1 here: every layer and
// the output layer (llama-server's -ngl 99). Ollama passes -c num_ctx x num_parallel and
// -np num_parallel (llm/llama_server.go) and its num_batch 512 (api/types.go).
void GgmlDefaults(const Config& c, ServingSettings& s) {
  s.slots = std::max<int64_t>(1, c.batch);
  s.n_ctx = PadTo(c.seq * s.slots, 256);
  const int64_t n_batch = std::min<int64_t>(2048, s.n_ctx);
  s.n_ubatch = std::min(c.prefill_chunk > 0 ? c.prefill_chunk : 512, n_batch);
  const int64_t layers = c.model.layers;
  s.gpu_layers = c.gpu_layers < 0 ? layers + 1 : std::min(c.gpu_layers, layers + 1);
  s.k_type = c.kv_dtype;
  s.v_type = KvDtypeV(c);
  // server/routes.go: default num_ctx by the total VRAM of the GPUs (less OLLAMA_GPU_OVERHEAD).
  const double vram = s.total_bytes * static_cast<double>(std::max<int64_t>(1, c.pp));
  s.ollama_default_ctx = vram >= 47 * kGiB ? 262144 : vram >= 23 * kGiB ? 32768 : 4096;
}

}  // namespace


double ServingTotalBytes(const Config& c, int pipeline_stage) {
  const double set = std::round(c.gpu_memory_gb * kGB);
  if (!UsesServingRuntime(c)) return set;
  // A set of unlike GPUs: each pipeline stage is sized by its own card (what CUDA reports).
  if (IsGgml(c.runtime) && !c.gpu_set.empty()) {
    const std::vector<const Gpu*> gpus = GpuSet(c);
    if (pipeline_stage >= 0 && pipeline_stage < static_cast<int>(gpus.size())) {
      const Gpu* g = gpus[static_cast<size_t>(pipeline_stage)];
      return g->cuda_bytes > 0 ? g->cuda_bytes : g->UsableBytes();
    }
  }
  // CUDA sees less than nvidia-smi's total (the driver's reserve): a catalogue card still at
  // its reported size is taken at what CUDA reports, where a log showed it (gpus.json cuda_bytes).
  const Gpu* g = FindGpu(c.gpu);
  if (g != nullptr && g->cuda_bytes > 0 && std::fabs(set - g->UsableBytes()) < 1e6) return g->cuda_bytes;
  return set;
}

ServingSettings ResolveServing(const Config& c) {
  ServingSettings s;
  s.runtime = c.runtime;
  s.total_bytes = ServingTotalBytes(c);
  s.cuda_graphs = c.cuda_graphs;
  switch (c.runtime) {
    case Runtime::kVllm:
      VllmDefaults(c, s);
      break;
    case Runtime::kSglang:
      SglangDefaults(c, s);
      break;
    case Runtime::kLlamaCpp:
    case Runtime::kOllama:
      GgmlDefaults(c, s);
      break;
    case Runtime::kHfGenerate:
      break;
  }
  if (!c.cuda_graphs) s.graph_sizes = s.graph_max_tokens = 0;
  return s;
}

// [SECTION] Capacity ------------------------------------------------------------------------

double ServingCapacityBytes(const Config& c, int pipeline_stage) {
  const double total = ServingTotalBytes(c, pipeline_stage);
  if (!UsesServingRuntime(c) || !IsPagedServer(c.runtime)) return total;
  const Derived d(c, pipeline_stage);
  return PlanServing(d).capacity;
}

double HostRamBytes(const Config& c) {
  if (!UsesServingRuntime(c) || !IsGgml(c.runtime)) return 0;
  const ServingPlan host = PlanServing(Derived(c, 0));
  return host.weights_cpu + host.kv_cpu + host.compute_cpu + host.output_buffer;
}

// [SECTION] Report ---------------------------------------------------------------------------

namespace {

std::string Count(double v) { return FormatCount(static_cast<int64_t>(std::floor(v))); }

// What one vLLM request's blocks are, group by group, when there is more than one kind.
std::string VllmRequestParts(const ServingPlan& p, const Derived& d) {
  const VllmLayout& v = p.vllm;
  if (v.Groups() <= 1) return "";
  const double len = d.s_local, b = v.full_block_tokens, bs = v.sliding_block_tokens;
  const double mbt = static_cast<double>(p.set.batched_tokens);
  std::string out = " (";
  if (v.full_groups > 0) out += FormatNumber(v.full_groups, 0) + " full x cdiv(" + Count(len) + ", " + Count(b) + ")";
  if (v.sliding_groups > 0) {
    out += std::string(v.full_groups > 0 ? " + " : "") + FormatNumber(v.sliding_groups, 0) + " sliding x (cdiv(" +
           Count(std::min(p.kinds.window - 1 + mbt, len)) + ", " + Count(bs) + ") + 1)";
  }
  if (v.linear_groups > 0) out += " + " + FormatNumber(v.linear_groups, 0) + " mamba state blocks";
  return out + ")";
}

}  // namespace

ServingReport Serve(const Config& c) {
  ServingReport r;
  r.runtime = c.runtime;
  if (!UsesServingRuntime(c)) return r;
  const Totals t = EstimateTotals(c);
  if (!t.ok) return r;
  const Derived d(c, t.pipeline_stage);
  const ServingPlan p = PlanServing(d);
  r.ok = true;
  r.settings = p.set;
  auto line = [&](const std::string& label, const std::string& value, const std::string& note = "") {
    r.lines.push_back({label, value, note});
  };
  if (IsPagedServer(c.runtime)) {
    const bool vllm = c.runtime == Runtime::kVllm;
    r.budget_bytes = p.budget;
    r.kv_available_bytes = p.kv_available;
    r.blocks = static_cast<int64_t>(p.pool_units);
    r.block_bytes = p.block_bytes;
    r.pool_tokens = static_cast<int64_t>(p.pool_tokens);
    r.max_concurrency = p.max_concurrency;
    // vLLM estimate_max_model_len: the longest request the pool holds.
    r.max_model_len = static_cast<int64_t>(vllm ? p.max_model_len : p.pool_tokens);
    const std::string frac = vllm ? "gpu_memory_utilization" : "mem_fraction_static";
    line(frac, FormatNumber(p.set.mem_fraction, 3),
         vllm ? (c.mem_fraction > 0 ? "as set" : "vLLM's default")
              : (c.mem_fraction > 0 ? "as set"
                                    : "SGLang's default: reserved " + FormatNumber(p.set.sglang_reserved_mib, 0) +
                                          " MiB of " + FormatNumber(p.set.total_bytes / kMiB, 0) + " MiB"));
    line(vllm ? "the instance may use" : "weights + token pool may use", FormatBytesBoth(p.budget));
    line("weights", FormatBytesBoth(p.weights));
    if (vllm) {
      line("activation peak (profiling)", FormatBytesBoth(p.activation),
           "max_num_batched_tokens " + FormatCount(p.set.batched_tokens) + ", max_num_seqs " +
               FormatCount(p.set.max_num_seqs));
      line("non-torch memory", FormatBytesBoth(p.non_torch));
    } else {
      line("prefill activations (outside the fraction)", FormatBytesBoth(p.activation),
           "chunked_prefill_size " + FormatCount(p.set.batched_tokens));
    }
    line(vllm ? "available KV cache memory" : "token pool memory", FormatBytesBoth(std::max(0.0, p.kv_available)));
    if (vllm) {
      const std::string block = FormatNumber(p.vllm.block_tokens, 0) + "-token block";
      line("GPU KV cache blocks", Count(p.pool_units),
           FormatBytesBoth(p.block_bytes) + " per " + block +
               (p.vllm.Groups() > 1 ? " of " + FormatNumber(p.vllm.group_size, 0) + " layers (" +
                                          FormatNumber(p.vllm.Groups(), 0) + " KV cache groups)"
                                    : ""));
      line("GPU KV cache size", Count(static_cast<double>(r.pool_tokens)) + " tokens");
      line("maximum concurrency for " + FormatCount(static_cast<int64_t>(d.s_local)) + " tokens per request",
           FormatNumber(r.max_concurrency, 2) + "x",
           "blocks / " + FormatNumber(p.per_request, 0) + " blocks per request" + VllmRequestParts(p, d));
    } else {
      line("max_total_num_tokens", Count(p.pool_units), FormatNumber(p.block_bytes, 0) + " B per token (cell_size)");
      if (p.kinds.sliding > 0 && p.kinds.full > 0)
        line("SWA pool", Count(p.sglang.swa_tokens) + " tokens", "swa_full_tokens_ratio 0.8 of the full layers'");
      if (p.kinds.linear > 0)
        line("mamba state pool", Count(p.sglang.states) + " requests",
             FormatBytesBoth(p.sglang.state_bytes) + " per request (mamba_full_memory_ratio 0.9)");
      line("requests of " + FormatCount(static_cast<int64_t>(d.s_local)) + " tokens at once",
           FormatNumber(r.max_concurrency, 2));
    }
    if (p.graphs > 0) {
      line("CUDA graphs (outside the share)", FormatBytesBoth(p.graphs),
           FormatCount(p.set.graph_sizes) + " sizes up to " + FormatCount(p.set.graph_max_tokens));
    }
    if (vllm && p.pool_units < p.needed_units / std::max(1.0, d.b)) {
      line("start-up", "fails",
           "one request of max_model_len needs " + Count(p.needed_units / std::max(1.0, d.b)) +
               " blocks (vLLM: \"To serve at least one request ... KV cache is needed\")");
    }
    return r;
  }
  // llama.cpp / Ollama: the host figures are with the first GPU (stage 0).
  const ServingPlan host = t.pipeline_stage == 0 ? p : PlanServing(Derived(c, 0));
  r.gpu_layers = p.set.gpu_layers;
  r.gpu_bytes = t.peak_bytes;
  r.compute_buffer_bytes = p.compute_gpu;
  r.host_compute_bytes = host.compute_cpu;
  r.output_buffer_bytes = host.output_buffer;
  r.host_buffer_bytes = host.compute_cpu + host.output_buffer;
  r.ram_bytes = t.host_bytes;  // HostRamBytes: the verdict's figure
  r.kv_bytes = (std::min<double>(static_cast<double>(p.set.gpu_layers), d.L) + host.cpu_layers) * p.kv_avg_layer;
  r.ram_fits = !t.host_short;
  line("-ngl (layers on the GPU)", FormatCount(p.set.gpu_layers) + " of " + FormatCount(c.model.layers + 1),
       p.set.gpu_layers > c.model.layers ? "all layers and the output layer"
                                         : FormatNumber(host.cpu_layers, 0) + " layers run on the CPU");
  line("n_ctx (KV cells)", FormatCount(p.set.n_ctx),
       FormatCount(p.set.slots) + " slots x " + FormatCount(p.set.n_ctx / std::max<int64_t>(1, p.set.slots)));
  line("KV cache (" + std::string(Info(p.set.k_type).id) + "/" + Info(p.set.v_type).id + ")",
       FormatBytesBoth(r.kv_bytes), FormatNumber(p.kv_token_layer, 2) + " B per cell and layer");
  line("compute buffer (GPU)", FormatBytesBoth(p.compute_gpu), "n_ubatch " + FormatCount(p.set.n_ubatch));
  line("host buffers (compute + output)", FormatBytesBoth(r.host_buffer_bytes));
  line("system RAM needed", FormatBytesBoth(r.ram_bytes),
       c.ram_gb > 0 ? (r.ram_fits ? "fits the " : "exceeds the ") + FormatNumber(c.ram_gb) + " GB set"
                    : "mmapped weights, CPU KV, host buffers");
  // Unlike GPUs: each one's layers and memory (llama.cpp's default split by memory).
  const std::vector<const Gpu*> set = GpuSet(c);
  for (size_t i = 0; i < set.size() && static_cast<int64_t>(set.size()) == c.pp; ++i) {
    const ServingPlan q = PlanServing(Derived(c, static_cast<int>(i)));
    const double used = q.weights_gpu + q.kv_gpu + q.compute_gpu + c.cuda_context_gb * kGB + c.comm_buffer_gb * kGB;
    line("GPU " + std::to_string(i) + ": " + set[i]->key,
         FormatNumber(q.gpu_layers_here, 0) + " layers" + (q.output_here ? " + output" : ""),
         FormatBytesBoth(used) + " of " + FormatBytesBoth(q.total));
  }
  if (c.runtime == Runtime::kOllama) {
    line("Ollama's default num_ctx here", FormatCount(p.set.ollama_default_ctx), "by total VRAM (server/routes.go)");
  }
  return r;
}

}  // namespace llmmem::core
