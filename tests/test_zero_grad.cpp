// PyTorch 1.x's zero_grad(set_to_none=False) keeps the gradients allocated, zeroed, through the
// next step's forward (torch/nn/modules/module.py@v1.13.1 Module.zero_grad; 2.0 made None the
// default). The published pair: transformers' "efficient training on one GPU" guide, BERT-large
// at batch 4 on a V100 (docs/source/en/perf_train_gpu_one.mdx@0016acf7ef421c7fe8eff7945de52c71896c3b01),
// whose Trainer called model.zero_grad().
#include <doctest.h>

#include "setups.h"

namespace llmmem::test {
namespace {

Config HfGuideBertLarge() {
  return WithSettings("bert-large-uncased", {{"mode", "train"},
                                             {"batch", "4"},
                                             {"seq", "512"},
                                             {"dtype", "fp32"},
                                             {"master_weights", "0"},
                                             {"grad_dtype", "fp32"},
                                             {"optimizer_dtype", "fp32"},
                                             {"dropout", "1"},
                                             {"framework", "hf-eager"},
                                             {"gpu", "V100-16GB"},
                                             {"optimizer_impl", "forloop"},
                                             {"grads_set_to_none", "0"}});
}

double GradientsAtForwardEnd(const Config& c) {
  return BytesAt(Explain(c), "total.model_states.gradients", Moment::kForwardEnd);
}

TEST_CASE("zero_grad without set_to_none: every gradient beside the next forward's activations") {
  Config c = HfGuideBertLarge();
  REQUIRE_FALSE(HasErrors(Validate(c)));
  const double params = static_cast<double>(Explain(c).params.total);
  CHECK(GradientsAtForwardEnd(c) == doctest::Approx(params * 4));  // fp32, all of them
  c.grads_set_to_none = true;  // PyTorch 2.x: only what the backward has made, none at the forward's end
  CHECK(GradientsAtForwardEnd(c) == 0);
  // Accumulated over micro-batches they persist either way.
  c.grad_accum = 4;
  CHECK(GradientsAtForwardEnd(c) == doctest::Approx(params * 4));
}

TEST_CASE("the guide's BERT-large at batch 4: 14949 MiB in nvidia-smi after training") {
  const double measured = 14949.0 * 1024 * 1024;
  const Totals kept = EstimateTotals(HfGuideBertLarge());
  Config freed = HfGuideBertLarge();
  freed.grads_set_to_none = true;
  REQUIRE(kept.ok);
  CHECK(kept.nvidia_smi_bytes / measured == doctest::Approx(0.909).epsilon(0.01));
  CHECK(EstimateTotals(freed).nvidia_smi_bytes / measured == doctest::Approx(0.819).epsilon(0.01));
}

}  // namespace
}  // namespace llmmem::test
