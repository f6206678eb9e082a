// ReadOomReport: the evidence, then per observation its bar, its diagnosis, the cards its
// capacity matches and, with a configuration loaded, the estimate beside it and the doctor.
// Failures come first; the headline is the first failure's first finding.
#include <algorithm>

#include "core/estimate/estimate.h"
#include "core/oom/oom_report.h"
#include "core/base/units.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

constexpr size_t kMaxRemedies = 8;

bool IsSmi(EvidenceForm f) { return f == EvidenceForm::kNvidiaSmiTable || f == EvidenceForm::kNvidiaSmiCsv; }

// nvidia-smi's name for the failure's device, when the paste has it.
std::string NameFor(const Evidence& e, const Observation& o) {
  if (!o.gpu_name.empty()) return o.gpu_name;
  std::string only;
  int smi = 0;
  for (const Observation& x : e.observations) {
    if (!IsSmi(x.form)) continue;
    ++smi;
    if (x.device == o.device && o.device >= 0) return x.gpu_name;
    only = x.gpu_name;
  }
  return smi == 1 ? only : std::string();
}

}  // namespace

OomReport ReadOomReport(const std::string& text, const Config* loaded) {
  return OomReportFromEvidence(ReadEvidence(text), loaded);
}

OomReport OomReportFromEvidence(Evidence evidence, const Config* loaded) {
  OomReport r;
  r.evidence = std::move(evidence);
  const std::vector<Observation>& obs = r.evidence.observations;
  std::vector<size_t> order(obs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  StableSort(order, [&](size_t a, size_t b) { return obs[a].IsOom() && !obs[b].IsOom(); });
  const double context = loaded != nullptr ? loaded->cuda_context_gb * kGB : -1;
  for (size_t i : order) {
    const Observation& o = obs[i];
    DeviceReport d;
    d.observation = i;
    d.bar = BuildOomBar(o);
    d.findings = DiagnoseOom(o, d.bar, context);
    if (o.capacity.Known()) d.matches = MatchGpus(o.capacity.bytes, !IsSmi(o.form), NameFor(r.evidence, o));
    if (loaded != nullptr && o.IsOom() && o.capacity.Known()) {
      d.has_config = true;
      d.suggested = ConfigForCard(*loaded, o, d.matches);
      d.comparison = CompareWithEstimate(o, d.suggested);
      const Totals t = EstimateTotals(d.suggested);
      d.suggested_fits = t.Fits();
      if (t.ok && !d.suggested_fits) {
        Config empty = d.suggested;
        empty.other_processes_gb = 0;
        const Totals alone = EstimateTotals(empty);
        if (alone.Fits() && d.suggested.other_processes_gb > 0) {
          d.comparison.differences.insert(
              d.comparison.differences.begin(),
              "On an empty " + d.suggested.gpu + " the configuration fits (" + FormatTorchSize(alone.peak_bytes) +
                  " of " + FormatTorchSize(alone.capacity_bytes) + "); with the " +
                  FormatNumber(d.suggested.other_processes_gb) +
                  " GB held by others it does not: the memory held elsewhere is the cause, not the configuration.");
        }
        d.remedies = Diagnose(d.suggested);
        if (d.remedies.size() > kMaxRemedies) d.remedies.resize(kMaxRemedies);
      }
    }
    r.devices.push_back(std::move(d));
  }
  for (const DeviceReport& d : r.devices) {
    if (!obs[d.observation].IsOom() || d.findings.empty()) continue;
    const Finding& f = d.findings.front();
    const Observation& o = obs[d.observation];
    r.headline = (o.device >= 0 ? "GPU " + std::to_string(o.device) + ": " : std::string()) + f.title +
                 (!f.summary.empty() ? ": " + f.summary
                  : f.bytes > 0      ? " (" + FormatTorchSize(f.bytes) + ")"
                                     : "");
    break;
  }
  if (r.headline.empty() && !r.devices.empty() && !r.devices.front().findings.empty())
    r.headline = r.devices.front().findings.front().title;
  return r;
}

}  // namespace llmmem::core
