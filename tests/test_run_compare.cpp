// The run beside the estimate (core/run/run_compare.h): measured figures of logs quoted from
// public issues (tests/run_samples.h) matched to the estimate's rows by category.
#include <doctest.h>

#include <string>

#include "core/catalogue/presets.h"
#include "core/config/config.h"
#include "core/config/config_json.h"
#include "core/run/run_compare.h"
#include "core/run/run_json.h"
#include "run_samples.h"

using namespace llmmem::core;
namespace s = llmmem::test::run_samples;

namespace {

constexpr double GiB = 1073741824.0;

Config Serving(const char* preset, Runtime r, int64_t seq) {
  Config c = DefaultConfig();
  c.model = FindPreset(preset)->model;
  c.mode = Mode::kInference;
  c.runtime = r;
  c.seq = seq;
  return c;
}

const RunComparisonRow* Row(const std::vector<RunComparisonRow>& rows, RunCategory k) {
  for (const RunComparisonRow& r : rows)
    if (r.category == k) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("vLLM v0.6.5's profile of Llama-3-8B on an H100 (vllm PR #10511) beside the vLLM estimate") {
  const RunLog log = ReadRunLog(s::kVllmTable);
  const RunComparison cmp = CompareRun(log, Serving("llama-3-8b", Runtime::kVllm, 8192), false);
  REQUIRE(cmp.ok);
  const RunComparisonRow* w = Row(cmp.rows, RunCategory::kWeights);
  REQUIRE(w != nullptr);
  CHECK(w->measured == doctest::Approx(14.96 * GiB));
  CHECK(w->lines == std::vector<size_t>{6});
  // 8.03e9 parameters in bf16: 16.06e9 B = 14.96 GiB, what vLLM measured.
  CHECK(w->estimated == doctest::Approx(16.06e9).epsilon(0.001));
  CHECK(w->ratio == doctest::Approx(1.0).epsilon(0.005));
  const RunComparisonRow* kv = Row(cmp.rows, RunCategory::kKvCache);
  REQUIRE(kv != nullptr);
  CHECK(kv->measured == doctest::Approx(53.29 * GiB));
  // The pool is what the 0.9 budget leaves: the estimate's within 2% of vLLM's 53.29 GiB.
  CHECK(kv->ratio == doctest::Approx(1.0).epsilon(0.02));
  CHECK(kv->estimate_rows.size() == 2);  // the blocks in use and the free ones: one pool
  const RunComparisonRow* nt = Row(cmp.rows, RunCategory::kNonTorch);
  REQUIRE(nt != nullptr);
  CHECK(nt->measured == doctest::Approx(1.79 * GiB));  // v0.6.5 on one H100: far more than the estimate's 0.16 GiB
  CHECK(nt->ratio > 5);
  // No graph line in this log: the estimate's CUDA graphs are "not in the log", not a zero.
  CHECK(Row(cmp.not_measured, RunCategory::kCudaGraphs) != nullptr);
  CHECK(Row(cmp.rows, RunCategory::kCudaGraphs) == nullptr);
  CHECK(cmp.not_modelled.empty());
  // The log's gpu_memory_utilization is vLLM's default, the estimate's too: nothing to note.
  for (const std::string& n : cmp.notes) CHECK(n.find("mem_fraction") == std::string::npos);
}

TEST_CASE("A measured figure the estimate has no row for is named not modelled, never folded into a row") {
  const RunLog log = ReadRunLog(s::kVllmUsage);
  Config c = Serving("gemma-3-4b", Runtime::kVllm, 4096);
  c.cuda_graphs = false;  // the estimate of --enforce-eager: no CUDA-graph row
  const RunComparison cmp = CompareRun(log, c, false);
  REQUIRE(cmp.ok);
  const RunComparisonRow* g = Row(cmp.not_modelled, RunCategory::kCudaGraphs);
  REQUIRE(g != nullptr);
  CHECK(g->measured == doctest::Approx(0.65 * GiB));
  CHECK(g->estimated < 0);
  CHECK(g->note.find("not modelled") != std::string::npos);
  CHECK(Row(cmp.rows, RunCategory::kCudaGraphs) == nullptr);
  // The other rows carry only their own figures.
  CHECK(Row(cmp.rows, RunCategory::kWeights)->measured == doctest::Approx(8.58 * GiB));
  CHECK(Row(cmp.rows, RunCategory::kActivations)->measured == doctest::Approx(9.96 * GiB));
  CHECK(Row(cmp.rows, RunCategory::kNonTorch)->measured == doctest::Approx(0.07 * GiB));
  // With graphs on, the same figure has a row to sit beside.
  c.cuda_graphs = true;
  const RunComparison on = CompareRun(log, c, false);
  REQUIRE(Row(on.rows, RunCategory::kCudaGraphs) != nullptr);
  CHECK(Row(on.rows, RunCategory::kCudaGraphs)->measured == doctest::Approx(0.65 * GiB));
}

TEST_CASE("Settings read from the log (vllm PR #17122): runtime and max_model_len, said so") {
  const RunLog log = ReadRunLog(s::kVllmV1);
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  c.gpu = "L40S-48GB";
  const RunComparison applied = CompareRun(log, c, true);
  CHECK(applied.config.runtime == Runtime::kVllm);
  CHECK(applied.config.mode == Mode::kInference);
  CHECK(applied.config.seq == 32768);
  bool said = false;
  for (const std::string& n : applied.notes) said |= n.find("max_model_len (line 4)") != std::string::npos;
  CHECK(said);
  REQUIRE(applied.ok);
  CHECK(Row(applied.rows, RunCategory::kWeights)->measured == doctest::Approx(14.9889 * GiB));
  // The KV pool in tokens and the concurrency beside the serving report's.
  REQUIRE(applied.counts.size() == 2);
  CHECK(applied.counts[0].label == "KV pool (tokens)");
  CHECK(applied.counts[0].measured == 158656);
  CHECK(applied.counts[0].estimated > 0);
  CHECK(applied.counts[1].measured == doctest::Approx(4.84));
  // Without --from-log the difference is noted, the estimate left as given.
  const RunComparison given = CompareRun(log, c, false);
  CHECK(given.config.seq == c.seq);
  bool noted = false;
  for (const std::string& n : given.notes) noted |= n.find("the log differs") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("llama.cpp's first GPU is compared, its host buffers left out (llama.cpp PR #8035)") {
  const RunLog log = ReadRunLog(s::kLlamaCppTwoGpus);
  const RunComparison cmp = CompareRun(log, Serving("llama-3-70b", Runtime::kLlamaCpp, 8192), false);
  CHECK(cmp.device == "CUDA0");
  const RunComparisonRow* w = Row(cmp.rows, RunCategory::kWeights);
  REQUIRE(w != nullptr);
  CHECK(w->measured == doctest::Approx(12633.25 * 1048576.0));  // CUDA0's, not the CPU's 22994 MiB
  const RunComparisonRow* kv = Row(cmp.rows, RunCategory::kKvCache);
  REQUIRE(kv != nullptr);
  CHECK(kv->measured == doctest::Approx(1472.0 * 1048576.0));  // CUDA0's buffer, not the 2560 MiB total
  const RunComparisonRow* a = Row(cmp.rows, RunCategory::kActivations);
  REQUIRE(a != nullptr);
  CHECK(a->measured == doctest::Approx(1108.50 * 1048576.0));  // the CUDA_Host output buffer left out
}

TEST_CASE("Ollama's plan is set beside the estimate as its plan, not as an allocation (ollama#11819)") {
  const RunLog log = ReadRunLog(s::kOllamaPlan);
  const RunComparison cmp = CompareRun(log, Serving("llama-3.1-8b", Runtime::kOllama, 2048), false);
  const RunComparisonRow* w = Row(cmp.rows, RunCategory::kWeights);
  REQUIRE(w != nullptr);
  CHECK(w->measured == doctest::Approx(6.8 * GiB));
  CHECK(w->note.find("Ollama's own plan") != std::string::npos);
}

TEST_CASE("memory_stats() peaks beside the estimate's allocated and reserved peaks; none for a serving log") {
  const char* dump = "{\"allocated_bytes.all.peak\": 6442450944, \"reserved_bytes.all.peak\": 10737418240}";
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.2-1b")->model;
  c.mode = Mode::kLora;
  const RunComparison cmp = CompareRun(ReadRunLog(dump), c, false);
  REQUIRE(cmp.ok);
  REQUIRE(cmp.rows.size() == 2);
  CHECK(cmp.rows[0].label == "Peak allocated");
  CHECK(cmp.rows[0].measured == 6442450944.0);
  CHECK(cmp.rows[0].estimate_rows == std::vector<std::string>{"totals.allocated_bytes"});
  CHECK(cmp.rows[0].estimated > 0);
  CHECK(cmp.rows[1].label == "Peak reserved");
  CHECK(cmp.rows[1].estimated >= cmp.rows[0].estimated);  // reserved holds the allocated and the cache
  const RunComparison serving = CompareRun(ReadRunLog(s::kVllmTable), Serving("llama-3-8b", Runtime::kVllm, 8192), false);
  for (const RunComparisonRow& r : serving.rows) CHECK(r.category != RunCategory::kAllocatorPeak);
  // The JSON carries the same rows.
  const Json j = RunReadingToJson(ReadRunLog(dump), &cmp);
  REQUIRE(j.Find("comparison") != nullptr);
  CHECK(j.Find("comparison")->Find("rows")->AsArray().size() == 2);
}
