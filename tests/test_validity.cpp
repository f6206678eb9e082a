// One validity check (validate.cpp's Check) decides for the fast path (IsValid, inside
// EstimateTotals) and for Explain (Validate): over thousands of random configurations,
// RLHF and rejected ones included (out-of-range, inconsistent, NaN, every runtime and
// format), both say valid or invalid alike, Explain reports exactly Validate's errors
// (same ids, fields and words), and a valid one gets the same figures from both paths.
#include <doctest.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "setups.h"

using namespace llmmem::test;

namespace {

// mt19937_64's output is fixed by the standard (uniform_int_distribution's is not): a plain
// modulo draws the same configurations natively and under WASM.
struct Pick {
  std::mt19937_64 rng;
  template <class T>
  T operator()(std::initializer_list<T> xs) {
    return *(xs.begin() + rng() % xs.size());
  }
  int Below(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Mostly sound choices, each with a rare bad one (out of range, inconsistent, NaN), so the
// draw holds both verdicts and many reasons to refuse.
Config WildConfig(Pick& pick) {
  auto rare = [&] { return pick.Below(25) == 0; };
  Config c = DefaultConfig();
  const std::vector<Preset>& presets = Presets();
  switch (pick.Below(4)) {
    case 0:
      c.model = presets[static_cast<size_t>(pick.Below(static_cast<int>(presets.size())))].model;
      break;
    case 1:
      c.model = ParamsOnly(rare() ? 2e14 : 7e9).model;
      break;
    default:
      break;  // the default model, edited below
  }
  ModelSpec& m = c.model;
  if (rare()) m.kv_heads = pick({int64_t{3}, m.heads * 2, int64_t{0}});
  if (rare()) m.layers = pick({int64_t{0}, int64_t{20000}});
  if (rare()) m.hidden = pick({int64_t{-1}, int64_t{4000}});
  if (rare()) m.experts = 8, m.moe_ffn = 0;
  if (rare()) m.experts_per_token = 100;
  if (rare()) m.sliding_window = 4096, m.sliding_layers = m.layers + 1;
  if (rare()) m.learned_positions = 1024;
  if (rare()) m.kv_lora_rank = 512, m.qk_rope_dim = 0;
  c.mode = static_cast<Mode>(pick.Below(EnumSize<Mode>()));  // RLHF one time in five
  c.rlhf = static_cast<Rlhf>(pick.Below(EnumSize<Rlhf>()));
  c.reward_model = pick.Below(2);
  c.rollout_engine = pick.Below(2);
  c.batch = rare() ? pick({int64_t{0}, int64_t{2'000'000}}) : pick({int64_t{1}, int64_t{4}, int64_t{64}});
  c.seq = rare() ? pick({int64_t{0}, int64_t{1} << 25}) : pick({int64_t{128}, int64_t{1024}, int64_t{4096}});
  if (rare()) c.grad_accum = 0;
  const bool training = c.mode != Mode::kInference;
  if (rare() || !training)
    c.dtype = static_cast<Dtype>(pick.Below(EnumSize<Dtype>()));
  else
    c.dtype = pick({Dtype::kBf16, Dtype::kFp16, Dtype::kFp32});
  if (rare()) c.grad_dtype = static_cast<Dtype>(pick.Below(EnumSize<Dtype>()));
  c.optimizer_dtype = rare() ? Dtype::kInt8 : pick({Dtype::kFp32, Dtype::kBf16});
  c.kv_dtype =
      rare() ? static_cast<Dtype>(pick.Below(EnumSize<Dtype>())) : pick({Dtype::kBf16, Dtype::kFp8});
  if (rare()) c.kv_dtype_v = pick({Dtype::kQ8_0, Dtype::kNf4});
  c.optimizer = static_cast<Optimizer>(pick.Below(EnumSize<Optimizer>()));
  c.recompute = static_cast<Recompute>(pick.Below(EnumSize<Recompute>()));
  c.framework = static_cast<Framework>(pick.Below(EnumSize<Framework>()));
  c.flash_attn = pick.Below(2);
  c.tp = rare() ? pick({int64_t{3}, int64_t{2048}}) : pick({int64_t{1}, int64_t{2}, int64_t{8}});
  c.sp = pick.Below(2);
  c.dp = rare() ? 0 : pick({int64_t{1}, int64_t{8}});
  c.pp = rare() ? 100 : pick({int64_t{1}, int64_t{1}, int64_t{2}});
  c.cp = pick({int64_t{1}, int64_t{2}});
  if (rare()) c.ep = 2;
  c.zero = rare() ? 4 : pick({int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}});
  if (rare()) c.zero_group = 3;
  c.offload_optimizer = static_cast<Offload>(pick.Below(EnumSize<Offload>()));
  if (c.zero == 3 || rare()) c.offload_params = pick({Offload::kNone, Offload::kCpu, Offload::kNvme});
  c.offload_activations = pick.Below(2);
  if (rare()) c.lora_targets = 0;
  if (rare()) c.lora_rank = 0;
  c.runtime = static_cast<Runtime>(pick.Below(EnumSize<Runtime>()));
  if (rare()) c.max_cache_len = 64;
  c.mem_fraction = rare() ? pick({1.5, kNaN}) : pick({0.0, 0.9});
  if (rare()) c.gpu_layers = 20000;
  if (rare()) c.gpu_set = "RTX-3090-24GB,RTX-4090-24GB";
  c.fragmentation_pct = rare() ? pick({200.0, kNaN}) : 5.0;
  c.gpu_memory_gb = rare() ? 0.0 : pick({80.0, 24.0});
  if (rare()) c.mfu = 0;
  return c;
}

// Errors only (notes and warnings are Explain's extra words, not a verdict), in order.
std::string Errors(const Diagnostics& d) {
  std::string out;
  for (const Diagnostic& x : d) {
    if (x.severity == Severity::kError)
      out += std::to_string(static_cast<int>(x.id)) + " " + x.field + ": " + x.message + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("Validity: the fast path and Explain agree on every random configuration, rejected and RLHF ones included") {
  Pick pick{std::mt19937_64(20261130)};
  int valid = 0, invalid = 0, rlhf_valid = 0, rlhf_invalid = 0, mismatches = 0;
  std::map<std::string, int> rejected_by;  // the field each rejection names first
  for (int i = 0; i < 10000; ++i) {
    const Config c = WildConfig(pick);
    const Diagnostics v = Validate(c);
    const bool ok = !HasErrors(v);
    const Totals fast = EstimateTotals(c);
    const Estimate e = Explain(c);
    const bool agree =
        IsValid(c) == ok && fast.ok == ok && e.totals.ok == ok && Errors(e.diagnostics) == Errors(v) &&
        (!ok || (fast.peak_bytes == e.totals.peak_bytes && fast.capacity_bytes == e.totals.capacity_bytes));
    if (!agree && ++mismatches <= 3) {
      MESSAGE("disagree on ", ConfigToQuery(c), ": Validate says ", (ok ? "valid" : Errors(v)));
    }
    (ok ? valid : invalid) += 1;
    if (c.mode == Mode::kRlhf) (ok ? rlhf_valid : rlhf_invalid) += 1;
    if (!ok) {
      for (const Diagnostic& d : v) {
        if (d.severity != Severity::kError) continue;
        rejected_by[d.field] += 1;
        break;
      }
    }
  }
  CHECK(mismatches == 0);
  std::printf("validity property: %d valid, %d rejected (RLHF %d valid, %d rejected), rejections name %zu fields\n",
              valid, invalid, rlhf_valid, rlhf_invalid, rejected_by.size());
  // The draw reaches both verdicts, in RLHF too, and many different reasons to refuse.
  CHECK(valid >= 2000);
  CHECK(invalid >= 4000);
  CHECK(rlhf_valid >= 400);
  CHECK(rlhf_invalid >= 400);
  CHECK(rejected_by.size() >= 15);
}
