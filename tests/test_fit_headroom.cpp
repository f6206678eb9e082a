// The fit answers every door gives: solved under one headroom policy (AnswerBudget: 2% of the
// card kept free, or a serving runtime's own share) and, for the sequence, within the
// model's context (MaxSequenceInContext).
#include <doctest.h>

#include "core/catalogue/presets.h"
#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/estimate/estimate.h"
#include "core/report/fit_json.h"
#include "core/solve/fit.h"
#include "core/solve/serve_fit.h"

using namespace llmmem::core;

TEST_CASE("Fit: answers keep 2% of the card free") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  const double cap = CapacityBytes(c);
  const int64_t b = MaxMicroBatch(c, FitBudget(cap));
  REQUIRE(b > 0);
  Config at = c;
  at.batch = b;
  const Totals t = EstimateTotals(at);
  CHECK(t.peak_bytes <= cap * 0.98);
  CHECK(cap - t.peak_bytes >= kFitHeadroom * cap);
}

TEST_CASE("Fit: the longest sequence stays within the model's context") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  c.seq = 512;
  // Learned positions: a longer sequence is an error, so both searches stop at the table.
  const Preset* gpt2 = FindPreset("gpt2");
  REQUIRE(gpt2 != nullptr);
  c.model = gpt2->model;  // 1024 learned positions; a 1024-token sequence fits many times over
  const double cap = CapacityBytes(c);
  CHECK(MaxSequence(c, cap) == 1024);
  CHECK(MaxSequenceInContext(c, cap) == 1024);
  // Rotary positions: longer is allowed (with a warning); the UI's answer stays within the
  // context the model was trained for.
  const Preset* qwen = FindPreset("qwen2.5-0.5b");
  REQUIRE(qwen != nullptr);
  c.model = qwen->model;
  REQUIRE(c.model.max_positions == 32768);
  CHECK(MaxSequence(c, cap) > 32768);
  CHECK(MaxSequenceInContext(c, cap) == 32768);
  // A model without a known context keeps the plain search.
  c.model.max_positions = 0;
  CHECK(MaxSequenceInContext(c, cap) == MaxSequence(c, cap));
}

// Issue 29: one headroom policy and one answer per question, whichever door asks.
TEST_CASE("Fit: one headroom policy, stated with the answers (AnswerBudget)") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  // HF generate (and training): 2% of the card stays free.
  CHECK(AnswerHeadroom(c) == kFitHeadroom);
  CHECK(AnswerBudget(c) == FitBudget(CapacityBytes(c)));
  // vLLM and SGLang budget memory themselves (gpu_memory_utilization): the capacity is already
  // that share, so nothing more is kept back and the answers match the runtime's own figures.
  for (Runtime r : {Runtime::kVllm, Runtime::kSglang}) {
    c.runtime = r;
    CHECK(AnswerHeadroom(c) == 0);
    CHECK(AnswerBudget(c) == CapacityBytes(c));
  }
  // Under llama.cpp the card is PyTorch-free memory, but ggml's own buffers jitter as well.
  c.runtime = Runtime::kLlamaCpp;
  CHECK(AnswerHeadroom(c) == kFitHeadroom);
  // A training configuration never takes a runtime's budget.
  c.mode = Mode::kTraining;
  c.runtime = Runtime::kVllm;
  CHECK(AnswerHeadroom(c) == kFitHeadroom);
}

TEST_CASE("Fit: the Fit answers, the serving answers and the JSON agree (two doors, one answer)") {
  // The UI's Fit tab and the CLI/JS API's fit JSON both read AnswerFit; the Serving tab reads
  // FitServing. Over presets, runtimes and GPUs, the same question gets the same number.
  const char* models[] = {"llama-3.1-8b", "qwen2.5-0.5b", "gpt2", "mixtral-8x7b"};
  const char* gpus[] = {"RTX-4090-24GB", "A100-SXM-80GB", "L4-24GB"};
  const Runtime runtimes[] = {Runtime::kHfGenerate, Runtime::kVllm, Runtime::kSglang, Runtime::kLlamaCpp};
  int compared = 0;
  for (const char* key : models) {
    const Preset* p = FindPreset(key);
    if (p == nullptr || !p->ok) continue;
    for (const char* gpu : gpus) {
      for (Runtime r : runtimes) {
        Config c = DefaultConfig();
        c.model = p->model;
        c.mode = Mode::kInference;
        c.runtime = r;
        c.seq = 2048;
        Diagnostics ignored;
        if (!SetField(c, "gpu", gpu, ignored)) continue;
        if (IsGgml(r)) c.dtype = Dtype::kQ4_K_M;
        if (!EstimateTotals(c).ok) continue;
        CAPTURE(key);
        CAPTURE(gpu);
        CAPTURE(Id(r));
        const FitAnswers a = AnswerFit(c);
        const ServeFit f = FitServing(c);
        REQUIRE(f.ok);
        CHECK(f.max_concurrency == a.max_micro_batch);
        CHECK(f.max_context == a.max_sequence);
        CHECK(f.formats_found == a.formats.found);
        if (f.formats_found) {
          CHECK(f.dtype == a.formats.dtype);
          CHECK(f.kv_dtype == a.formats.kv_dtype);
        }
        const Json j = FitToJson(c);
        CHECK(j.Find("max_micro_batch")->AsNumber() == static_cast<double>(a.max_micro_batch));
        CHECK(j.Find("max_sequence")->AsNumber() == static_cast<double>(a.max_sequence));
        CHECK(j.Find("serving")->Find("max_concurrency")->AsNumber() == static_cast<double>(f.max_concurrency));
        CHECK(j.Find("serving")->Find("max_context")->AsNumber() == static_cast<double>(f.max_context));
        // One "most precise format" answer in the document (it once held q6_k_file and awq).
        const Json* inf = j.Find("inference_formats");
        const Json* srv = j.Find("serving")->Find("formats");
        CHECK(inf->Find("found")->AsBool() == srv->Find("found")->AsBool());
        if (inf->Find("found")->AsBool()) CHECK(inf->Find("dtype")->AsString() == srv->Find("dtype")->AsString());
        // The answer fits its budget and one more does not.
        if (a.max_micro_batch > 0 && a.max_micro_batch < int64_t{1} << 20) {
          Config at = c, over = c;
          at.batch = a.max_micro_batch;
          over.batch = a.max_micro_batch + 1;
          CHECK(FitsBudget(EstimateTotals(at), a.budget_bytes));
          CHECK_FALSE(FitsBudget(EstimateTotals(over), a.budget_bytes));
        }
        ++compared;
      }
    }
  }
  CHECK(compared >= 30);
}
