// Serving runtimes (issue 16): worked cases from each runtime's source, recomputed here by
// hand, and against the logs of tests/published/runtime.json where one exists.
#include <doctest.h>

#include <cmath>

#include "core/estimate/account_serving.h"
#include "core/catalogue/gpus.h"
#include "core/parse/json.h"
#include "core/report/launch_export.h"
#include "core/solve/serve_fit.h"
#include "core/estimate/serving.h"
#include "core/base/units.h"
#include "core/estimate/account_inference.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

Config Serving(const char* preset, Runtime runtime, const char* gpu) {
  Config c = DefaultConfig();
  c.model = FindPreset(preset)->model;
  c.mode = Mode::kInference;
  c.runtime = runtime;
  Diagnostics d;
  REQUIRE(SetField(c, "gpu", gpu, d));
  return c;
}

// Pythia-2.8B as ggml-ci converts it (runtime.json llamacpp-ggmlci-v100-*).
Config Pythia(Dtype dtype) {
  Config c = DefaultConfig();
  ModelSpec& m = c.model;
  m.name = "pythia-2.8b";
  m.vocab = 50304;
  m.hidden = 2560;
  m.layers = 32;
  m.heads = 32;
  m.kv_heads = 32;
  m.head_dim = 80;
  m.ffn = 10240;
  m.mlp = MlpKind::kPlain;
  m.act = ActivationFn::kGelu;
  m.norm = NormKind::kLayerNorm;
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
  c.mode = Mode::kInference;
  c.runtime = Runtime::kLlamaCpp;
  c.dtype = dtype;
  c.kv_dtype = Dtype::kFp16;
  c.seq = 2048;
  c.flash_attn = false;
  Diagnostics d;
  REQUIRE(SetField(c, "gpu", "V100-16GB", d));
  return c;
}

const BreakdownNode& Node(const Estimate& e, const std::string& id) {
  const BreakdownNode* n = e.tree.Find(id);
  REQUIRE(n != nullptr);
  return *n;
}

}  // namespace

TEST_CASE("Runtime table: ids parse back, hf-generate is the default and keeps today's estimate") {
  for (Runtime r : {Runtime::kHfGenerate, Runtime::kVllm, Runtime::kSglang, Runtime::kLlamaCpp, Runtime::kOllama}) {
    Runtime back;
    REQUIRE(ParseId(Id(r), back));
    CHECK(back == r);
    CHECK(std::string(Info(r).source).size() > 20);
  }
  CHECK(DefaultConfig().runtime == Runtime::kHfGenerate);
  Config c = Serving("llama-3.1-8b", Runtime::kHfGenerate, "H100-SXM-80GB");
  Config before = c;
  CHECK(EstimateTotals(c).peak_bytes == EstimateTotals(before).peak_bytes);
  CHECK(Explain(c).tree.Find("total.inference.prefill_workspace") != nullptr);
  CHECK_FALSE(Serve(c).ok);
}

TEST_CASE("vLLM: KV blocks for Llama-3.1-8B on an H100 80GB at gpu_memory_utilization 0.9") {
  Config c = Serving("llama-3.1-8b", Runtime::kVllm, "H100-SXM-80GB");
  c.seq = 8192;  // max_model_len
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  // By hand, from vLLM's source: CUDA's total (81090 MiB) x 0.9, less the bf16 weights, the
  // profiled activation peak (the dummy sampler over max_num_seqs = 1024 requests: bf16
  // logits, fp32 copy, sorted fp32 and int64 indices per vocabulary entry, plus the hidden
  // state) and 0.16 GiB non-torch memory; pages of 16 tokens x 8 KV heads x 128 x (2 + 2) B.
  const double total = 81090.0 * 1048576;
  const double budget = 0.9 * total;
  const double weights = 8030261248.0 * 2;
  const double sampler = 1024 * (128256.0 * 18 + 4096 * 2);
  const double available = budget - weights - sampler - 0.16 * 1073741824.0;
  const double page = 16 * 8 * 128 * 4.0;
  const int64_t blocks = static_cast<int64_t>(std::floor(std::floor(available / page) / 32));
  CHECK(r.settings.total_bytes == total);
  CHECK(r.settings.batched_tokens == 8192);
  CHECK(r.settings.max_num_seqs == 1024);
  CHECK(r.block_bytes == 32 * page);
  CHECK(r.blocks == blocks);
  CHECK(r.pool_tokens == blocks * 16);
  CHECK(r.max_concurrency == doctest::Approx(blocks / 512.0));  // cdiv(8192, 16) blocks per request
  CHECK(r.max_model_len == blocks * 16);
  // PR #10511's log (Meta-Llama-3-8B, same shapes, V0 Dec 2024): available_kv_cache_memory 53.29 GiB.
  CHECK(r.kv_available_bytes / kGiB == doctest::Approx(53.29).epsilon(0.02));
  // The verdict: the pool holds one request of 8192 tokens; the GPU total is the share plus
  // the CUDA context and graphs outside it.
  const Totals t = EstimateTotals(c);
  CHECK(t.Fits());
  CHECK(t.capacity_bytes < total);
  CHECK(t.peak_bytes <= t.capacity_bytes);
  // More concurrent requests than the pool holds do not fit; as many as it holds do.
  c.batch = static_cast<int64_t>(std::floor(r.max_concurrency));
  CHECK(EstimateTotals(c).Fits());
  c.batch += 1;
  CHECK_FALSE(EstimateTotals(c).Fits());
}

TEST_CASE("vLLM: smaller GPUs get max_num_batched_tokens 2048 and max_num_seqs 256; a model too large fails to start") {
  Config c = Serving("llama-3.1-8b", Runtime::kVllm, "RTX-3090-24GB");
  c.seq = 20000;
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.settings.batched_tokens == 2048);
  CHECK(r.settings.max_num_seqs == 256);
  // issue #10517's log (V0, no chunked prefill at 20000 tokens): 1952 blocks, 1.56x at 20000.
  // V1 profiles 2048 tokens instead, so the pool is larger here; the formula is the same.
  CHECK(r.max_concurrency == doctest::Approx(r.blocks / 1250.0));
  c.model = FindPreset("llama-3.1-70b")->model;
  const ServingReport big = Serve(c);
  CHECK(big.blocks == 0);
  CHECK_FALSE(EstimateTotals(c).Fits());
}

TEST_CASE("SGLang: mem_fraction_static default and token pool (Qwen3-235B-A22B FP8, TP4, H100)") {
  Config c = Serving("qwen3-235b-a22b", Runtime::kSglang, "H100-SXM-80GB");
  c.dtype = Dtype::kFp8;
  c.tp = 4;
  c.seq = 40960;
  // server_args.py: 81090 MiB is under 90 GiB: chunk 8192, cuda_graph_max_bs 512 (tp >= 4);
  // reserved = 512 + 8192 x 1.5 + 512 x 2 + 4 / 8 x 1024 = 14336 MiB (over the 10 GiB floor).
  ServingSettings s = ResolveServing(c);
  CHECK(s.batched_tokens == 8192);
  CHECK(s.max_num_seqs == 512);
  CHECK(s.sglang_reserved_mib == 14336);
  CHECK(s.mem_fraction == doctest::Approx(std::round((81090.0 - 14336) / 81090 * 1000) / 1000));
  // The log of issue #21348 ran with --mem-fraction-static 0.93: 367,404 tokens; cell_size
  // 1 KV head x 128 x 94 layers x 2 x 2 B = 48,128 B.
  c.mem_fraction = 0.93;
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.block_bytes == 48128);
  CHECK(static_cast<double>(r.pool_tokens) / 367404 == doctest::Approx(1.0).epsilon(0.08));
}

TEST_CASE("llama.cpp: Pythia-2.8B F16 on a V100 as ggml-ci logged it (build 4210)") {
  const Config c = Pythia(Dtype::kFp16);
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  // KV: 2048 cells x 32 layers x 2 x 2560 x 2 B = 640 MiB (log: KV self size = 640.00 MiB).
  CHECK(Node(e, "total.inference.kv_cache").bytes == 640 * kMiB);
  // Compute buffer without flash attention: residual, fused QKV and the rotated Q and K
  // (6 x 512 x 2560 x 4 B), the f32 mask (2048 x 512 x 4 B) and K^T Q (2048 x 512 x 32 x 4 B)
  // = 162.00 MiB (log: CUDA0 compute buffer size = 162.00 MiB).
  CHECK(Node(e, "total.inference.compute_buffer").bytes == 162 * kMiB);
  // Weights: 5049.71 MiB on the GPU, 245.62 MiB mapped on the CPU (the token embeddings).
  CHECK(Node(e, "total.model_states.weights").bytes / kMiB == doctest::Approx(5049.71).epsilon(0.001));
  CHECK(Node(e, "total.model_states.weights.mapped").bytes / kMiB == doctest::Approx(245.62).epsilon(0.001));
  // Host compute buffer 9.01 MiB: the input embeddings and the mask (+ the output buffer here).
  const ServingReport r = Serve(c);
  CHECK((r.host_buffer_bytes - 50304 * 4) / kMiB == doctest::Approx(9.01).epsilon(0.002));
}

TEST_CASE("llama.cpp: KV bytes with a q8_0 cache, and quantised V needs flash attention") {
  Config c = Serving("llama-3.1-8b", Runtime::kLlamaCpp, "RTX-4090-24GB");
  c.dtype = Dtype::kQ4_K_M;
  c.seq = 8192;
  c.kv_dtype = Dtype::kQ8_0;
  // Q8_0 rows: 34 B per 32 values. 8 KV heads x 128 = 1024 values: 1088 B for K, 1088 for V,
  // x 32 layers x 8192 cells = 544 MiB (llama.cpp: K (q8_0): 272.00 MiB, V (q8_0): 272.00 MiB).
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.kv_bytes == 544 * kMiB);
  // Flash attention on, n_ubatch 512, all layers offloaded: the logits phase is the largest,
  // 512 x (128256 + 4096) x 4 B = 258.50 MiB.
  CHECK(r.compute_buffer_bytes == 258.5 * kMiB);
  c.flash_attn = false;
  Diagnostics d = Validate(c);
  CHECK(HasErrors(d));
  c.kv_dtype_v = Dtype::kFp16;  // -ctk q8_0 -ctv f16 runs without flash attention
  CHECK_FALSE(HasErrors(Validate(c)));
  c.tp = 2;
  CHECK(HasErrors(Validate(c)));  // llama.cpp splits layers: pp, not tp
}

TEST_CASE("llama.cpp: layers that fit with -ngl, the rest in system RAM") {
  Config c = Serving("llama-3.1-70b", Runtime::kLlamaCpp, "RTX-4090-24GB");
  c.dtype = Dtype::kQ4_K_M;
  c.seq = 8192;
  CHECK_FALSE(EstimateTotals(c).Fits());  // 40 GB of weights on a 24 GB card
  int64_t best = -1;
  for (int64_t n = 0; n <= c.model.layers + 1; ++n) {
    c.gpu_layers = n;
    if (EstimateTotals(c).Fits()) best = n;
  }
  REQUIRE(best > 20);
  REQUIRE(best < 60);
  c.gpu_layers = best;
  const ServingReport r = Serve(c);
  const Estimate e = Explain(c);
  // What is not on the GPU is in RAM: embeddings, the CPU's layers and output, their KV.
  const double per_layer = Node(e, "total.model_states.weights.gpu_layers").per_layer_bytes;
  CHECK(per_layer > 0);
  CHECK(r.ram_bytes > (80 - best) * per_layer);
  CHECK(e.totals.cpu_bytes == doctest::Approx(r.ram_bytes));
  c.ram_gb = 8;
  CHECK_FALSE(Serve(c).ram_fits);
}

TEST_CASE("Ollama: llama-server with Ollama's defaults") {
  Config c = Serving("llama-3.1-8b", Runtime::kOllama, "RTX-3060-12GB");
  c.dtype = Dtype::kQ4_K_M;
  CHECK(ResolveServing(c).ollama_default_ctx == 4096);  // under 23 GiB of VRAM
  Diagnostics d;
  REQUIRE(SetField(c, "gpu", "RTX-4090-24GB", d));
  CHECK(ResolveServing(c).ollama_default_ctx == 32768);
  REQUIRE(SetField(c, "gpu", "A6000-48GB", d));
  CHECK(ResolveServing(c).ollama_default_ctx == 262144);
  // -c num_ctx x OLLAMA_NUM_PARALLEL, -np OLLAMA_NUM_PARALLEL: KV for every slot.
  c.seq = 8192;
  c.batch = 2;
  const ServingSettings s = ResolveServing(c);
  CHECK(s.n_ctx == 16384);
  CHECK(s.slots == 2);
  CHECK(s.n_ubatch == 512);
  // Ollama's own estimate for this model (issue 11292 log: kv 1.0 GiB at num_ctx 8192, one slot).
  c.batch = 1;
  c.kv_dtype = Dtype::kFp16;
  CHECK(Serve(c).kv_bytes == 1024 * kMiB);
}

TEST_CASE("Serving estimates: the fast path equals Explain for every runtime") {
  for (Runtime r : {Runtime::kVllm, Runtime::kSglang, Runtime::kLlamaCpp, Runtime::kOllama}) {
    for (int64_t pp : {1, 2}) {
      Config c = Serving("qwen2.5-7b", r, "L40S-48GB");
      if (IsGgml(r)) c.dtype = Dtype::kQ4_K_M;
      c.pp = pp;
      c.seq = 16384;
      c.batch = 3;
      CAPTURE(Id(r));
      CAPTURE(pp);
      const Totals fast = EstimateTotals(c);
      const Estimate full = Explain(c);
      REQUIRE(fast.ok);
      CHECK(fast.peak_bytes == full.totals.peak_bytes);
      CHECK(fast.capacity_bytes == full.totals.capacity_bytes);
      CHECK(fast.cpu_bytes == full.totals.cpu_bytes);
    }
  }
}

TEST_CASE("Serving fit: the inverse answers agree with the forward estimate") {
  Config c = Serving("qwen2.5-32b", Runtime::kVllm, "RTX-4090-24GB");
  c.dtype = Dtype::kAwq;
  c.tp = 2;
  c.seq = 32768;
  const ServeFit f = FitServing(c);
  REQUIRE(f.ok);
  // Most requests at 32k: vLLM's maximum concurrency, rounded down.
  CHECK(f.max_concurrency == static_cast<int64_t>(std::floor(Serve(c).max_concurrency)));
  // Longest context for one request: the pool's tokens (vLLM's estimate_max_model_len).
  Config one = c;
  one.batch = 1;
  one.seq = f.max_context;
  CHECK(EstimateTotals(one).Fits());
  one.seq += 16;
  CHECK_FALSE(EstimateTotals(one).Fits());
  CHECK(f.max_context == Serve(one).pool_tokens);
  REQUIRE_FALSE(f.gpu_sets.empty());
  for (size_t i = 1; i < f.gpu_sets.size(); ++i) CHECK(f.gpu_sets[i - 1].memory_bytes <= f.gpu_sets[i].memory_bytes);

  // llama.cpp: the most layers on a 12 GB card, checked one past it.
  Config g = Serving("llama-3.1-70b", Runtime::kLlamaCpp, "RTX-3060-12GB");
  g.dtype = Dtype::kQ4_K_M;
  const ServeFit gf = FitServing(g);
  REQUIRE(gf.max_gpu_layers > 0);
  g.gpu_layers = gf.max_gpu_layers;
  CHECK(EstimateTotals(g).Fits());
  CHECK(gf.ram_bytes_at_max_layers == Serve(g).ram_bytes);
  g.gpu_layers += 1;
  CHECK_FALSE(EstimateTotals(g).Fits());
  // The most precise GGUF type that fits all of an 8B on that card.
  Config small = Serving("llama-3.1-8b", Runtime::kLlamaCpp, "RTX-3060-12GB");
  const ServeFit sf = FitServing(small);
  REQUIRE(sf.formats_found);
  CHECK(sf.dtype == Dtype::kQ8_0);  // f16 (16 GB) does not fit 12 GB; q8_0 (8.5 GB) does
}

TEST_CASE("Launch commands: each export parses back to the configuration") {
  Config c = Serving("qwen2.5-32b", Runtime::kVllm, "RTX-4090-24GB");
  c.dtype = Dtype::kAwq;
  c.tp = 2;
  c.seq = 32768;
  c.kv_dtype = Dtype::kFp8;
  const ServingSettings vs = ResolveServing(c);
  auto v = ParseLaunchFlags(ExportLaunch(c, LaunchTarget::kVllm));
  CHECK(v[""] == "vllm serve Qwen/Qwen2.5-32B");
  CHECK(v["--tensor-parallel-size"] == "2");
  CHECK(v["--max-model-len"] == "32768");
  CHECK(std::stod(v["--gpu-memory-utilization"]) == vs.mem_fraction);
  CHECK(std::stoll(v["--max-num-seqs"]) == vs.max_num_seqs);
  CHECK(std::stoll(v["--max-num-batched-tokens"]) == vs.batched_tokens);
  CHECK(v["--quantization"] == "awq");
  CHECK(v["--kv-cache-dtype"] == "fp8");
  CHECK(v.count("--enforce-eager") == 0);

  c.runtime = Runtime::kSglang;
  const ServingSettings ss = ResolveServing(c);
  auto sg = ParseLaunchFlags(ExportLaunch(c, LaunchTarget::kSglang));
  CHECK(sg["--model-path"] == "Qwen/Qwen2.5-32B");
  CHECK(sg["--tp"] == "2");
  CHECK(std::stod(sg["--mem-fraction-static"]) == ss.mem_fraction);
  CHECK(std::stoll(sg["--chunked-prefill-size"]) == ss.batched_tokens);
  CHECK(sg["--kv-cache-dtype"] == "fp8_e4m3");

  Config g = Serving("llama-3.1-8b", Runtime::kLlamaCpp, "RTX-3060-12GB");
  g.dtype = Dtype::kQ4_K_M;
  g.seq = 8192;
  g.batch = 2;
  g.gpu_layers = 20;
  g.kv_dtype = Dtype::kQ8_0;
  g.kv_dtype_v = Dtype::kQ4_0;
  auto l = ParseLaunchFlags(ExportLaunch(g, LaunchTarget::kLlamaCpp));
  CHECK(l["-m"] == "Llama-3.1-8B-Q4_K_M.gguf");
  CHECK(l["-c"] == "16384");
  CHECK(l["-np"] == "2");
  CHECK(l["-ngl"] == "20");
  CHECK(l["-ub"] == "512");
  CHECK(l["-ctk"] == "q8_0");
  CHECK(l["-ctv"] == "q4_0");
  CHECK(l["-fa"] == "on");
  // What llama-server would allocate for that command is what the estimate counted.
  const ServingSettings ls = ResolveServing(g);
  CHECK(std::stoll(l["-c"]) == ls.n_ctx);

  const std::string modelfile = ExportLaunch(g, LaunchTarget::kOllama);
  CHECK(modelfile.find("PARAMETER num_ctx 8192\n") != std::string::npos);
  CHECK(modelfile.find("PARAMETER num_gpu 20\n") != std::string::npos);
  CHECK(modelfile.find("OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0") != std::string::npos);

  Config t = DefaultConfig();
  t.model = FindPreset("llama-3.1-8b")->model;
  t.zero = 3;
  t.dp = 8;
  t.batch = 2;
  t.grad_accum = 4;
  t.offload_optimizer = Offload::kCpu;
  const JsonParseResult ds = ParseJson(ExportLaunch(t, LaunchTarget::kDeepSpeed));
  REQUIRE(ds.ok);
  CHECK(ds.value.Find("zero_optimization")->Find("stage")->AsNumber() == 3);
  CHECK(ds.value.Find("zero_optimization")->Find("offload_optimizer")->Find("device")->AsString() == "cpu");
  CHECK(ds.value.Find("zero_optimization")->Find("stage3_prefetch_bucket_size")->AsNumber() == t.prefetch_bucket);
  CHECK(ds.value.Find("train_micro_batch_size_per_gpu")->AsNumber() == 2);
  CHECK(ds.value.Find("gradient_accumulation_steps")->AsNumber() == 4);
  CHECK(ds.value.Find("bf16")->Find("enabled")->AsBool());
  const std::string fsdp = ExportLaunch(t, LaunchTarget::kFsdp);
  CHECK(fsdp.find("fsdp_sharding_strategy: FULL_SHARD\n") != std::string::npos);
  CHECK(fsdp.find("num_processes: 8\n") != std::string::npos);
  const std::string hf = ExportLaunch(t, LaunchTarget::kHfTrainer);
  CHECK(hf.find("per_device_train_batch_size=2,") != std::string::npos);
  CHECK(hf.find("gradient_accumulation_steps=4,") != std::string::npos);
  CHECK(hf.find("optim=\"adamw_torch\"") != std::string::npos);
  for (const LaunchTargetInfo& row : TableOf(LaunchTarget{})) {
    LaunchTarget back;
    CHECK(ParseId(row.id, back));
    CHECK(back == row.value);
  }
}

TEST_CASE("llama.cpp over unlike GPUs: layers split by memory, each GPU against its own capacity") {
  Config c = Serving("llama-3.1-70b", Runtime::kLlamaCpp, "RTX-4090-24GB");
  c.dtype = Dtype::kQ4_K_M;
  c.seq = 4096;
  Diagnostics d;
  REQUIRE(SetField(c, "gpu_set", "RTX-4090-24GB,RTX-3060-12GB", d));
  CHECK(c.pp == 2);
  CHECK(c.gpu == "RTX-4090-24GB");
  // 80 layers by memory, 25.76 : 12.88 GB: 53 and 27 (llama.cpp's default --tensor-split).
  const Derived first(c, 0), last(c, 1);
  CHECK(detail::GpuLayersOnStage(80, first) == 53);
  CHECK(detail::GpuLayersOnStage(80, last) == 27);
  CHECK(ServingCapacityBytes(c, 0) == FindGpu("RTX-4090-24GB")->UsableBytes());
  CHECK(ServingCapacityBytes(c, 1) == FindGpu("RTX-3060-12GB")->UsableBytes());
  const Totals t = EstimateTotals(c);
  REQUIRE(t.ok);
  // The verdict is for the GPU nearest its own limit.
  CHECK(t.capacity_bytes == ServingCapacityBytes(c, t.pipeline_stage));
  c.pp = 3;
  CHECK(HasErrors(Validate(c)));  // one stage per GPU of the set
}

// HF generate's static cache (transformers cache_utils.py StaticLayer): K and V preallocated
// for max_cache_len tokens. Llama 3.1 8B: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B
// per token; a 4096-token sequence in an 8192-token static cache holds 8192 x 131,072 B =
// 1,073,741,824 B, the dynamic cache 536,870,912 B.
TEST_CASE("Serving: HF generate's static cache is preallocated for max_cache_len tokens") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  c.mode = Mode::kInference;
  c.dtype = Dtype::kBf16;
  c.kv_dtype = Dtype::kBf16;
  c.runtime = Runtime::kHfGenerate;
  c.seq = 4096;
  c.batch = 1;
  const Estimate dynamic = Explain(c);
  REQUIRE(dynamic.totals.ok);
  CHECK(Node(dynamic, "total.inference.kv_cache").bytes == 536870912.0);
  c.max_cache_len = 8192;
  const Estimate fixed = Explain(c);
  REQUIRE(fixed.totals.ok);
  CHECK(Node(fixed, "total.inference.kv_cache").bytes == 1073741824.0);
  // The peak grows by the extra cache and the allocator's reserve on it (fragmentation_pct).
  CHECK(fixed.totals.peak_bytes - dynamic.totals.peak_bytes ==  // whole bytes: the reserve rounds per moment
        doctest::Approx(536870912.0 * (1 + c.fragmentation_pct / 100)).epsilon(1e-8));
  // Shorter than the sequence: the cache overruns, refused with the field named.
  c.max_cache_len = 2048;
  const Estimate over = Explain(c);
  CHECK_FALSE(over.totals.ok);
  bool named = false;
  for (const Diagnostic& g : over.diagnostics)
    named = named || (g.field == "max_cache_len" && g.severity == Severity::kError);
  CHECK(named);
  // Other runtimes allocate their own: the setting changes nothing there.
  c.max_cache_len = 8192;
  c.runtime = Runtime::kVllm;
  Config v = c;
  v.max_cache_len = 0;
  CHECK(EstimateTotals(c).peak_bytes == EstimateTotals(v).peak_bytes);
}

namespace llmmem::test {
namespace {

// HF eager attention in a prefill holds the masked scores, softmax's fp32 output and its
// 16-bit cast at once: 8 B per score element in bf16 and in fp32, as
// tests/truth/measure_prefill.py measured (torch 1.13, allocation events). SDPA's fused
// kernels hold none.
TEST_CASE("Prefill: HF eager attention holds 8 B per score element at its peak, fused kernels none") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  c.mode = Mode::kInference;
  c.seq = 2048;
  const double scores = 32.0 * 2048 * 2048;  // heads x s x s, one sequence
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp32}) {
    CAPTURE(Info(dtype).id);
    c.dtype = dtype;
    c.framework = Framework::kHfEager;
    const core::Derived eager_d(c, 0);
    const double eager = core::PrefillWorkspace(eager_d, 2048).attention;
    c.framework = Framework::kHfSdpa;
    const core::Derived fused_d(c, 0);
    const double fused = core::PrefillWorkspace(fused_d, 2048).attention;
    CHECK(eager - fused == 8.0 * scores);
  }
}

}  // namespace
}  // namespace llmmem::test
