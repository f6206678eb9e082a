// The GPU catalogue (src/core/catalogue/gpus.h): every row sourced, reported bytes plausible.
#include <doctest.h>

#include "core/catalogue/gpus.h"
#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

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

TEST_CASE("GPUs: issue 31's new entries say what was checked and where") {
  for (const char* key : {"RTX-PRO-6000-BW-96GB", "B300-288GB", "GB300-288GB", "MI355X-288GB", "RTX-5070-12GB",
                          "RTX-5060-TI-16GB", "DGX-SPARK-GB10-128GB", "STRIX-HALO-128GB"}) {
    CAPTURE(key);
    const Gpu* g = FindGpu(key);
    REQUIRE(g != nullptr);
    CHECK(g->source.find("not re-read") == std::string::npos);
    CHECK(g->source.find("Checked in issue 31") != std::string::npos);
  }
}

TEST_CASE("One way to take a GPU: links, JSON, fields and the UI's SelectGpu agree on every card (issue 29)") {
  int n = 0;
  for (const Gpu& g : Gpus()) {
    CAPTURE(g.key);
    Config picked = DefaultConfig();
    SelectGpu(picked, g);
    const Config link = ConfigFromQuery("gpu=" + g.key, DefaultConfig()).config;
    const Config json = ConfigFromJsonText("{\"gpu\": \"" + g.key + "\"}", DefaultConfig()).config;
    Config field = DefaultConfig();
    Diagnostics ignored;
    if (!SetField(field, "gpu", g.key, ignored)) continue;  // a package no software sees as one device
    for (const Config* c : {&link, &json, static_cast<const Config*>(&field)}) {
      CHECK(c->gpu == picked.gpu);
      CHECK(c->gpu_memory_gb == picked.gpu_memory_gb);
    }
    CHECK(picked.gpu_memory_gb * 1e9 == doctest::Approx(g.UsableBytes()).epsilon(1e-12));
    ++n;
  }
  CHECK(n >= 50);
}

TEST_CASE("GPU sources: the page fills in what its catalogue leaves out (AddGpuSources)") {
  CHECK(GpuSourcesKnown());  // here every row is embedded whole
  CHECK_FALSE(AddGpuSources("{not json").empty());
  CHECK(AddGpuSources("{\"gpus\": 3}") == "gpus.json has no \"gpus\" list");
  const std::string before = Gpus().front().source;
  CHECK(AddGpuSources("{\"gpus\": [{\"key\": \"" + Gpus().front().key + "\", \"source\": \"elsewhere\"}]}").empty());
  CHECK(Gpus().front().source == before);  // a source already there is kept
}
