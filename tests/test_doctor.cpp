// The OOM doctor: every remedy's saving is a re-run estimate; best first.
#include <doctest.h>

#include "core/solve/doctor.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("Doctor: seed 004's 7B on one 80 GB card") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.params_override = 7'000'000'000;
  c.gpu_memory_gb = 80;
  c.metrics_logits = true;
  const std::vector<Remedy> remedies = Diagnose(c);
  REQUIRE(!remedies.empty());
  const double peak = EstimateTotals(c).peak_bytes;
  bool saw_flash = false, saw_offload = false, saw_lora = false;
  for (const Remedy& r : remedies) {
    CAPTURE(r.id);
    CHECK(r.saving_bytes > 0);
    CHECK(r.saving_bytes == doctest::Approx(peak - EstimateTotals(r.config).peak_bytes));
    CHECK(r.fits == (r.peak_bytes <= 80e9));
    saw_flash |= r.id == "flash_attn";
    saw_offload |= r.id == "offload_optimizer";
    saw_lora |= r.id == "lora";
  }
  CHECK(saw_flash);
  CHECK(saw_offload);
  CHECK(saw_lora);
  // Sorted: everything that fits comes before anything that does not.
  for (size_t i = 1; i < remedies.size(); ++i) CHECK((remedies[i - 1].fits || !remedies[i].fits));
}

TEST_CASE("Doctor: inference suggests quantisation and an fp8 KV cache") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.3-70b")->model;
  c.mode = Mode::kInference;
  c.batch = 16;
  c.seq = 8192;
  const std::vector<Remedy> remedies = Diagnose(c);
  bool fp8 = false, kv = false;
  for (const Remedy& r : remedies) {
    fp8 |= r.id == "fp8";
    kv |= r.id == "kv_fp8";
  }
  CHECK(fp8);
  CHECK(kv);
}
