// Compatibility modes reproduce the tools' own printed figures (issue 6).
#include <doctest.h>

#include "core/compat.h"
#include "core/gpus.h"
#include "core/units.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("DeepSpeed ZeRO-2 estimator: bigscience/T0_3B on 1 node x 8 GPUs (DeepSpeed docs)") {
  Config c = ParamsOnly(2851e6);
  c.dp = 8;
  c.zero = 2;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  // The docs print (GiB labelled GB): 127.48 | 5.31 offload; 127.48 | 15.93 no offload.
  CHECK(std::round(r.lines[0].gpu_bytes / kGiB * 100) / 100 == 5.31);
  CHECK(std::round(r.lines[0].cpu_bytes / kGiB) == 127);
  CHECK(std::round(r.lines[1].gpu_bytes / kGiB * 100) / 100 == 15.93);
  CHECK(r.gpu_bytes == r.lines[1].gpu_bytes);
  CHECK(!r.departures.empty());
}

TEST_CASE("DeepSpeed ZeRO-3 estimator: T0_3B, 32M largest layer, 1 x 8 GPUs") {
  Config c = ParamsOnly(2851e6);
  c.model.hidden = 1024;  // the largest layer is the 32128 x 1024 embedding
  c.model.vocab = 32128;
  c.model.layers = 1;
  c.model.heads = 16;
  c.model.kv_heads = 16;
  c.model.head_dim = 64;
  c.model.ffn = 2816;
  c.dp = 8;
  c.zero = 3;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  REQUIRE(r.lines.size() == 6);
  // Docs: 0.12 GB GPU with both offloaded; 71.71 GB CPU with zero_init; 6.10 GB GPU with none.
  CHECK(std::round(r.lines[0].gpu_bytes / kGiB * 100) / 100 == 0.12);
  CHECK(r.lines[0].cpu_bytes / kGiB == doctest::Approx(71.7).epsilon(0.002));
  CHECK(std::round(r.lines[4].gpu_bytes / kGiB * 10) / 10 == 6.1);
}

TEST_CASE("Megatron theoretical memory: weights and optimizer at 18 or 6 + 12/dp bytes per param") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.tied_embeddings = false;
  const CompatEstimate plain = MegatronEstimate(c);
  REQUIRE(plain.ok);
  // GPT-style layers: 2Lh^2 (2 + 4 + 2/h + 1/(Lh)) = 12Lh^2 + 4Lh + 2h, plus 2 x hV untied.
  const double h = 4096, L = 32, V = 32000;
  const double params = 12 * L * h * h + 4 * L * h + 2 * h + 2 * h * V;
  CHECK(plain.lines[0].gpu_bytes == doctest::Approx(18 * params).epsilon(1e-12));
  c.zero = 1;
  c.dp = 8;
  CHECK(MegatronEstimate(c).lines[0].gpu_bytes == doctest::Approx((6 + 12.0 / 8) * params).epsilon(1e-12));
  // Activations: sbh(18 + 4f/h) = 34 sbh per layer with f = 4h, plus the output layer.
  const double sbh = 2048 * h;
  CHECK(plain.lines[1].gpu_bytes ==
        doctest::Approx(34 * sbh * L + 8 * 2048 + sbh + sbh * 4 * (1 + V / h)).epsilon(1e-12));
}

TEST_CASE("GPU catalogue: every row has memory and a source; reported bytes are plausible") {
  const auto& gpus = Gpus();
  CHECK(gpus.size() >= 30);
  for (const Gpu& g : gpus) {
    CAPTURE(g.key);
    CHECK(g.memory_gb > 0);
    CHECK_FALSE(g.source.empty());
    if (g.memory_bytes > 0) {
      CHECK(g.memory_bytes > 0.85 * g.memory_gb * 1e9);
      CHECK(g.memory_bytes < 1.15 * g.memory_gb * 1e9);
    }
  }
  const Gpu* h100 = FindGpu(kDefaultGpu);
  REQUIRE(h100 != nullptr);
  CHECK(h100->memory_bytes == 81559.0 * 1048576);
  CHECK(DefaultConfig().gpu_memory_gb * 1e9 == h100->UsableBytes());
}
