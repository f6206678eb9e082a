// The numeric fast path allocates nothing: the fit map and the solver run it tens of
// thousands of times a frame. Counted by replacing the global allocator in this binary.
#include <doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "setups.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace llmmem::test;

TEST_CASE("Fast path: EstimateTotals allocates nothing, in every mode and layout") {
  std::vector<Config> configs;
  Config c = DefaultConfig();
  for (Mode mode : {Mode::kInference, Mode::kTraining, Mode::kLora, Mode::kQlora, Mode::kRlhf}) {
    c.mode = mode;
    configs.push_back(c);
  }
  Config big = DefaultConfig();
  big.model = FindPreset("mixtral-8x7b")->model;
  big.dp = 8;
  big.zero = 3;
  big.tp = 2;
  big.pp = 4;
  big.ep = 2;
  big.grad_accum = 8;
  big.offload_optimizer = Offload::kCpu;
  big.recompute = Recompute::kSelective;
  configs.push_back(big);
  // Every activation profile and recompute mode, LoRA with PEFT's casts and dropout.
  for (int f = 0; f < 5; ++f) {
    for (int r = 0; r < 4; ++r) {
      Config k = DefaultConfig();
      k.framework = static_cast<Framework>(f);
      k.recompute = static_cast<Recompute>(r);
      k.flash_attn = (f + r) % 2 == 0;
      configs.push_back(k);
      k.mode = Mode::kLora;
      k.lora_dropout = true;
      configs.push_back(k);
    }
  }
  for (const Config& x : configs) (void)EstimateTotals(x);  // warm-up: presets, limit lookups
  const long before = g_allocations.load();
  double sink = 0;
  for (int i = 0; i < 100; ++i) {
    for (const Config& x : configs) sink += EstimateTotals(x).peak_bytes;
  }
  CHECK(g_allocations.load() == before);
  CHECK(sink > 0);
}
