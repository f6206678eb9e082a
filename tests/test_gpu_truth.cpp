// The estimate against what an H200 really held (tests/truth/gpu_measure.py, torch 2.11,
// transformers 5.17, peft 0.21; tests/data/gpu_truth_h200_torch-2.11.json). Each case
// builds the run's model from the config.json it measured, sets the run's settings by
// field name (as the CLI's flags do) and compares with torch.cuda.max_memory_allocated of
// the second iteration. tests/truth/gpu_table.py prints every run; these pin the
// mechanisms: the optimizer step's transients, the loss's gradients versus a recomputed
// layer, the saved tensors under FlashAttention, the dynamic KV cache.
#include <doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/catalogue/embedded.h"
#include "core/estimate/estimate.h"
#include "core/config/fields.h"
#include "core/import/hf_config.h"
#include "core/parse/json.h"
#include "setups.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
}

using namespace llmmem::core;
using namespace llmmem::test;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

const Json& GpuDocument() {
  static const Json doc = [] {
    for (const EmbeddedFile* f = kEmbeddedTestData; f->name != nullptr; ++f) {
      if (std::strncmp(f->name, "gpu_truth_h200", 14) == 0) return ParseJson(f->Text()).value;
    }
    return Json();
  }();
  return doc;
}

const Json& Run(const std::string& id) {
  static const Json none;
  const Json* runs = GpuDocument().Find("runs");
  REQUIRE(runs != nullptr);
  for (const Json& r : runs->AsArray()) {
    if (r.Find("id")->AsString() == id) return r;
  }
  FAIL("no run " << id << " in the GPU measurements");
  return none;
}

const Json& Phase(const Json& run, const char* name) {
  static const Json none;
  for (const Json& p : run.Find("phases")->AsArray()) {
    if (p.Find("phase")->AsString() == name) return p;
  }
  FAIL("no phase " << name);
  return none;
}

double Measured(const Json& run, const char* phase, const char* key) { return Phase(run, phase).Find(key)->AsNumber(); }

// The run's settings, as tests/truth/gpu_table.py passes them to the CLI.
Config RunConfig(const Json& run) {
  const std::string model = run.Find("model")->AsString();
  const HfImport hf = ImportHfConfig(*GpuDocument().Find("configs")->Find(model), model);
  REQUIRE(hf.ok);
  Config c;
  c.model = hf.model;
  const std::string kind = run.Find("kind")->AsString();
  const bool lora = kind == "lora";
  // AMP (gpu_measure.py's autocast): full fine-tuning keeps fp32 weights, LoRA a bf16 base.
  const Json* amp = run.Find("amp");
  const bool autocast = amp != nullptr && amp->AsBool();
  const bool fp32 = autocast && kind == "train";
  std::vector<std::pair<const char*, std::string>> set = {
      {"dtype", fp32 ? "fp32" : "bf16"},
      {"autocast", autocast ? "bf16" : "off"},
      {"batch", std::to_string(static_cast<int64_t>(run.Find("batch")->AsNumber()))},
      {"framework", run.Find("attn")->AsString() == "eager" ? "hf-eager" : "hf-sdpa"},
      {"cuda_context_gb", "0"},
      {"fragmentation_pct", "0"},
      {"comm_buffer_gb", "0"},
      {"gpu", "H200-141GB"}};
  if (kind == "infer") {
    const int64_t tokens = static_cast<int64_t>(run.Find("prompt")->AsNumber() + run.Find("new_tokens")->AsNumber());
    set.insert(set.end(), {{"mode", "infer"}, {"seq", std::to_string(tokens)}, {"kv_dtype", "bf16"}});
  } else {
    set.insert(set.end(),
               {{"mode", lora ? "lora" : "train"},
                {"seq", std::to_string(static_cast<int64_t>(run.Find("seq")->AsNumber()))},
                {"optimizer", "adamw"},
                {"optimizer_impl", run.Find("optim")->AsString()},
                {"master_weights", "0"},
                {"grad_dtype", fp32 ? "fp32" : "bf16"},
                {"optimizer_dtype", lora || fp32 ? "fp32" : "bf16"},  // torch keeps states in the parameter's dtype
                {"recompute", run.Find("gc")->AsString() == "none" ? "none" : "full"},
                {"dropout", "0"}});
    if (lora) set.insert(set.end(), {{"lora_rank", "16"}, {"lora_targets", "all"}, {"lora_dropout", "0"}});
  }
  for (const auto& field : set) {  // no structured binding: clang 14 cannot capture one in doctest's lambdas
    const FieldDef* f = FindField(field.first);
    REQUIRE(f != nullptr);
    REQUIRE_MESSAGE(f->set(c, field.second).empty(), field.first);
  }
  return c;
}

// Every activation at the end of forward but the loss's backward transient: what the
// saved-tensor hooks see.
double SavedAtForwardEnd(const Estimate& e) {
  double kept = 0;
  std::vector<const BreakdownNode*> stack = {&e.tree};
  while (!stack.empty()) {
    const BreakdownNode* n = stack.back();
    stack.pop_back();
    for (const BreakdownNode& ch : n->children) stack.push_back(&ch);
    if (n->children.empty() && n->category == Category::kActivations &&
        n->id.find("loss_transient") == std::string::npos)
      kept += n->moment_bytes[0];
  }
  return kept;
}

double PeakOfSecondIteration(const Json& run) {
  double peak = 0;
  for (const Json& p : run.Find("phases")->AsArray()) {
    const std::string name = p.Find("phase")->AsString();
    if (name.size() > 2 && name.compare(name.size() - 2, 2, "_2") == 0)
      peak = std::max(peak, p.Find("max_allocated")->AsNumber());
  }
  return peak;
}

}  // namespace

TEST_CASE("H200: the optimizer step of pure-bf16 AdamW is 5x the weights with foreach, 4x fused (Llama-3.1-8B shape)") {
  // Measured: 76,648.6 MiB (foreach) and 61,332.2 MiB (fused) during step_2, 15,316.5 MiB of weights.
  const Json& foreach_run = Run("llama-8b_train+gc_foreach_b2_s2048_sdpa");
  const Json& fused_run = Run("llama-8b_train+gc_fused_b2_s2048_sdpa");
  CHECK(Measured(foreach_run, "step_2", "max_allocated") / kMiB == doctest::Approx(76648.6).epsilon(1e-5));
  const Estimate e = Explain(RunConfig(foreach_run));
  const Estimate f = Explain(RunConfig(fused_run));
  CHECK(e.totals.peak_moment == Moment::kOptimizerStep);
  CHECK(e.totals.moment_bytes[1] / Measured(foreach_run, "step_2", "max_allocated") ==
        doctest::Approx(1).epsilon(0.005));
  CHECK(f.totals.moment_bytes[1] / Measured(fused_run, "step_2", "max_allocated") == doctest::Approx(1).epsilon(0.005));
}

TEST_CASE("H200: the for-loop step keeps two temporaries of the largest tensor") {
  const Json& loop = Run("llama-1.2b_train_forloop_b4_s1024_sdpa");
  const double transient = Measured(loop, "step_2", "max_allocated") - Measured(loop, "step_2", "allocated_before");
  const double embedding = 128256.0 * 2048 * 2;  // bf16, tied: the largest tensor
  CHECK(transient / (2 * embedding) == doctest::Approx(1).epsilon(0.001));
  const Estimate e = Explain(RunConfig(loop));
  CHECK(e.tree.Find("total.model_states.step_temporaries")->moment_bytes[1] == 2 * embedding);
}

TEST_CASE("H200: the loss's gradients and a recomputed layer never coexist (LoRA, checkpointing, 16K tokens)") {
  const Json& run = Run("llama-1.2b_lora+gc_foreach_b1_s16384_sdpa");
  const Estimate e = Explain(RunConfig(run));
  // The backward's peak is the loss path's: 27,755.4 MiB measured. Summing the recomputed
  // layer on top of the loss's gradients gave 30,121 MiB (1.085x).
  CHECK(e.totals.peak_moment == Moment::kForwardEnd);
  CHECK(e.totals.allocated_bytes / PeakOfSecondIteration(run) == doctest::Approx(1).epsilon(0.01));
  const BreakdownNode* remat = e.tree.Find("total.activations.rematerialised_layer");
  REQUIRE(remat != nullptr);
  CHECK(remat->moment_bytes[static_cast<int>(Moment::kForwardEnd)] == 0);
  CHECK(remat->moment_bytes[static_cast<int>(Moment::kLayerBackward)] > 0);
}

// Within bytes: the estimate leaves out the flash kernel's RNG seed and offset (2 x 8 B per
// layer, saved even without dropout) and NllLoss's total_weight (4 B).
TEST_CASE("H200: saved activations under FlashAttention equal the estimate within a few hundred bytes") {
  for (const char* id : {"llama-1.2b_train_foreach_b4_s1024_sdpa", "qwen2-0.5b_lora_foreach_b4_s1024_sdpa",
                         "mistral-1.6b_train_foreach_b4_s1024_sdpa", "llama-8b_lora_foreach_b1_s2048_sdpa"}) {
    INFO(id);
    const Json& run = Run(id);
    const double kept = SavedAtForwardEnd(Explain(RunConfig(run)));
    const double measured = Measured(run, "forward_2", "saved_activation_bytes");
    INFO("estimate " << kept << " B, measured " << measured << " B");
    CHECK(measured - kept >= 0);
    CHECK(measured - kept <= 4 + 16 * 32 + 8);
  }
}

TEST_CASE("H200: the dynamic KV cache of generate() is what the estimate counts") {
  const Json& run = Run("mistral-1.6b_infer_b4_p512_n64_sdpa");
  const Estimate e = Explain(RunConfig(run));
  const BreakdownNode* kv = e.tree.Find("total.inference.kv_cache");
  REQUIRE(kv != nullptr);
  // 575 tokens cached (prompt + 63 decode steps) against 576 counted: one token's worth.
  CHECK(kv->bytes / Measured(run, "generate", "kv_cache_bytes") == doctest::Approx(576.0 / 575).epsilon(1e-6));
}

// PyTorch AMP over fp32 weights: an fp32 residual stream, a 16-bit copy of the norm's output
// per projection, and a 16-bit copy of every weight kept for backward; over a bf16 LoRA base,
// a 16-bit copy of each fp32 adapter's input and weights. Measured without checkpointing,
// within the same bytes as pure bf16.
TEST_CASE("H200: autocast (AMP) keeps fp32 norms, a copy per projection and 16-bit weight copies") {
  for (const char* id : {"llama-1.2b_train_foreach_b4_s1024_sdpa_amp", "mistral-1.6b_train_foreach_b4_s1024_sdpa_amp",
                         "llama-1.2b_lora_foreach_b4_s1024_sdpa_amp"}) {
    INFO(id);
    const Json& run = Run(id);
    const Estimate e = Explain(RunConfig(run));
    const double kept = SavedAtForwardEnd(e);
    const double measured = Measured(run, "forward_2", "saved_activation_bytes");
    INFO("estimate " << kept << " B, measured " << measured << " B");
    CHECK(measured - kept >= 0);
    CHECK(measured - kept <= 4 + 16 * 32 + 8);
    // fp32 weights: the layers' copies; a bf16 base under LoRA: only the fp32 adapters'.
    CHECK(e.tree.Find(Measured(run, "load", "trainable_params") > 1e8
                          ? "total.activations.layers.autocast.weight_casts"
                          : "total.activations.layers.lora.lora_weight_casts") != nullptr);
    CHECK(e.totals.allocated_bytes / PeakOfSecondIteration(run) == doctest::Approx(1).epsilon(0.01));
  }
}
