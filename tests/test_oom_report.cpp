// The diagnosis, the card and the estimate beside an OOM (core/oom_report.h), and the
// "memory already used by others" setting (other_processes_gb) it feeds.
#include <doctest.h>

#include <string>

#include "core/oom/oom_json.h"
#include "core/oom/oom_report.h"
#include "oom_samples.h"
#include "setups.h"

using namespace llmmem::test;
namespace s = llmmem::test::oom_samples;

namespace {

constexpr double GiB = 1073741824.0;

std::vector<Finding> Findings(const char* text, double context = -1) {
  const Evidence e = ReadEvidence(text);
  REQUIRE(!e.observations.empty());
  const Observation& o = e.observations.front();
  return DiagnoseOom(o, BuildOomBar(o), context);
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Config Baichuan7bServing() {
  Config c = DefaultConfig();
  c.model = FindPreset("baichuan-7b")->model;
  c.mode = Mode::kInference;
  c.batch = 1;
  c.seq = 2048;
  return c;
}

}  // namespace

TEST_CASE("OOM seed 002: memory held elsewhere comes first, ~14.7 GiB, check nvidia-smi") {
  const std::vector<Finding> f = Findings(s::kSeed002BaichuanA30);
  REQUIRE(!f.empty());
  CHECK(f[0].id == "held_elsewhere");
  CHECK(f[0].sufficient);
  CHECK(Has(f[0].text, "22.20 GiB - 51.12 MiB - 7.48 GiB = 14.67 GiB"));
  CHECK(Has(f[0].text, "held only 7.48 GiB"));
  CHECK(f[0].bytes == doctest::Approx(14.67 * GiB - 1.3e9).epsilon(0.001));  // less a 1.3 GB CUDA context
  REQUIRE(!f[0].actions.empty());
  CHECK(Has(f[0].actions[0], "nvidia-smi"));
  for (const Finding& x : f) CHECK(x.id != "shortfall");  // lowering the batch size is not the answer
}

TEST_CASE("OOM seed 002 beside the estimate: failed while loading the weights; fits an empty card") {
  const Config c = Baichuan7bServing();
  const OomReport r = ReadOomReport(s::kSeed002BaichuanA30, &c);
  REQUIRE(r.devices.size() == 1);
  const DeviceReport& d = r.devices[0];
  CHECK(Has(r.headline, "Memory held elsewhere"));
  // The card: 22.20 GiB as CUDA reports it fits several 24 GB cards, the A30 among them.
  bool a30 = false;
  for (const GpuMatch& m : d.matches) a30 |= m.gpu->key == "A30-24GB";
  CHECK(a30);
  REQUIRE(d.has_config);
  CHECK(d.suggested.gpu == d.matches.front().gpu->key);
  CHECK(d.suggested.other_processes_gb == doctest::Approx(14.45).epsilon(0.002));
  CHECK_FALSE(d.suggested_fits);
  REQUIRE(d.comparison.available);
  CHECK(Has(d.comparison.stage, "While loading the weights"));
  REQUIRE(!d.comparison.differences.empty());
  CHECK(Has(d.comparison.differences[0], "On an empty"));
  CHECK(!d.remedies.empty());
  const Json j = OomReportToJson(r);
  CHECK(j.Find("recognised")->AsBool());
  CHECK(j.Find("devices")->AsArray().size() == 1);
}

TEST_CASE("OOM diagnosis ranks what alone explains the failure first") {
  // Fragmentation: 472.05 MiB cached covers the 289.79 MiB the request lacked.
  std::vector<Finding> f = Findings(s::kTorch2ContainerWrapped);
  REQUIRE(!f.empty());
  CHECK(f[0].id == "fragmentation");
  CHECK(f[0].sufficient);
  CHECK(Has(f[0].actions[0], "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));

  f = Findings(s::kTorch2Fragmented);
  CHECK(f[0].id == "fragmentation");
  CHECK(f[0].bytes == doctest::Approx(4.11 * GiB));

  f = Findings(s::kTorch2OtherProcess);
  CHECK(f[0].id == "held_elsewhere");
  CHECK(Has(f[0].text, "process 19239: 14.26 GiB"));

  f = Findings(s::kTorch21CapactyAllowed);
  CHECK(f[0].id == "shortfall");
  CHECK(f[0].sufficient);

  f = Findings(s::kHipRocm);
  CHECK(f[0].id == "fragmentation");
  CHECK(Has(f[0].actions[0], "PYTORCH_HIP_ALLOC_CONF"));

  f = Findings(s::kTorch1AllowedComment);
  CHECK(f[0].id == "fraction_limit");

  f = Findings(s::kCutAfterRequest);
  CHECK(f[0].id == "missing_figures");

  f = Findings(s::kCudaError);
  CHECK(f[0].id == "outside_allocator");

  f = Findings(s::kNvidiaSmiA30);
  REQUIRE(!f.empty());
  CHECK(f[0].id == "shared_gpu");
}

TEST_CASE("OOM diagnosis of contradictory or cut figures: sizes are never negative") {
  for (const char* text : {s::kContradictory, s::kDocsInconsistent, s::kCutAfterRequest, s::kTorch1AllowedComment}) {
    for (const Finding& f : Findings(text, 1.3e9)) {
      CAPTURE(f.id);
      CHECK(f.bytes >= 0);
      CHECK_FALSE(f.text.empty());
    }
  }
}

TEST_CASE("OOM card: capacity picks catalogue GPUs; nvidia-smi's name ranks its card first") {
  const std::vector<GpuMatch> by_name = MatchGpus(24576.0 * 1048576, false, "NVIDIA A30");
  REQUIRE(!by_name.empty());
  CHECK(by_name[0].gpu->key == "A30-24GB");
  CHECK(by_name[0].why == "name and capacity");
  const std::vector<GpuMatch> h100 = MatchGpus(79.14 * GiB, true, "");
  REQUIRE(!h100.empty());
  bool found = false;
  for (const GpuMatch& m : h100) found |= m.gpu->key == "H100-SXM-80GB";
  CHECK(found);
  CHECK(MatchGpus(3.0 * GiB, true, "").empty());
  // No match: the observed capacity as a custom card.
  const Observation odd =
      ReadEvidence(
          "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 3.00 GiB total capacity; 1.00 GiB already allocated; "
          "1.00 GiB free; 1.00 GiB reserved in total by PyTorch)")
          .observations.at(0);
  const Config c = ConfigForCard(DefaultConfig(), odd, {});
  CHECK(c.gpu == "custom");
  CHECK(c.gpu_memory_gb == doctest::Approx(3.0 * GiB / 1e9).epsilon(0.001));
}

TEST_CASE("OOM beside a training estimate: how far the run had got") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-2-7b")->model;
  c.mode = Mode::kTraining;
  c.seq = 2048;
  const Totals t = EstimateTotals(c);
  const double W = t.category_bytes[static_cast<int>(Category::kWeights)];
  auto stage = [&](double allocated) {
    Observation o;
    o.form = EvidenceForm::kTorchOom2;
    o.capacity.bytes = 80 * GiB;
    o.free.bytes = 0.1 * GiB;
    o.request.bytes = 1 * GiB;
    o.allocated.bytes = allocated;
    o.reserved.bytes = allocated;
    return CompareWithEstimate(o, c).stage;
  };
  CHECK(Has(stage(0.5 * W), "While loading the weights"));
  CHECK(Has(stage(1.1 * W), "before the first optimizer step"));
  CHECK(Has(stage(t.allocated_bytes * 0.99), "after the first optimizer step"));
}

TEST_CASE("other_processes_gb: a shared card's memory is an overhead line, not PyTorch's") {
  Config c = DefaultConfig();
  const Totals before = EstimateTotals(c);
  c.other_processes_gb = 14.45;
  const Totals after = EstimateTotals(c);
  CHECK(after.peak_bytes - before.peak_bytes == doctest::Approx(14.45e9));
  CHECK(after.allocated_bytes == before.allocated_bytes);
  const Estimate e = Explain(c);
  const BreakdownNode* leaf = e.tree.Find("total.overheads.other_processes");
  REQUIRE(leaf != nullptr);
  CHECK(leaf->bytes == doctest::Approx(14.45e9));
  CHECK_FALSE(leaf->source.empty());
  // Through the URL and JSON like every setting, range-checked.
  const ConfigParse back = ConfigFromQuery(ConfigToQuery(c), DefaultConfig());
  CHECK(back.config.other_processes_gb == doctest::Approx(14.45));
  c.other_processes_gb = -1;
  CHECK(HasErrors(Validate(c)));
}
