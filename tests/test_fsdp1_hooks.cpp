// FSDP1's reshard-only hook on a frozen unit under a reentrant checkpoint: each layer's recomputed
// input and its gradient stay until the end of backward (account_activations.h
// Fsdp1HoldsRecomputedInputs). tests/truth/measure_fsdp1_hooks.py counts them on the CPU; the
// published pair is fms-acceleration's Llama-2-70B QLoRA on two A100s (accelerate 1.0.1's FSDP1,
// transformers 4.48.1's reentrant checkpointing), scripts/benchmarks/refs/a100_80gb.csv@24bdadb.
#include <doctest.h>

#include <cstring>

#include "core/catalogue/embedded.h"
#include "core/parse/json.h"
#include "setups.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
namespace {

// fms-acceleration's accelerated-peft-bnb Llama-2-70B run on 2 GPUs, batch 2 per GPU.
Config FmsLlama70bQlora() {
  return FmsAccelerationPeft("llama-2-70b", {{"mode", "qlora"},
                                             {"batch", "2"},
                                             {"dp", "2"},
                                             {"zero", "3"},
                                             {"sharding", "fsdp"},
                                             {"fsdp1", "1"},
                                             {"autocast", "bf16"},
                                             {"loss_shift_copy", "1"}});
}

double HeldBytes(const Config& c) {
  return BytesAt(Explain(c), "total.activations.fsdp1_held_inputs", Moment::kLayerBackward);
}

// What measure_fsdp1_hooks.py counted while the bottom layer's backward ran.
double Measured(const char* run, const char* key) {
  for (const EmbeddedFile* f = kEmbeddedTestData; f->name != nullptr; ++f) {
    if (std::strncmp(f->name, "fsdp1_hooks_", 12) != 0) continue;
    const Json doc = ParseJson(f->Text()).value;
    const Json* r = doc.Find(run);
    const Json* v = r != nullptr ? r->Find(key) : nullptr;
    return v != nullptr && v->IsNumber() ? v->AsNumber() : -1;
  }
  return -1;
}

TEST_CASE("FSDP1's reshard hook keeps every recomputed layer's input gradient, as torch keeps them") {
  // Measured: with the hook every layer above the bottom one still holds its input and gradient.
  const double above = Measured("with_fsdp1_reshard_hook", "layers_above_bottom");
  REQUIRE(above > 0);
  CHECK(Measured("with_fsdp1_reshard_hook", "input_gradients_alive") == above);
  CHECK(Measured("with_fsdp1_reshard_hook", "inputs_alive") == above);
  CHECK(Measured("without_hook", "input_gradients_alive") == 0);
  // The estimate: 79 of Llama-2-70B's 80 layers, each a bf16 4096 x 8192 gradient per sample.
  const Config c = FmsLlama70bQlora();
  REQUIRE_FALSE(HasErrors(Validate(c)));
  CHECK(HeldBytes(c) == 79.0 * 2 * 4096 * 8192 * 2);
}

TEST_CASE("only FSDP1, a reentrant checkpoint and a frozen base together hold them") {
  Config c = FmsLlama70bQlora();
  c.fsdp1 = false;  // FSDP2's fully_shard registers no reshard-only hook
  CHECK(HeldBytes(c) == 0);
  c = FmsLlama70bQlora();
  c.reentrant_checkpoint = false;  // a non-reentrant checkpoint's inputs are not leaves
  CHECK(HeldBytes(c) == 0);
  c = FmsLlama70bQlora();
  c.recompute = Recompute::kNone;
  CHECK(HeldBytes(c) == 0);
  c = FmsLlama70bQlora();
  c.fsdp1 = true;
  c.sharding = Sharding::kDeepSpeed;  // fsdp1 names which PyTorch FSDP: refused without it
  CHECK(HasErrors(Validate(c)));
}

TEST_CASE("fms-acceleration's Llama-2-70B QLoRA on two A100s: the held gradients close the gap") {
  // mem_peak_torch_mem_alloc_in_bytes, accelerated-peft-bnb, 2 GPUs, batch 2: 46,685,287,936
  // bytes (43.48 GiB). Without the held gradients the estimate read 0.735 of it.
  const double measured = 46685287936.0;
  const Totals t = EstimateTotals(FmsLlama70bQlora());
  REQUIRE(t.ok);
  CHECK(t.allocated_bytes / measured == doctest::Approx(0.962).epsilon(0.01));
}

}  // namespace
}  // namespace llmmem::test
