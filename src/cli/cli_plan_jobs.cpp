// `llmmem plan --jobs` (cli_plan_jobs.h): its flags, and the jobs' phases as a table.
#include "cli/cli_plan_jobs.h"

#include <algorithm>
#include <cmath>

#include "core/base/units.h"
#include "core/plan/jobs_json.h"

namespace llmmem::cli {
namespace {

using core::FormatNumber;

std::string Gb(double bytes) { return FormatNumber(bytes / 1e9, 2); }

std::string Pad(std::string s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

const char* Usage() {
  return "usage: llmmem plan --jobs FILE|- [--gpu GPU] [--json]\n"
         "  FILE: {\"gpu\": KEY, \"jobs\": [{\"name\", \"kind\": held|trainer|engine|server, ...}]} or a list of\n"
         "  jobs with --gpu (README.md \"Several jobs on one GPU\")\n";
}

}  // namespace

bool IsJobsPlanCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "plan") return false;
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return a == "--jobs" || a.rfind("--jobs=", 0) == 0; });
}

int RunJobsPlan(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out,
                std::ostream& err) {
  std::string path, gpu;
  bool json = false, have_path = false;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string name = args[i], value;
    bool has_value = false;
    if (const size_t eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    auto take = [&](std::string& dst) {
      if (!has_value) {
        if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) return false;
        value = args[++i];
      }
      dst = value;
      return true;
    };
    if (name == "--jobs") {
      have_path = take(path);
    } else if (name == "--gpu") {
      if (!take(gpu)) {
        err << "llmmem plan: error: --gpu needs a GPU key\n" << Usage();
        return 2;
      }
    } else if (name == "--json" && !has_value) {
      json = true;
    } else if (name == "--help" || name == "-h") {
      out << Usage();
      return 0;
    } else {
      err << "llmmem plan: error: " << name
          << " is not a flag of plan --jobs: each job's settings are in its file (\"config\")\n"
          << Usage();
      return 2;
    }
  }
  if (!have_path) {
    err << "llmmem plan: error: --jobs needs a file (or - for standard input)\n" << Usage();
    return 2;
  }
  std::string read_error;
  const std::optional<std::string> text = read_file(path, read_error);
  if (!text) {
    err << "llmmem plan: error: " << read_error << "\n";
    return 2;
  }
  const core::JobsRequestParse p = core::JobsRequestFromJsonText(*text, gpu);
  if (core::HasErrors(p.diagnostics)) {
    if (json) out << core::JobsErrorJson(p.diagnostics).Dump(2) << "\n";
    for (const core::Diagnostic& d : p.diagnostics)
      err << "llmmem plan: " << core::SeverityName(d.severity) << ": " << (d.field.empty() ? "" : d.field + ": ")
          << d.message << "\n";
    return 2;
  }
  const core::JobsPlan plan = core::PlanJobs(p.request);
  if (json)
    out << core::JobsToJson(plan, p.request).Dump(2) << "\n";
  else
    out << RenderJobsPlan(p.request, plan);
  if (!plan.ok) return 2;
  switch (plan.verdict) {
    case core::Verdict::kFits:
      return 0;
    case core::Verdict::kDoesNotFit:
      return 1;
    case core::Verdict::kIncomplete:
      return 3;
  }
  return 1;
}

std::string RenderJobsPlan(const core::JobsRequest& r, const core::JobsPlan& plan) {
  if (!plan.ok) return "llmmem plan: " + plan.error + "\n";
  std::string out = "Jobs on one " + r.gpu.gpu + ": " + Gb(plan.capacity_bytes) + " GB, " + Gb(plan.held_bytes) +
                    " GB held by others, " + Gb(plan.free_bytes) + " GB free; budget " + Gb(plan.budget_bytes) +
                    " GB (" + FormatNumber(plan.headroom * 100, 0) + "% of the free memory kept as headroom)\n\n";
  size_t name_w = 12;
  for (const core::JobResult& j : plan.jobs) name_w = std::max(name_w, j.name.size() + 2);
  out += Pad("GB", name_w, false);
  for (core::JobPhase p : plan.phases) out += Pad(core::JobPhaseName(p), 16, true);
  out += "\n";
  for (const core::JobResult& j : plan.jobs) {
    if (j.kind == core::JobKind::kHeld) continue;
    out += Pad(j.name, name_w, false);
    std::vector<std::string> states;
    for (const core::JobState& s : j.phases) {
      out += Pad(Gb(s.bytes), 16, true);
      if (std::find(states.begin(), states.end(), s.state) == states.end()) states.push_back(s.state);
    }
    out += "   " + std::string(core::JobKindId(j.kind)) + ":";
    for (size_t k = 0; k < states.size(); ++k) out += (k == 0 ? " " : ", ") + states[k];
    out += "\n";
  }
  out += Pad("total", name_w, false);
  for (const core::PhaseTotal& t : plan.totals) out += Pad(Gb(t.bytes) + (t.over_bytes > 0 ? " OVER" : ""), 16, true);
  out += "\n";
  const core::PhaseTotal& top = plan.totals[static_cast<size_t>(plan.peak_phase)];
  for (const core::JobResult& j : plan.jobs)
    if (j.kind == core::JobKind::kHeld)
      out += Pad(j.name, name_w, false) + Pad(Gb(j.peak_bytes), 16, true) + "   held by others: outside the free memory\n";
  const double margin = plan.budget_bytes - top.bytes;
  out += "\nPeak: " + std::string(core::JobPhaseName(top.phase)) + ", " + Gb(top.bytes) + " GB, driven by " +
         top.driver + " (" + Gb(std::fabs(margin)) + " GB " + (margin >= 0 ? "below" : "over") + " the budget)\n";
  for (const core::JobResult& j : plan.jobs) {
    if (!j.paged) continue;
    out += "Start: " + j.name + " asks " + Gb(j.requested_bytes) + " GB with " + Gb(j.start_free_bytes) +
           " GB free when it starts: " + (j.starts ? "starts" : "refused") + "\n";
  }
  for (const core::JobResult& j : plan.jobs)
    if (j.cpu_bytes > 0) out += "Host RAM: " + j.name + " keeps " + Gb(j.cpu_bytes) + " GB of weights asleep\n";
  out += std::string("Verdict: ") + core::VerdictId(plan.verdict) + "\n";
  for (const std::string& s : plan.reasons) out += "  " + s + "\n";
  if (!plan.changes.empty()) out += "What fits:\n";
  for (const core::JobChange& c : plan.changes) out += "  " + c.text + "\n";
  return out;
}

}  // namespace llmmem::cli
