// Reference cases A1-A9: activations after Korthikanti et al. 2022.
#include <doctest.h>

#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

// Sum of the per-layer leaves under the layers group.
double LayerSum(const Estimate& e) {
  const BreakdownNode* layers = e.tree.Find("total.activations.layers");
  REQUIRE(layers != nullptr);
  double sum = 0;
  for (const BreakdownNode& group : layers->children) {
    for (const BreakdownNode& leaf : group.children) sum += leaf.per_layer_bytes;
  }
  return sum;
}

double Sbh(const Config& c) { return static_cast<double>(c.seq * c.batch * c.model.hidden); }

}  // namespace

TEST_CASE("A1: s=4096 h=8192 a=64 b=1 L=80: 194 sbh per layer, 520.76 GB") {
  const Config c = Korthikanti(8192, 64, 80, 4096, 1);
  const Estimate e = Explain(c);
  CHECK(LayerSum(e) == 6'509'559'808.0);
  CHECK(LayerSum(e) == 194 * Sbh(c));
  CHECK(Bytes(e, "total.activations.layers") == 80 * 6'509'559'808.0);
  CHECK(std::round(Bytes(e, "total.activations.layers") / 1e7) / 100 == 520.76);
}

TEST_CASE("A2: same, t=8 with sequence parallelism and selective recompute: 34sbh/t") {
  Config c = Korthikanti(8192, 64, 80, 4096, 1);
  c.tp = 8;
  c.sp = true;
  c.recompute = Recompute::kSelective;
  const Estimate e = Explain(c);
  CHECK(LayerSum(e) == 142'606'336.0);
  CHECK(LayerSum(e) == 34 * Sbh(c) / 8);
  CHECK(std::round(Bytes(e, "total.activations.layers") / 1e7) / 100 == 11.41);
}

TEST_CASE("A2b: tensor parallelism without SP keeps 10sbh replicated (Korthikanti eq. 2)") {
  Config c = Korthikanti(8192, 64, 80, 4096, 1);
  c.tp = 8;
  const Estimate e = Explain(c);
  const double a = 64, s = 4096, h = 8192, t = 8;
  CHECK(LayerSum(e) == doctest::Approx(Sbh(c) * (10 + 24 / t + 5 * a * s / (h * t))).epsilon(1e-15));
}

TEST_CASE("A3: full recompute keeps 2sbh per layer: 67 MB, 5.37 GB for 80 layers") {
  Config c = Korthikanti(8192, 64, 80, 4096, 1);
  c.recompute = Recompute::kFull;
  const Estimate e = Explain(c);
  CHECK(PerLayer(e, "total.activations.layer_inputs") == 67'108'864.0);
  CHECK(std::round(Bytes(e, "total.activations.layer_inputs") / 1e7) / 100 == 5.37);
  // The peak also holds the one layer re-created during its backward: shown, not hidden.
  CHECK(Bytes(e, "total.activations.rematerialised_layer") == 6'509'559'808.0 - 67'108'864.0);
}

TEST_CASE("A4-A7: the 7B model's activations by batch and sequence length") {
  struct Row {
    int64_t b, s;
    double per_layer_gb, total_gb;
  };
  const Row rows[] = {
      {1, 2048, 0.956, 30.60}, {4, 2048, 3.825, 122.4}, {1, 4096, 3.255, 104.2}, {4, 4096, 13.02, 416.6}};
  for (const Row& r : rows) {
    CAPTURE(r.b);
    CAPTURE(r.s);
    const Config c = Korthikanti(4096, 32, 32, r.s, r.b);
    const Estimate e = Explain(c);
    const double exact = Sbh(c) * (34 + 5.0 * 32 * static_cast<double>(r.s) / 4096);
    CHECK(LayerSum(e) == exact);
    CHECK(LayerSum(e) / 1e9 == doctest::Approx(r.per_layer_gb).epsilon(0.0006));
    CHECK(Bytes(e, "total.activations.layers") / 1e9 == doctest::Approx(r.total_gb).epsilon(0.0006));
  }
  CHECK(Korthikanti(4096, 32, 32, 2048, 1).seq == 2048);
}

TEST_CASE("A8: A4 with full checkpointing: 32 x 2bsh = 0.537 GB") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.recompute = Recompute::kFull;
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.activations.layer_inputs") == 32 * 2.0 * 2048 * 4096);
  CHECK(std::round(Bytes(e, "total.activations.layer_inputs") / 1e6) / 1000 == 0.537);
}

TEST_CASE("A9: the per-tensor table of seed 004 is itemised and adds up") {
  const Estimate e = Explain(Korthikanti(4096, 32, 32, 2048, 1));
  const std::string at = "total.activations.layers.attention.";
  const std::string mlp = "total.activations.layers.mlp.";
  CHECK(PerLayer(e, at + "qkv_input") == 16 * kMiB);
  CHECK(PerLayer(e, at + "q") == 16 * kMiB);
  CHECK(PerLayer(e, at + "k") == 16 * kMiB);
  CHECK(PerLayer(e, at + "v") == 16 * kMiB);
  CHECK(PerLayer(e, at + "softmax") == 256 * kMiB);
  CHECK(PerLayer(e, at + "attn_dropout_mask") == 128 * kMiB);
  CHECK(PerLayer(e, at + "attn_dropout_out") == 256 * kMiB);
  CHECK(PerLayer(e, at + "o_input") == 16 * kMiB);
  CHECK(PerLayer(e, at + "attn_residual_mask") == 8 * kMiB);
  CHECK(PerLayer(e, mlp + "act_input") == 64 * kMiB);
  CHECK(PerLayer(e, mlp + "act_output") == 64 * kMiB);
  CHECK(PerLayer(e, mlp + "mlp_residual_mask") == 8 * kMiB);
  CHECK(PerLayer(e, "total.activations.layers.norms.norm_inputs") == 32 * kMiB);
  // 11 + 19 + 4 = 34 sbh and 5as^2b, term by term.
  CHECK(LayerSum(e) == 956'301'312.0);
}

TEST_CASE("FlashAttention drops the s^2 terms and keeps fp32 softmax statistics") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.flash_attn = true;
  const Estimate e = Explain(c);
  CHECK(e.tree.Find("total.activations.layers.attention.softmax") == nullptr);
  CHECK(PerLayer(e, "total.activations.layers.attention.softmax_stats") == 4.0 * 32 * 2048);
  CHECK(LayerSum(e) == 34 * Sbh(c) + 4.0 * 32 * 2048);
}

TEST_CASE("GQA shrinks K and V; gated MLPs save four f-wide tensors") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.kv_heads = 8;
  c.model.mlp = MlpKind::kGated;
  c.model.ffn = 11008;
  const Estimate e = Explain(c);
  CHECK(PerLayer(e, "total.activations.layers.attention.k") == 2.0 * 2048 * 8 * 128);
  CHECK(PerLayer(e, "total.activations.layers.mlp.product") == 2.0 * 2048 * 11008);
  CHECK(e.tree.Find("total.activations.layers.mlp.gate_out") != nullptr);
}

TEST_CASE("Logits for the loss are b*s*V fp32, and compute_metrics adds another copy") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  Estimate e = Explain(c);
  CHECK(Bytes(e, "total.activations.outputs.logits") == 4.0 * 2048 * 32000);
  c.metrics_logits = true;
  e = Explain(c);
  CHECK(Bytes(e, "total.activations.outputs.metrics_logits") == 4.0 * 2048 * 32000);
}
