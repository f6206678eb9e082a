// The run readers (core/run/run_log.h) on start-up logs quoted from public issues
// (tests/run_samples.h names each source): every figure they print, with its line.
#include <doctest.h>

#include <string>

#include "core/run/run_log.h"
#include "run_samples.h"

using namespace llmmem::core;
namespace s = llmmem::test::run_samples;

namespace {

constexpr double GiB = 1073741824.0;
constexpr double MiB = 1048576.0;

// The figures of one kind, in text order.
std::vector<MeasuredFigure> Of(const RunLog& log, MeasuredKind k) {
  std::vector<MeasuredFigure> v;
  for (const MeasuredFigure& f : log.figures)
    if (f.kind == k) v.push_back(f);
  return v;
}

}  // namespace

TEST_CASE("vLLM v0 worker, TP=2 (vllm#15815): weights, profile, budget and blocks of each worker") {
  const RunLog log = ReadRunLog(s::kVllmV0Tp2);
  REQUIRE(log.recognised);
  CHECK(log.source == RunSource::kVllm);
  CHECK(log.figures.size() == 15);
  const auto weights = Of(log, MeasuredKind::kWeights);
  REQUIRE(weights.size() == 4);
  CHECK(weights[0].value == doctest::Approx(30.7098 * GiB));  // "Loading model weights took 30.7098 GB" (GiB)
  CHECK(weights[0].line == 1);
  CHECK(weights[0].device.empty());
  CHECK(weights[0].form == "vllm_loading_weights");
  CHECK(weights[1].device == "VllmWorkerProcess pid=3280379");
  CHECK(weights[2].value == doctest::Approx(30.71 * GiB));
  CHECK(weights[2].tolerance == doctest::Approx(0.005 * GiB));
  // The driver's figures (no prefix) are the last of each kind for the first device.
  const MeasuredFigure* kv = LastFigure(log, MeasuredKind::kKvCache);
  REQUIRE(kv != nullptr);
  CHECK(kv->value == doctest::Approx(7.71 * GiB));
  CHECK(kv->line == 8);
  CHECK(LastFigure(log, MeasuredKind::kNonTorch)->value == doctest::Approx(0.30 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kActivations)->value == doctest::Approx(1.26 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kTotalGpu)->value == doctest::Approx(44.42 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kBudget)->value == doctest::Approx(39.98 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kKvBlocks)->value == 3947);
  CHECK(log.settings.gpu_memory_utilization == doctest::Approx(0.90));
  CHECK(log.settings.utilization_line == 4);
  // vLLM's own arithmetic: 44.42 x 0.90 = 39.98 = 30.71 + 0.30 + 1.26 + 7.71 (each to 0.01 GiB).
  CHECK(44.42 * 0.90 == doctest::Approx(39.98).epsilon(0.0005));
  CHECK(30.71 + 0.30 + 1.26 + 7.71 == doctest::Approx(39.98));
}

TEST_CASE("vLLM v0.6.5 profile table (vllm PR #10511): Llama-3-8B on an H100") {
  const RunLog log = ReadRunLog(s::kVllmTable);
  REQUIRE(log.recognised);
  CHECK(log.figures.size() == 6);
  CHECK(LastFigure(log, MeasuredKind::kTotalGpu)->value == doctest::Approx(79.22 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kBudget)->value == doctest::Approx(71.29 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kWeights)->value == doctest::Approx(14.96 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kWeights)->line == 6);
  CHECK(LastFigure(log, MeasuredKind::kNonTorch)->value == doctest::Approx(1.79 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kActivations)->value == doctest::Approx(1.26 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kKvCache)->value == doctest::Approx(53.29 * GiB));
  CHECK(log.settings.gpu_memory_utilization == doctest::Approx(0.90));
  CHECK(log.settings.utilization_line == 4);
}

TEST_CASE("vLLM v1 v0.8.5 (vllm PR #17122): weights, KV tokens, concurrency and max_model_len") {
  const RunLog log = ReadRunLog(s::kVllmV1);
  REQUIRE(log.recognised);
  CHECK(log.figures.size() == 3);  // "Loading weights took 2.95 seconds" is a time, not a size
  CHECK(LastFigure(log, MeasuredKind::kWeights)->value == doctest::Approx(14.9889 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kWeights)->line == 2);
  CHECK(LastFigure(log, MeasuredKind::kKvTokens)->value == 158656);
  const MeasuredFigure* x = LastFigure(log, MeasuredKind::kMaxConcurrency);
  CHECK(x->value == doctest::Approx(4.84));
  CHECK(x->tolerance == doctest::Approx(0.005));
  CHECK(log.settings.max_model_len == 32768);
  CHECK(log.settings.max_model_len_line == 4);
  // The pool over one request: 158,656 / 32,768 = 4.84.
  CHECK(158656.0 / 32768 == doctest::Approx(4.84).epsilon(0.001));
}

TEST_CASE("vLLM v1's usage line after graph capture (vllm PR #21489)") {
  const RunLog log = ReadRunLog(s::kVllmUsage);
  REQUIRE(log.recognised);
  CHECK(log.figures.size() == 7);
  CHECK(LastFigure(log, MeasuredKind::kFreeAtStart)->value == doctest::Approx(177.66 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kTotalGpu)->value == doctest::Approx(178.36 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kBudget)->value == doctest::Approx(160.53 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kWeights)->value == doctest::Approx(8.58 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kActivations)->value == doctest::Approx(9.96 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kNonTorch)->value == doctest::Approx(0.07 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kCudaGraphs)->value == doctest::Approx(0.65 * GiB));
  CHECK(log.settings.gpu_memory_utilization == doctest::Approx(0.9));
  // 0.9 x 178.36 = 160.52 GiB: the budget printed.
  CHECK(0.9 * 178.36 == doctest::Approx(160.53).epsilon(0.0001));
}

TEST_CASE("vLLM and SGLang KV pools of one model (vllm#21348): SGLang's GB is GiB") {
  const RunLog log = ReadRunLog(s::kVllmAndSglang21348);
  REQUIRE(log.recognised);
  const auto kv = Of(log, MeasuredKind::kKvCache);
  REQUIRE(kv.size() == 2);
  CHECK(kv[0].source == RunSource::kVllm);
  CHECK(kv[0].value == doctest::Approx(8.11 * GiB));
  CHECK(kv[1].source == RunSource::kSglang);
  CHECK(kv[1].value == doctest::Approx(16.46 * GiB));  // K 8.23 + V 8.23
  CHECK(kv[1].tolerance == doctest::Approx(0.01 * GiB));
  const auto tokens = Of(log, MeasuredKind::kKvTokens);
  REQUIRE(tokens.size() == 2);
  CHECK(tokens[0].value == 178880);
  CHECK(tokens[1].value == 367404);
  // Qwen3-235B-A22B (94 layers, 4 KV heads of 128, bf16 cache) over TP=4: one head a GPU,
  // 94 x 128 x 2 B = 24,064 B of K per token; 367,404 tokens of it are 8.23 GiB only with GiB.
  CHECK(367404.0 * 94 * 128 * 2 / GiB == doctest::Approx(8.23).epsilon(0.001));
}

TEST_CASE("SGLang (sglang PR #12978, #29575): graphs per rank, the token pool, context_len") {
  const RunLog log = ReadRunLog(s::kSglang);
  REQUIRE(log.recognised);
  CHECK(log.source == RunSource::kSglang);
  const auto graphs = Of(log, MeasuredKind::kCudaGraphs);
  REQUIRE(graphs.size() == 2);
  CHECK(graphs[0].device == "TP1");
  CHECK(graphs[0].value == doctest::Approx(1.04 * GiB));
  CHECK(graphs[1].device == "TP0");
  CHECK(graphs[1].value == doctest::Approx(1.00 * GiB));
  CHECK(LastFigure(log, MeasuredKind::kKvTokens)->value == 2086558);
  CHECK(LastFigure(log, MeasuredKind::kBudget)->value == doctest::Approx(17.22 * GiB));
  CHECK(log.settings.max_model_len == 256000);
  CHECK(log.settings.max_model_len_line == 4);
}

TEST_CASE("llama.cpp mid-2024, two GPUs (llama.cpp PR #8035): buffers per device, KV total") {
  const RunLog log = ReadRunLog(s::kLlamaCppTwoGpus);
  REQUIRE(log.recognised);
  CHECK(log.source == RunSource::kLlamaCpp);
  CHECK(log.figures.size() == 10);
  const auto layers = Of(log, MeasuredKind::kLayersOffloaded);
  REQUIRE(layers.size() == 1);
  CHECK(layers[0].value == 78);
  CHECK(layers[0].of == 81);
  const auto weights = Of(log, MeasuredKind::kWeights);
  REQUIRE(weights.size() == 3);
  CHECK(weights[0].device == "CPU");
  CHECK(weights[0].value == doctest::Approx(22994.45 * MiB));
  CHECK(weights[1].device == "CUDA0");
  CHECK(weights[1].value == doctest::Approx(12633.25 * MiB));
  CHECK(weights[2].device == "CUDA1");
  CHECK(weights[2].value == doctest::Approx(8652.00 * MiB));
  const auto kv = Of(log, MeasuredKind::kKvCache);
  REQUIRE(kv.size() == 4);
  CHECK(kv[0].device == "CUDA_Host");
  CHECK(kv[1].value == doctest::Approx(1472.00 * MiB));
  CHECK(kv[3].device.empty());  // "KV self size": all devices
  // The per-device buffers add up to the total: 64 + 1472 + 1024 = 2560 MiB = K 1280 + V 1280.
  CHECK(kv[0].value + kv[1].value + kv[2].value == doctest::Approx(kv[3].value));
  CHECK(LastFigure(log, MeasuredKind::kActivations)->value == doctest::Approx(1108.50 * MiB));
  CHECK(LastFigure(log, MeasuredKind::kActivations)->device == "CUDA0");
  CHECK(LastFigure(log, MeasuredKind::kOutputBuffer)->value == doctest::Approx(0.98 * MiB));
  CHECK(log.settings.n_ctx == 8192);
  CHECK(log.settings.n_ctx_line == 7);
}

TEST_CASE("llama.cpp load_tensors (ollama#10114) and the memory breakdown (ollama#17482)") {
  const RunLog a = ReadRunLog(s::kLlamaCppLoadTensors);
  REQUIRE(a.recognised);
  CHECK(LastFigure(a, MeasuredKind::kLayersOffloaded)->value == 25);
  const auto w = Of(a, MeasuredKind::kWeights);
  REQUIRE(w.size() == 2);
  CHECK(w[0].device == "CUDA0");
  CHECK(w[0].value == doctest::Approx(577.22 * MiB));
  CHECK(w[1].device == "CPU_Mapped");
  CHECK(w[1].value == doctest::Approx(520.30 * MiB));
  CHECK(a.settings.n_ctx == -1);  // llama_init_from_model's n_ctx: not a form read (early 2025)

  const RunLog b = ReadRunLog(s::kLlamaCppBreakdown);
  REQUIRE(b.recognised);
  CHECK(b.figures.size() == 8);  // CUDA0: total, free, model, context, compute (unaccounted < 0); Host: 3
  const auto bw = Of(b, MeasuredKind::kWeights);
  REQUIRE(bw.size() == 2);
  CHECK(bw[0].device == "CUDA0");
  CHECK(bw[0].value == 15364 * MiB);
  CHECK(bw[1].device == "Host");
  CHECK(bw[1].value == 682 * MiB);
  CHECK(Of(b, MeasuredKind::kKvCache)[0].value == 411 * MiB);
  CHECK(Of(b, MeasuredKind::kActivations)[0].value == 170 * MiB);
  CHECK(Of(b, MeasuredKind::kActivations)[1].value == 122 * MiB);
  CHECK(LastFigure(b, MeasuredKind::kTotalGpu)->value == 24124 * MiB);
  CHECK(Of(b, MeasuredKind::kUnaccounted).empty());  // -15681: other programs freed memory meanwhile
  // self = model + context + compute, to the MiB each is rounded to: 15364 + 411 + 170 = 15945 ~ 15946.
  CHECK(15364 + 411 + 170 == doctest::Approx(15946).epsilon(0.0001));
}

TEST_CASE("Ollama: the offload plan (ollama#11819) and its engine's allocations (ollama PR #11090)") {
  const RunLog plan = ReadRunLog(s::kOllamaPlan);
  REQUIRE(plan.recognised);
  CHECK(plan.source == RunSource::kOllama);
  CHECK(plan.figures.size() == 5);
  const MeasuredFigure* layers = LastFigure(plan, MeasuredKind::kLayersOffloaded);
  CHECK(layers->value == 48);
  CHECK(layers->of == 49);
  CHECK(layers->form == "ollama_offload_plan");
  CHECK(LastFigure(plan, MeasuredKind::kWeights)->value == doctest::Approx(6.8 * GiB));
  CHECK(LastFigure(plan, MeasuredKind::kKvCache)->value == doctest::Approx(608.0 * MiB));
  // 48 of 49 layers: the partial graph is the one that applies.
  CHECK(LastFigure(plan, MeasuredKind::kActivations)->value == doctest::Approx(1.3 * GiB));
  CHECK(LastFigure(plan, MeasuredKind::kFreeAtStart)->value == doctest::Approx(10.9 * GiB));

  const RunLog engine = ReadRunLog(s::kOllamaEngine);
  REQUIRE(engine.recognised);
  CHECK(engine.figures.size() == 4);
  CHECK(LastFigure(engine, MeasuredKind::kLayersOffloaded)->value == 41);
  CHECK(LastFigure(engine, MeasuredKind::kLayersOffloaded)->of == 41);
  const auto w = Of(engine, MeasuredKind::kWeights);
  REQUIRE(w.size() == 3);
  CHECK(w[0].device == "CUDA0");
  CHECK(w[0].value == doctest::Approx(11.5 * GiB));
  CHECK(w[0].tolerance == doctest::Approx(0.05 * GiB));  // HumanBytes2: one decimal
  CHECK(w[1].device == "CUDA1");
  CHECK(w[2].device == "CPU");
  CHECK(w[2].value == doctest::Approx(680.0 * MiB));
}

TEST_CASE("torch.cuda.memory_stats() as JSON: the peaks and counters, each with its key") {
  // The keys torch/cuda/memory.py's memory_stats documents, written as json.dumps writes them
  // (the values here are a shape test of the reader, not a measurement).
  const char* dump =
      "{\n"
      "  \"active_bytes.all.peak\": 6442450944,\n"
      "  \"allocated_bytes.all.current\": 1073741824,\n"
      "  \"allocated_bytes.all.peak\": 6442450944,\n"
      "  \"num_alloc_retries\": 3,\n"
      "  \"num_ooms\": 1,\n"
      "  \"reserved_bytes.all.current\": 8589934592,\n"
      "  \"reserved_bytes.all.peak\": 10737418240\n"
      "}\n";
  const RunLog log = ReadRunLog(dump);
  REQUIRE(log.recognised);
  CHECK(log.source == RunSource::kMemoryStats);
  CHECK(log.figures.size() == 7);
  CHECK(LastFigure(log, MeasuredKind::kPeakAllocated)->value == 6442450944.0);
  CHECK(LastFigure(log, MeasuredKind::kPeakAllocated)->line == 4);
  CHECK(LastFigure(log, MeasuredKind::kPeakReserved)->value == 10737418240.0);
  CHECK(LastFigure(log, MeasuredKind::kPeakReserved)->line == 8);
  CHECK(LastFigure(log, MeasuredKind::kPeakActive)->value == 6442450944.0);
  CHECK(LastFigure(log, MeasuredKind::kCurrentReserved)->value == 8589934592.0);
  CHECK(LastFigure(log, MeasuredKind::kAllocRetries)->value == 3);
  CHECK(LastFigure(log, MeasuredKind::kOoms)->value == 1);
  CHECK(LastFigure(log, MeasuredKind::kOoms)->text == "\"num_ooms\": 1");
}

TEST_CASE("A text none of the readers knows is an error naming the lines expected") {
  for (const char* text : {"", "hello world\n", "{\"model\": \"llama\"}", "INFO 01-01 loading took ages\n"}) {
    const RunLog log = ReadRunLog(text);
    CHECK_FALSE(log.recognised);
    CHECK(log.figures.empty());
    CHECK(log.error.find("nothing in the text was recognised") != std::string::npos);
    CHECK(log.error.find("Available KV cache memory:") != std::string::npos);
    CHECK(log.error.find("KV Cache is allocated.") != std::string::npos);
    CHECK(log.error.find("model buffer size") != std::string::npos);
    CHECK(log.error.find("offloaded 29/29 layers to GPU") != std::string::npos);
    CHECK(log.error.find("allocated_bytes.all.peak") != std::string::npos);
  }
}

TEST_CASE("Run readers: hostile shapes stay bounded and read nothing wrong") {
  // A size with no number, a number with no unit, an exabyte, a line of a million characters.
  CHECK_FALSE(ReadRunLog("Model loading took GiB and 3 seconds\n").recognised);
  CHECK_FALSE(ReadRunLog("Available KV cache memory: 12\n").recognised);
  CHECK_FALSE(ReadRunLog("Available KV cache memory: 99999999999999 GiB\n").recognised);
  const std::string long_line = std::string(1u << 20, 'x') + " Model loading took 1.00 GiB\n";
  CHECK_FALSE(ReadRunLog(long_line).recognised);  // past the 64 KiB read of a line
  std::string many;
  for (int i = 0; i < 6000; ++i) many += "Available KV cache memory: 1.00 GiB\n";
  const RunLog log = ReadRunLog(many);
  CHECK(log.figures.size() == kRunMaxFigures);
  CHECK(log.dropped == 6000 - kRunMaxFigures);
  // UTF-16 with a byte-order mark (PowerShell's redirect) reads as its text.
  const std::string utf8 = "Available KV cache memory: 8.11 GiB\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : utf8) {
    utf16 += c;
    utf16 += '\0';
  }
  const RunLog u = ReadRunLog(utf16);
  REQUIRE(u.recognised);
  CHECK(LastFigure(u, MeasuredKind::kKvCache)->value == doctest::Approx(8.11 * GiB));
}
