// DeepSpeed compatibility mode (src/core/solve/compat_deepspeed.cpp) against the tools' printed
// figures and figures worked by hand from the upstream source (issues 6 and 10).
#include <doctest.h>

#include "core/solve/compat.h"
#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

// DeepSpeed's estimators (src/core/solve/compat_deepspeed.cpp): each expected figure is worked
// from deepspeed/runtime/zero/stage_1_and_2.py and stage3.py @ edaa7221 by hand; P is
// total_params, g num_gpus_per_node, n num_nodes, G = g x n total_gpus, int() truncates.

namespace {

// A model of P parameters (params_override) whose largest tensor is the vocab x hidden
// embedding, for the ZeRO-3 largest-layer term.
Config Sized(double params, int64_t vocab, int64_t hidden, int64_t ffn) {
  Config c = Bare();
  c.model.vocab = vocab;
  c.model.hidden = hidden;
  c.model.heads = hidden / 128;
  c.model.kv_heads = hidden / 128;
  c.model.head_dim = 128;
  c.model.ffn = ffn;
  c.model.layers = 2;
  c.model.params_override = static_cast<int64_t>(params);
  return c;
}

}  // namespace

TEST_CASE("DeepSpeed ZeRO-2: 7.5B on 8 nodes x 8 GPUs (issue 10's example)") {
  Config c = ParamsOnly(7.5e9);
  c.dp = 64;
  c.zero = 2;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  REQUIRE(r.lines.size() == 2);
  // offload_optimizer=cpu: GPU 2P = 15,000,000,000; CPU P x max(4 x 64, 16) x 1.5 = 7.5e9 x 384
  CHECK(r.lines[0].gpu_bytes == 15000000000.0);
  CHECK(r.lines[0].cpu_bytes == 2880000000000.0);
  // none: GPU 2P + int(18P / 64) = 15,000,000,000 + 2,109,375,000 (before PR #5099: 4P + 16P/64 = 31,875,000,000)
  CHECK(r.lines[1].gpu_bytes == 17109375000.0);
  // CPU 4P x g x 1.5 = 7.5e9 x 48
  CHECK(r.lines[1].cpu_bytes == 360000000000.0);
  CHECK(r.gpu_bytes == r.lines[1].gpu_bytes);
  CHECK(r.scope.find("num_gpus_per_node=8, num_nodes=8") != std::string::npos);
}

TEST_CASE("DeepSpeed ZeRO-2: bigscience/T0_3B, 2851e6 params on 1 node x 8 GPUs (memory.rst's cold example)") {
  Config c = ParamsOnly(2851e6);
  c.dp = 8;
  c.zero = 2;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  // memory.rst prints 127.45 | 5.31 for offload_optimizer=cpu: CPU 2851e6 x max(32, 16) x 1.5
  // = 136,848,000,000 B = 127.45 GiB; GPU 2P = 5,702,000,000 B = 5.31 GiB.
  CHECK(r.lines[0].cpu_bytes == 136848000000.0);
  CHECK(std::round(r.lines[0].cpu_bytes / kGiB * 100) / 100 == 127.45);
  CHECK(std::round(r.lines[0].gpu_bytes / kGiB * 100) / 100 == 5.31);
  // offload_optimizer=none: the docs' 15.93 GB is the pre-#5099 4P + 16P/8; the current code
  // prints 2P + int(18P/8) = 5,702,000,000 + 6,414,750,000 = 12,116,750,000 B = 11.28 GiB.
  CHECK(r.lines[1].gpu_bytes == 12116750000.0);
  CHECK(std::round(r.lines[1].gpu_bytes / kGiB * 100) / 100 == 11.28);
  CHECK(r.lines[1].cpu_bytes == 136848000000.0);  // 4P x 8 x 1.5
  CHECK(r.gpu_bytes == r.lines[1].gpu_bytes);
  CHECK(!r.departures.empty());
}

TEST_CASE("DeepSpeed ZeRO-2: 1B on one GPU, the CPU floor of 16 bytes/param") {
  Config c = ParamsOnly(1e9);
  c.zero = 2;
  c.offload_optimizer = Offload::kCpu;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);  // one GPU: num_gpus_per_node=1, num_nodes=1
  REQUIRE(r.ok);
  // offload: GPU 2P = 2e9; CPU P x max(4 x 1, 16) x 1.5 = 1e9 x 24 = 24e9
  CHECK(r.lines[0].gpu_bytes == 2e9);
  CHECK(r.lines[0].cpu_bytes == 24e9);
  // none: GPU 2P + int(18P / 1) = 20e9; CPU 4P x 1 x 1.5 = 6e9
  CHECK(r.lines[1].gpu_bytes == 20e9);
  CHECK(r.lines[1].cpu_bytes == 6e9);
  CHECK(r.gpu_bytes == 2e9);  // the config offloads the optimizer
  CHECK(r.cpu_bytes == 24e9);
}

TEST_CASE("DeepSpeed ZeRO-2: 1,000,000,007 params on 7 GPUs truncates 18P/7") {
  Config c = ParamsOnly(1000000007);
  c.dp = 7;
  c.zero = 2;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);  // g = 7, n = 1
  REQUIRE(r.ok);
  // GPU 2P + int(18,000,000,126 / 7) = 2,000,000,014 + int(2,571,428,589.43) = 4,571,428,603
  CHECK(r.lines[1].gpu_bytes == 4571428603.0);
  // CPU 4P x 7 x 1.5 = 42 x 1,000,000,007 = 42,000,000,294
  CHECK(r.lines[1].cpu_bytes == 42000000294.0);
}

TEST_CASE("DeepSpeed ZeRO-1 and NVMe offload: the ZeRO-2 estimator's offload row") {
  Config c = ParamsOnly(7e9);
  c.dp = 4;
  c.zero = 1;
  c.offload_optimizer = Offload::kNvme;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);  // g = 4, n = 1
  REQUIRE(r.ok);
  CHECK(r.tool == "DeepSpeed estimate_zero2_model_states_mem_needs");
  // offload row: GPU 2P = 14e9; CPU P x max(16, 16) x 1.5 = 7e9 x 24 = 168e9
  CHECK(r.gpu_bytes == 14e9);
  CHECK(r.cpu_bytes == 168e9);
}

TEST_CASE("DeepSpeed ZeRO-2: 12 GPUs on 8-GPU nodes are called as 2 nodes x 8 (total_gpus 16)") {
  Config c = ParamsOnly(7e9);
  c.dp = 3;
  c.tp = 4;
  c.zero = 2;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);  // g = 8, n = ceil(12 / 8) = 2
  REQUIRE(r.ok);
  // GPU 2P + int(18P / 16) = 14e9 + 7.875e9; CPU 4P x 8 x 1.5 = 336e9
  CHECK(r.lines[1].gpu_bytes == 21875000000.0);
  CHECK(r.lines[1].cpu_bytes == 336000000000.0);
  // offload: CPU P x max(4 x 16, 16) x 1.5 = 7e9 x 96
  CHECK(r.lines[0].cpu_bytes == 672000000000.0);
  bool says_16 = false;
  for (const std::string& d : r.departures) says_16 |= d.find("= 16, not the config's 12") != std::string::npos;
  CHECK(says_16);
}

TEST_CASE("DeepSpeed ZeRO-3: bigscience/T0_3B, 32.9M largest layer, 1 node x 8 GPUs (memory.rst's live example)") {
  Config c = Sized(2851e6, 32128, 1024, 2816);  // the largest layer is the 32128 x 1024 embedding
  c.dp = 8;
  c.zero = 3;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  REQUIRE(r.lines.size() == 6);
  // LL = 32,899,072; the docs print 71.71 | 0.12, 127.48 | 0.12, 63.74 | 0.79, 127.48 | 0.79,
  // 1.47 | 6.10, 127.48 | 6.10 for the live model's slightly larger P.
  // both offloaded, zero_init=1: GPU 4LL = 131,596,288 (0.12 GiB); CPU P x 18 x (1/1) x 1.5 = 76,977,000,000
  CHECK(r.lines[0].gpu_bytes == 131596288.0);
  CHECK(r.lines[0].cpu_bytes == 76977000000.0);
  CHECK(std::round(r.lines[0].gpu_bytes / kGiB * 100) / 100 == 0.12);
  // zero_init=0: CPU P x max(4 x 8, 18) x 1.5 = P x 48
  CHECK(r.lines[1].cpu_bytes == 136848000000.0);
  // optimizer only, zero_init=1: GPU 4LL + int(2P / 8) = 131,596,288 + 712,750,000; CPU P x 16 x 1.5
  CHECK(r.lines[2].gpu_bytes == 844346288.0);
  CHECK(r.lines[2].cpu_bytes == 68424000000.0);
  // none, zero_init=1: GPU 4LL + int(18P / 8) = 131,596,288 + 6,414,750,000 (6.10 GiB); CPU LL x 4 x 8 x 1.5
  CHECK(r.lines[4].gpu_bytes == 6546346288.0);
  CHECK(std::round(r.lines[4].gpu_bytes / kGiB * 100) / 100 == 6.1);
  CHECK(r.lines[4].cpu_bytes == 1579155456.0);
  CHECK(r.lines[5].cpu_bytes == 136848000000.0);  // zero_init=0: 4P x 8 x 1.5
  CHECK(r.gpu_bytes == r.lines[4].gpu_bytes);     // no offload, zero_init=1
}

TEST_CASE("DeepSpeed ZeRO-3: 70B with a 128256 x 8192 embedding on 4 nodes x 8 GPUs, every row") {
  Config c = Sized(70e9, 128256, 8192, 28672);
  c.dp = 32;
  c.zero = 3;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  // LL = 1,050,673,152, 4LL = 4,202,692,608, gpus_factor = 1/4, G = 32.
  CHECK(r.lines[0].gpu_bytes == 4202692608.0);     // 4LL
  CHECK(r.lines[0].cpu_bytes == 472500000000.0);   // 70e9 x 18 x 0.25 x 1.5
  CHECK(r.lines[1].cpu_bytes == 3360000000000.0);  // 70e9 x max(32, 4.5) x 1.5
  CHECK(r.lines[2].gpu_bytes == 8577692608.0);     // 4LL + int(140e9 / 32) = 4LL + 4,375,000,000
  CHECK(r.lines[2].cpu_bytes == 420000000000.0);   // 70e9 x 16 x 0.25 x 1.5
  CHECK(r.lines[3].cpu_bytes == 3360000000000.0);  // 70e9 x max(32, 4) x 1.5
  CHECK(r.lines[4].gpu_bytes == 43577692608.0);    // 4LL + int(1.26e12 / 32) = 4LL + 39,375,000,000
  CHECK(r.lines[4].cpu_bytes == 50432311296.0);    // LL x 4 x 8 x 1.5
  CHECK(r.lines[5].cpu_bytes == 3360000000000.0);  // 70e9 x 4 x 8 x 1.5
}

TEST_CASE("DeepSpeed ZeRO-3: 13B on 7 nodes x 8 GPUs truncates the 1/7 node share") {
  Config c = Sized(13e9, 32000, 5120, 13824);
  c.dp = 56;
  c.zero = 3;
  c.offload_optimizer = Offload::kCpu;
  c.offload_params = Offload::kCpu;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  // LL = 32000 x 5120 = 163,840,000; 4LL = 655,360,000.
  // both offloaded, zero_init=1: CPU int(13e9 x 18 x (1/7) x 1.5) = int(50,142,857,142.86)
  CHECK(r.lines[0].gpu_bytes == 655360000.0);
  CHECK(r.lines[0].cpu_bytes == 50142857142.0);
  // optimizer only: GPU 4LL + int(26e9 / 56) = 655,360,000 + 464,285,714; CPU int(13e9 x 16 / 7 x 1.5)
  CHECK(r.lines[2].gpu_bytes == 1119645714.0);
  CHECK(r.lines[2].cpu_bytes == 44571428571.0);
  // none: GPU 4LL + int(234e9 / 56) = 655,360,000 + 4,178,571,428
  CHECK(r.lines[4].gpu_bytes == 4833931428.0);
  CHECK(r.gpu_bytes == r.lines[0].gpu_bytes);  // the config offloads both, zero_init=1
  CHECK(r.cpu_bytes == r.lines[0].cpu_bytes);
}

TEST_CASE("DeepSpeed ZeRO-3: offload_param without offload_optimizer has no row; the figure says which it shows") {
  Config c = Sized(13e9, 32000, 5120, 13824);
  c.dp = 8;
  c.zero = 3;
  c.offload_params = Offload::kCpu;
  const CompatEstimate r = DeepSpeedEstimate(c, 8);
  REQUIRE(r.ok);
  // The none/none/zero_init=1 row: 4LL + int(18 x 13e9 / 8) = 655,360,000 + 29,250,000,000
  CHECK(r.gpu_bytes == 29905360000.0);
  CHECK(r.departures[0].find("prints no row") != std::string::npos);
}
