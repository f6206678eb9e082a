// Issue 28, "confident answers that are wrong": the verdict says "fits" only when every part
// of the memory is counted, the host RAM set holds what is placed there, the layout is one a
// framework runs and the capacity is one a device has; every warning that means "may not fit
// or unknown" (LimitsVerdict) comes with a verdict that is not "fits".
#include <doctest.h>

#include <set>
#include <string>

#include "core/catalogue/gpus.h"
#include "core/estimate/serving.h"
#include "core/estimate/verdict.h"
#include "core/hub/hub_model.h"
#include "core/solve/fit.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

bool HasDiagnostic(const Diagnostics& ds, DiagId id, Severity severity, const std::string& field = "") {
  for (const Diagnostic& d : ds)
    if (d.id == id && d.severity == severity && (field.empty() || d.field == field)) return true;
  return false;
}

// A model known only by its parameter count, as a Hub repo whose config.json the importer
// cannot read gives it: the weights' header says 6.7B parameters, nothing else.
ModelSpec WeightsOnlyModel(int64_t params) {
  ModelSpec m;
  m.name = "org/unreadable";
  m.hidden = m.layers = m.heads = m.kv_heads = m.head_dim = m.ffn = 0;
  m.params_override = params;
  return m;
}

double CategoryBytes(const Totals& t, Category c) { return t.category_bytes[static_cast<int>(c)]; }

}  // namespace

TEST_CASE("Verdict a: a model without an architecture is incomplete at 64 x 131,072 tokens, not \"fits\"") {
  Config c = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"batch", "64"}, {"seq", "131072"}});
  c.model = WeightsOnlyModel(6'700'000'000);
  const Totals t = EstimateTotals(c);
  REQUIRE(t.ok);
  CHECK(t.peak_bytes < t.capacity_bytes);  // the weights alone are under the capacity
  CHECK_FALSE(t.Fits());                   // ... but the KV cache (about 4.4 TB) is not counted
  CHECK(t.Judge() == Verdict::kIncomplete);
  CHECK(t.not_counted == (kNotCountedKvCache | kNotCountedActivations));
  const std::string note = VerdictNote(c, t);
  CHECK(note.find("weights only: the KV cache and activations are unknown because") == 0);
  CHECK(HasDiagnostic(Validate(c), DiagId::kNotCounted, Severity::kWarning, "model"));
  // The same model with its architecture is counted and does not fit.
  c.model = FindPreset("llama-3.1-8b")->model;
  CHECK(EstimateTotals(c).Judge() == Verdict::kDoesNotFit);
  // Training without an architecture leaves the activations unknown.
  Config train = WithSettings("llama-3.1-8b", {{"mode", "train"}, {"gpu", "B200-180GB"}});
  train.model = WeightsOnlyModel(1'000'000'000);
  CHECK(EstimateTotals(train).not_counted == kNotCountedActivations);
  CHECK_FALSE(EstimateTotals(train).Fits());
}

TEST_CASE("Verdict a: a Hub repo whose config.json the importer cannot read estimates as incomplete") {
  const std::string config = R"({"model_type":"mystery","some_size":4096})";
  HubModelInfo info;
  info.safetensors_total = 6'700'000'000;
  const HubModelBuild b =
      BuildHubModel(HubModelInput{"org/mystery", &config, "net", nullptr, "", "", &info, "api"});
  REQUIRE(b.ok);
  Config c = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"batch", "64"}, {"seq", "131072"}});
  c.model = b.model;
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  CHECK(e.totals.Judge() == Verdict::kIncomplete);
  CHECK(e.totals.Judge() == EstimateTotals(c).Judge());
}

TEST_CASE("Verdict b: llama.cpp with every layer on the CPU does not fit 16 GB of RAM") {
  Config c = WithSettings("llama-3.1-405b", {{"mode", "infer"},
                                             {"runtime", "llama.cpp"},
                                             {"dtype", "q8_0"},
                                             {"gpu_layers", "0"},
                                             {"ram_gb", "16"},
                                             {"gpu", "T4-16GB"}});
  const Totals t = EstimateTotals(c);
  REQUIRE(t.ok);
  CHECK(t.GpuHolds());  // the GPU holds its buffers
  const ServingReport r = Serve(c);
  CHECK_FALSE(r.ram_fits);
  CHECK(r.ram_bytes > 400e9);
  CHECK(t.host_bytes == r.ram_bytes);
  CHECK(t.host_short);
  CHECK_FALSE(t.Fits());
  CHECK(t.Judge() == Verdict::kDoesNotFit);
  const Estimate e = Explain(c);
  CHECK(HasDiagnostic(e.diagnostics, DiagId::kHostShort, Severity::kWarning, "ram_gb"));
  CHECK(VerdictNote(c, t).find("host RAM set (ram_gb 16 GB)") != std::string::npos);
  // Enough RAM: it fits; no RAM set: not checked.
  Apply(c, {{"ram_gb", "1000"}});
  CHECK(EstimateTotals(c).Fits());
  Apply(c, {{"ram_gb", "0"}});
  CHECK(EstimateTotals(c).Fits());
}

TEST_CASE("Verdict c: GGUF under HF generate is held as transformers dequantizes it (fp32), said in the breakdown") {
  Config gguf = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"dtype", "q4_k_m"}, {"seq", "4096"}});
  Config fp32 = gguf;
  Apply(fp32, {{"dtype", "fp32"}});
  const Totals g = EstimateTotals(gguf), f = EstimateTotals(fp32);
  REQUIRE(g.ok);
  CHECK(CategoryBytes(g, Category::kWeights) == CategoryBytes(f, Category::kWeights));
  CHECK(CategoryBytes(g, Category::kWeights) > 32e9);  // 8.03B x 4 bytes, not 4.9 GB packed
  CHECK(g.peak_bytes == f.peak_bytes);
  const Estimate e = Explain(gguf);
  const BreakdownNode* w = e.tree.Find("total.model_states.weights");
  REQUIRE(w != nullptr);
  CHECK(w->formula.find("transformers dequantizes the GGUF file (q4_k_m)") != std::string::npos);
  CHECK(w->source.find("modeling_gguf_pytorch_utils.py") != std::string::npos);
  // llama.cpp runs the file as it is: packed.
  Apply(gguf, {{"runtime", "llama.cpp"}});
  CHECK(CategoryBytes(EstimateTotals(gguf), Category::kWeights) < 6e9);
}

TEST_CASE("Verdict d: context and sequence parallelism refuse sequences they cannot split") {
  Config cp = WithSettings("llama-3.1-8b", {{"mode", "train"}, {"cp", "7"}, {"seq", "4097"}});
  CHECK_FALSE(IsValid(cp));
  CHECK(HasDiagnostic(Validate(cp), DiagId::kUnrunnableLayout, Severity::kError, "seq"));
  Apply(cp, {{"seq", "4102"}});  // 293 x 14
  CHECK(IsValid(cp));
  Config sp = WithSettings("llama-3.1-8b", {{"mode", "train"}, {"tp", "8"}, {"sp", "1"}, {"seq", "4097"}});
  CHECK_FALSE(IsValid(sp));
  CHECK(HasDiagnostic(Validate(sp), DiagId::kUnrunnableLayout, Severity::kError, "seq"));
  Apply(sp, {{"sp", "0"}});
  CHECK(IsValid(sp));  // without sequence parallelism each rank holds the whole sequence
  // The solvers answer with sequences the layout runs.
  Apply(cp, {{"gpu", "B200-180GB"}});
  const int64_t longest = MaxSequence(cp, CapacityBytes(cp));
  CHECK(longest > 0);
  CHECK(longest % 14 == 0);
}

TEST_CASE("Verdict e: with more TP ranks than KV heads the k/v weights are replicated as the KV cache is") {
  // Llama 3.1 8B: 32 heads, 8 KV heads of 128, hidden 4096, 32 layers. From tp 8 on each rank
  // holds one KV head: its K/V weights and cache stay the same, Q and O keep shrinking.
  const auto at = [](const char* tp) {
    return EstimateTotals(WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"tp", tp}, {"dtype", "bf16"}}));
  };
  const Totals t8 = at("8"), t32 = at("32");
  REQUIRE(t8.ok);
  REQUIRE(t32.ok);
  CHECK(CategoryBytes(t8, Category::kKvCache) == CategoryBytes(t32, Category::kKvCache));
  const Config c8 = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"tp", "8"}, {"dtype", "bf16"}});
  const Config c32 = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"tp", "32"}, {"dtype", "bf16"}});
  const double a8 = Explain(c8).tree.Find("total.model_states.weights.attention")->bytes;
  const double a32 = Explain(c32).tree.Find("total.model_states.weights.attention")->bytes;
  // Q and O (4096 x 4096 each, 32 layers, 2 bytes) split 8 ways vs 32; K and V (4096 x 128
  // each per rank) alike at both.
  const double q_and_o = 2.0 * 4096 * 4096 * 32 * 2;
  CHECK(a8 - a32 == doctest::Approx(q_and_o / 8 - q_and_o / 32).epsilon(1e-9));
  CHECK(a32 == doctest::Approx(q_and_o / 32 + 2.0 * 4096 * 128 * 32 * 2).epsilon(1e-9));
  // Megatron-LM splits the query groups and refuses the layout in training.
  Config megatron = WithSettings("llama-3.1-8b", {{"mode", "train"}, {"framework", "megatron"}, {"tp", "16"}});
  CHECK(HasDiagnostic(Validate(megatron), DiagId::kUnrunnableLayout, Severity::kError, "tp"));
  CHECK_FALSE(IsValid(megatron));
}

TEST_CASE("Verdict f: a GPU memory far beyond any device is refused, not named as the catalogue's card") {
  Config c = DefaultConfig();
  const std::string set = FindField("gpu_memory_gb")->set(c, "100000");
  CHECK_FALSE((set.empty() && IsValid(c)));
  c.gpu_memory_gb = 100'000;
  CHECK_FALSE(IsValid(c));
  CHECK(HasDiagnostic(Validate(c), DiagId::kOutOfRange, Severity::kError, "gpu_memory_gb"));
  // Every card of the catalogue stays within the range.
  for (const Gpu& g : Gpus()) {
    c.gpu_memory_gb = g.UsableBytes() / 1e9;
    CHECK_MESSAGE(IsValid(c), g.key);
  }
}

// Rule g: a warning that LimitsVerdict marks ("may not fit / unknown") never comes with
// "fits", and a verdict held back by an unknown part or the host RAM comes with one; the fast
// path and Explain agree on the verdict. Over presets, modes, runtimes, formats, RAM and
// parameter-count-only models.
TEST_CASE("Verdict g: every warning that means \"may not fit\" is in the verdict, over many configurations") {
  std::set<std::string> seen;
  int checked = 0;
  for (const char* preset : {"llama-3.1-8b", "qwen2.5-7b", "mixtral-8x7b", "gpt2", "llama-3.1-70b"}) {
    for (const char* mode : {"infer", "train", "lora", "qlora", "rlhf"}) {
      for (const char* runtime : {"hf-generate", "vllm", "sglang", "llama.cpp", "ollama"}) {
        for (const char* dtype : {"bf16", "q4_k_m", "fp8"}) {
          for (const char* ram : {"0", "16"}) {
            for (const bool params_only : {false, true}) {
              Config c = WithSettings(preset, {{"mode", mode}, {"runtime", runtime}, {"ram_gb", ram}, {"seq", "4096"}});
              if (FindField("dtype")->set(c, dtype).empty() == false) continue;
              if (params_only) c.model = WeightsOnlyModel(CountParameters(c.model).total);
              if (std::string(runtime) == "llama.cpp" || std::string(runtime) == "ollama") c.gpu_layers = 8;
              const Estimate e = Explain(c);
              if (!e.totals.ok) continue;
              ++checked;
              CAPTURE(preset);
              CAPTURE(mode);
              CAPTURE(runtime);
              CAPTURE(dtype);
              CAPTURE(ram);
              CAPTURE(params_only);
              bool limiting = false;
              for (const Diagnostic& d : e.diagnostics) {
                if (d.severity != Severity::kWarning) continue;
                seen.insert(DiagIdName(d.id));
                limiting |= LimitsVerdict(d.id);
              }
              const Totals& t = e.totals;
              CHECK(limiting == (t.not_counted != 0 || t.host_short));
              if (limiting) CHECK(t.Judge() != Verdict::kFits);
              CHECK(EstimateTotals(c).Judge() == t.Judge());
              CHECK(EstimateTotals(c).host_short == t.host_short);
            }
          }
        }
      }
    }
  }
  CHECK(checked > 300);
  // The grid reaches each warning that limits the verdict.
  CHECK(seen.count("not_counted") == 1);
  CHECK(seen.count("host_short") == 1);
}
