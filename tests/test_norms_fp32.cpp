// QLoRA with fp32 norms (peft's prepare_model_for_kbit_training, as trl 0.13 calls it) under
// AMP, against fms-acceleration's own pair of runs that differ only in it
// (scripts/benchmarks/refs/a100_80gb.csv@24bdadb228e2d55bc0c69deec034b86a73da6917, Mistral-7B
// QLoRA on one A100, batch 4 x 4096 packed, checkpointing): baseline-peft-bnb casts the norms,
// accelerated-peft-bnb does not. Their peaks (mem_peak_torch_mem_alloc_in_bytes) differ by
// 4,295,499,776 B and their end-of-training memory (mem_torch_mem_alloc_in_bytes) by 532,480 B.
#include <doctest.h>

#include "core/config/fields.h"
#include "setups.h"

namespace llmmem::test {
namespace {

Config FmsMistralQlora(bool norms_fp32) {
  Config c = DefaultConfig();
  c.model = FindPreset("mistral-7b-v0.1")->model;
  const std::pair<const char*, const char*> set[] = {
      {"mode", "qlora"},          {"batch", "4"},           {"seq", "4096"},     {"recompute", "full"},
      {"framework", "hf-flash2"}, {"gpu", "A100-SXM-80GB"}, {"lora_rank", "16"}, {"lora_targets", "q,k,v,o"},
      {"lora_dropout", "1"},      {"autocast", "bf16"}};
  for (const auto& kv : set) REQUIRE_MESSAGE(FindField(kv.first)->set(c, kv.second).empty(), kv.first);
  c.norms_fp32 = norms_fp32;
  return c;
}

TEST_CASE("fp32 norms: the residual stream turns fp32, as fms-acceleration's twin QLoRA runs differ") {
  const Estimate cast = Explain(FmsMistralQlora(true));
  const Estimate plain = Explain(FmsMistralQlora(false));
  REQUIRE(cast.totals.ok);
  REQUIRE(plain.totals.ok);
  // Published: 20,669,338,112 - 16,373,838,336 B between the two peaks.
  CHECK(cast.totals.allocated_bytes - plain.totals.allocated_bytes == 20669338112.0 - 16373838336.0);
  // Published: 4,307,028,992 - 4,306,496,512 B at rest: 65 norms x 4096 weights, 2 B more each.
  CHECK(cast.tree.Find("total.model_states.weights")->bytes - plain.tree.Find("total.model_states.weights")->bytes ==
        4307028992.0 - 4306496512.0);
  CHECK(Validate(FmsMistralQlora(true)).empty());
  Config no_amp = FmsMistralQlora(true);
  no_amp.autocast = Dtype::kCount;  // without autocast a bf16 Linear cannot take the fp32 norm output
  CHECK(HasErrors(Validate(no_amp)));
}

}  // namespace
}  // namespace llmmem::test
