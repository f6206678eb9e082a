// Unified memory's budgets (issue 31; core/catalogue/gpu_budget.h): what the verdict compares
// against on Apple silicon, Strix Halo and DGX Spark, how a raised limit (wired_limit_mb)
// reaches it through every door, and the sentence shown beside the verdict.
#include <doctest.h>

#include "core/catalogue/gpu_budget.h"
#include "core/catalogue/gpus.h"
#include "core/estimate/verdict.h"
#include "core/report/result_json.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

constexpr double kMiB = 1048576.0;
constexpr double kGiB = 1073741824.0;

const Gpu& Card(const char* key) {
  const Gpu* g = FindGpu(key);
  REQUIRE(g != nullptr);
  return *g;
}

}  // namespace

TEST_CASE("Unified budgets: Metal's recommendedMaxWorkingSetSize as llama.cpp's logs printed it") {
  // 16 GiB: 10922.67 MiB (abetlen/llama-cpp-python #687; 11453.25 MB on an M4, llama.cpp #11083): 2/3.
  CHECK(Card("M4-16GB").budget == UnifiedBudget::kMetal);
  CHECK(Card("M4-16GB").UsableBytes() / kMiB == doctest::Approx(10922.67).epsilon(1e-6));
  CHECK(Card("M4-16GB").UsableBytes() / 1e6 == doctest::Approx(11453.25).epsilon(1e-6));
  // 64 GiB: 49152.00 MiB (ggml-org/llama.cpp #1870): 3/4.
  CHECK(Card("M1-MAX-64GB").UsableBytes() == 49152 * kMiB);
  // 128 GiB at 3/4 (macOS 14-15): 96 GiB, 103.08 GB.
  CHECK(Card("M4-MAX-128GB").UsableBytes() == 96 * kGiB);
  CHECK(Card("M3-MAX-128GB").UsableBytes() == 96 * kGiB);
  CHECK(Card("M2-ULTRA-192GB").UsableBytes() == 144 * kGiB);
  CHECK(Card("M3-ULTRA-512GB").UsableBytes() == 384 * kGiB);
  for (const Gpu& g : Gpus()) {
    CAPTURE(g.key);
    if (g.vendor == "Apple") {
      CHECK(g.budget == UnifiedBudget::kMetal);
      // 2/3 up to 32 GiB, 3/4 from 48 GiB (measured at 64 and 96).
      CHECK(g.gpu_share == doctest::Approx(g.RamBytes() <= 32 * kGiB ? 2.0 / 3.0 : 0.75).epsilon(1e-6));
    }
    if (g.unified) CHECK(g.budget != UnifiedBudget::kNone);
    if (!g.unified) CHECK(g.UsableBytes(114688) == g.UsableBytes());  // the limit is a unified card's
  }
}

TEST_CASE("Unified budgets: iogpu.wired_limit_mb raises a Mac's, in MiB, never above its RAM") {
  // antirez/ds4 PR #893: iogpu.wired_limit_mb = 114688 made recommendedMaxWorkingSetSize 112.00 GiB.
  const Gpu& m4max = Card("M4-MAX-128GB");
  CHECK(m4max.UsableBytes(114688) == 112 * kGiB);
  CHECK(m4max.UsableBytes(200000) == 128 * kGiB);
  // Every door reads it, in either order: links, JSON, the field and the CLI's flags.
  for (const char* query : {"gpu=M4-MAX-128GB&wired_limit_mb=114688", "wired_limit_mb=114688&gpu=M4-MAX-128GB"}) {
    CAPTURE(query);
    const Config c = ConfigFromQuery(query, DefaultConfig()).config;
    CHECK(c.gpu == "M4-MAX-128GB");
    CHECK(c.gpu_memory_gb * 1e9 == doctest::Approx(112 * kGiB).epsilon(1e-12));
    // The link it writes back names the limit, not the memory it sets.
    const std::string link = ConfigToQuery(c);
    CHECK(link.find("wired_limit_mb=114688") != std::string::npos);
    CHECK(link.find("gpu_memory_gb") == std::string::npos);
    CHECK(ConfigFromQuery(link, DefaultConfig()).config.gpu_memory_gb == c.gpu_memory_gb);
  }
  const Config json =
      ConfigFromJsonText("{\"wired_limit_mb\": 114688, \"gpu\": \"M4-MAX-128GB\"}", DefaultConfig()).config;
  CHECK(json.gpu_memory_gb * 1e9 == doctest::Approx(112 * kGiB).epsilon(1e-12));
  // A memory set apart stays: the card becomes custom, the limit does not move it.
  const auto apart = ConfigFromJsonText(
      "{\"gpu\": \"M4-MAX-128GB\", \"gpu_memory_gb\": 50, \"wired_limit_mb\": 114688}", DefaultConfig());
  CHECK(apart.config.gpu_memory_gb == 50);
  CHECK(apart.config.gpu == "custom");
}

TEST_CASE("Unified budgets: Strix Halo's carve-out plus GTT, DGX Spark's CUDA total") {
  // amdgpu's default GTT is 1/2 of RAM (torvalds/linux f7ba887f606b): 64 GiB of 128.
  const Gpu& strix = Card("STRIX-HALO-128GB");
  CHECK(strix.budget == UnifiedBudget::kAmdGtt);
  CHECK(strix.UsableBytes() == 64 * kGiB);
  // antirez/ds4's reference setup, amdgpu.gttsize=126976 (124 GiB), plus a 512 MiB carve-out.
  CHECK(strix.UsableBytes(126976 + 512) == 124.5 * kGiB);
  // GB10: CUDA's total is the OS's MemTotal, 127600748 kB = 121.69 GiB; nothing raises it.
  const Gpu& spark = Card("DGX-SPARK-GB10-128GB");
  CHECK(spark.budget == UnifiedBudget::kCuda);
  CHECK(spark.UsableBytes() == 127600748.0 * 1024);
  CHECK(spark.UsableBytes() / kGiB == doctest::Approx(121.69).epsilon(1e-4));
  CHECK(spark.UsableBytes(114688) == spark.UsableBytes());
  Config c = DefaultConfig();
  SelectGpu(c, spark);
  c.wired_limit_mb = 114688;
  const Diagnostics d = Validate(c);
  bool said = false;
  for (const Diagnostic& x : d) said |= x.field == "wired_limit_mb" && x.id == DiagId::kIgnoredSetting;
  CHECK(said);
}

TEST_CASE("Unified budgets: the verdict says the budget and how it is raised (CLI, JSON, UI phrase)") {
  Config c = DefaultConfig();
  SelectGpu(c, Card("M4-MAX-128GB"));
  const std::string note = Render(GpuBudgetNote(c));
  CHECK(note ==
        "Apple M4 Max, 40-core GPU (128 GB unified): macOS lets the GPU wire about 96 GiB (103.08 GB) of its 128 GiB "
        "(Metal's recommendedMaxWorkingSetSize, 3/4 of RAM on macOS 14-15); sudo sysctl iogpu.wired_limit_mb=N "
        "raises it, and wired_limit_mb=N gives the estimate the same limit");
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  CHECK(e.totals.capacity_bytes == 96 * kGiB);
  CHECK(EstimateToJson(c, e).AsObject().at("per_gpu").AsObject().at("budget_note").AsString() == note);
  c.wired_limit_mb = 114688;
  SelectGpu(c, Card("M4-MAX-128GB"));
  CHECK(Render(GpuBudgetNote(c)).find("iogpu.wired_limit_mb=114688 lets the GPU wire 112 GiB (120.26 GB)") !=
        std::string::npos);
  CHECK(Explain(c).totals.capacity_bytes == 112 * kGiB);
  // Not on a discrete card, nor on a unified card whose memory was set apart.
  Config h100 = DefaultConfig();
  CHECK(GpuBudgetNote(h100).text.empty());
  CHECK(EstimateToJson(h100, Explain(h100)).AsObject().at("per_gpu").AsObject().at("budget_note").AsString().empty());
  c.gpu_memory_gb = 50;
  CHECK(GpuBudgetNote(c).text.empty());
}
