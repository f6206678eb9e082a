// The HF loss by transformers version and kernel: what its forward and backward hold, per
// logit (account_model_ends.h HfLoss), and the published pair of runs that differ only in it:
// fms-acceleration's Mistral-7B LoRA on one A100 (transformers 4.48.1, batch 4 and 8 x 4096
// packed, checkpointing), framework_config none against foak-fast-kernels (fast_loss: Unsloth's
// Fast_CrossEntropyLoss), scripts/benchmarks/refs/a100_80gb.csv@24bdadb228e2d55bc0c69deec034b86a73da6917.
#include <doctest.h>

#include <cstring>

#include "core/catalogue/embedded.h"
#include "core/estimate/loss_paths.h"
#include "core/parse/json.h"
#include "setups.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
namespace {

Config FmsMistralLora(int64_t batch, bool foak) {
  Config c = FmsAccelerationPeft(
      "mistral-7b-v0.1", {{"mode", "lora"}, {"loss_shift_copy", "1"}, {"loss_kernel", foak ? "inplace" : "torch"}});
  c.batch = batch;
  return c;
}

// Bytes per logit the loss holds at its peak: the log-probabilities (or the fused kernel's
// input) plus the larger of what its forward and backward hold beside them.
double LossBytesPerLogit(const Config& c) {
  const Estimate e = Explain(c);
  const double logits = static_cast<double>(c.batch * c.seq) * c.model.vocab;
  const int at_loss = static_cast<int>(Moment::kForwardEnd);  // where the loss's tensors count
  return (e.tree.Find("total.activations.outputs.logits")->moment_bytes[at_loss] +
          e.tree.Find("total.activations.outputs.loss_transient")->moment_bytes[at_loss]) /
         logits;
}

TEST_CASE("the HF loss: bf16 logits, fp32 upcast, the <= 4.48 shifted copy and the in-place kernel") {
  Config c = FmsMistralLora(4, false);
  CHECK(LossBytesPerLogit(c) == 2 + 4 + 4 + 4);  // 4.48: the caller's logits, upcast, shifted copy, log-probs
  c.loss_shift_copy = false;
  CHECK(LossBytesPerLogit(c) == 3 * 4);  // now: the backward's log-probs and two gradients outweigh 2 + 4 + 4
  c.loss_kernel = LossKernel::kInplace;
  CHECK(LossBytesPerLogit(c) == 2 + 4);  // logits and upcast; the gradient is written into the upcast
  c.loss_shift_copy = true;
  CHECK(LossBytesPerLogit(c) == 2 + 4 + 4);  // FastForCausalLMLoss keeps the shifted copy it shifts
  // GPTBigCodeForCausalLM's own loss at 4.48: CrossEntropyLoss on the shifted 16-bit logits.
  c.loss_logits_fp32 = false;
  CHECK(LossBytesPerLogit(c) == 2 + 2);  // its FOAK patch: logits and their shifted copy
  c.loss_kernel = LossKernel::kTorch;
  CHECK(LossBytesPerLogit(c) == 3 * 2);
}

TEST_CASE("torchtune's chunked loss: every chunk's log-probs kept, one chunk's fp32 work at a time") {
  // 8 chunks: the forward holds the 16-bit chunks, all log-probs and one chunk's upcast
  // (2 + 4 + 4/8 B per logit); the backward all log-probs and one chunk's two gradients (4 + 1).
  Config c = FmsMistralLora(4, false);
  c.loss_shift_copy = false;
  c.loss_kernel = LossKernel::kChunked;
  CHECK(LossBytesPerLogit(c) == 2 + 4 + 0.5);
  c.loss_shift_copy = true;  // torchtune shifts the labels, never the logits
  CHECK(HasErrors(Validate(c)));
}

// What tests/truth/measure_compiled_loss.py measured torch keep for the backward of one chunk's
// compute_cross_entropy, per logit: eager (saved-tensor hooks) and compiled (AOTAutograd with
// Inductor's partition policy).
double MeasuredKeptPerLogit(const char* mode) {
  for (const EmbeddedFile* f = kEmbeddedTestData; f->name != nullptr; ++f) {
    if (std::strncmp(f->name, "compiled_loss_", 14) != 0) continue;
    const Json doc = ParseJson(f->Text()).value;
    const Json* m = doc.Find(mode);
    const Json* v = m != nullptr ? m->Find("per_logit") : nullptr;
    return v != nullptr && v->IsNumber() ? v->AsNumber() : -1;
  }
  return -1;
}

TEST_CASE("torchtune's chunked loss compiled: the 16-bit chunks kept, as torch's partitioner keeps them") {
  Config c = FmsMistralLora(4, false);
  c.loss_shift_copy = false;
  c.loss_kernel = LossKernel::kChunked;
  CHECK(detail::HfLoss(c, 2).kept == MeasuredKeptPerLogit("eager"));  // fp32 log-probs
  c.loss_kernel = LossKernel::kChunkedCompiled;
  CHECK(detail::HfLoss(c, 2).kept == MeasuredKeptPerLogit("compiled"));  // the bf16 chunk itself
  // At its peak: every chunk and one chunk's 16-bit gradient (2 + 2/8 B per logit).
  CHECK(LossBytesPerLogit(c) == 2 + 0.25);
  c.loss_shift_copy = true;
  CHECK(HasErrors(Validate(c)));
}

TEST_CASE("loss_parallel over vocab-sharded logits: four fp32 tensors in its fused backward") {
  // torch's loss.py: the backward holds the log-probs, zeros_like(log_probs), exp(log_probs)
  // and their sum; the forward the caller's logits, the upcast, x - max and its exp (14 B).
  Config c = FmsMistralLora(4, false);
  c.loss_shift_copy = false;
  c.loss_kernel = LossKernel::kLossParallel;
  CHECK(HasErrors(Validate(c)));  // nothing to shard the vocabulary over
  c.tp = 2;
  REQUIRE_FALSE(HasErrors(Validate(c)));
  const double per_gpu_logits = static_cast<double>(c.batch * c.seq) * c.model.vocab / 2;
  const Estimate e = Explain(c);
  const int at_loss = static_cast<int>(Moment::kForwardEnd);
  CHECK((e.tree.Find("total.activations.outputs.logits")->moment_bytes[at_loss] +
         e.tree.Find("total.activations.outputs.loss_transient")->moment_bytes[at_loss]) /
            per_gpu_logits ==
        4 * 4);
  c.loss_kernel = LossKernel::kTorch;
  CHECK(LossBytesPerLogit(c) * 2 == 3 * 4);  // per GPU: half the vocabulary each
}

TEST_CASE("fms-acceleration's none and foak Mistral LoRA runs: two bf16 logit copies apart, as measured") {
  // Published mem_peak_torch_mem_alloc_in_bytes for none and foak-fast-kernels.
  const struct {
    int64_t batch;
    double none, foak;
  } runs[] = {{4, 26704571904.0, 24473332736.0}, {8, 38742912512.0, 34280434688.0}};
  for (const auto& run : runs) {
    CAPTURE(run.batch);
    const double none = Explain(FmsMistralLora(run.batch, false)).totals.allocated_bytes;
    const double foak = Explain(FmsMistralLora(run.batch, true)).totals.allocated_bytes;
    CHECK(none == doctest::Approx(run.none).epsilon(0.01));
    CHECK(foak == doctest::Approx(run.foak).epsilon(0.01));
    // The estimate's difference is the two logit-sized tensors the in-place kernel avoids
    // (the log-probabilities and the forward's third copy): 2 x 2 B x b x s x V. The measured
    // difference is 6.4% more at both batches: FOAK's RMSNorm and RoPE kernels also keep less
    // in each recomputed layer, which is not modelled.
    CHECK(none - foak == 2 * 2.0 * static_cast<double>(run.batch) * 4096 * 32000);
  }
}

}  // namespace
}  // namespace llmmem::test
