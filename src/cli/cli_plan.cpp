// `llmmem plan` (cli_plan.h): its flags, and the plan as a table.
#include "cli/cli_plan.h"

#include <cmath>

#include "core/base/units.h"

namespace llmmem::cli {
namespace {

using core::FormatNumber;

std::string Gb(double bytes) { return FormatNumber(bytes / 1e9, 1) + " GB"; }

}  // namespace

bool IsPlanCommand(const std::vector<std::string>& args) { return !args.empty() && args[0] == "plan"; }

PlanArgs SplitPlanArgs(const std::vector<std::string>& args) {
  PlanArgs p;
  bool seq = false, gpus = false, tokens = false;
  auto bad = [&](const std::string& flag, const std::string& msg) {
    p.diagnostics.push_back({core::DiagId::kOutOfRange, core::Severity::kError, flag, msg});
  };
  for (size_t i = 1; i < args.size(); ++i) {
    std::string name = args[i];
    std::string value;
    bool has_value = false;
    if (const size_t eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    auto take = [&]() -> bool {
      if (!has_value) {
        if (i + 1 >= args.size()) {
          bad(name, name + " needs a value");
          return false;
        }
        value = args[++i];
      }
      return true;
    };
    auto integer = [&](int64_t& out, int64_t lo, int64_t hi) {
      if (!take()) return;
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(d >= lo && d <= hi) || d != std::floor(d)) {
        bad(name, name + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
        return;
      }
      out = static_cast<int64_t>(d);
    };
    auto number = [&](double& out) {
      if (!take()) return;
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(d > 0) || !std::isfinite(d)) {
        bad(name, name + " must be a positive number");
        return;
      }
      out = d;
    };
    core::TrainPlanRequest& r = p.request;
    if (name == "--gpus") {
      integer(r.gpus, 1, 1000000);
      gpus = true;
    } else if (name == "--max-gpus") {
      integer(r.max_gpus, 1, 1000000);
      gpus = true;
    } else if (name == "--global-batch-tokens") {
      integer(r.global_batch_tokens, 1, int64_t{1} << 40);
      tokens = true;
    } else if (name == "--top") {
      int64_t top = r.top;
      integer(top, 0, 1000);
      r.top = static_cast<int>(top);
    } else if (name == "--gpus-per-node") {
      integer(r.links.gpus_per_node, 1, 1024);
    } else if (name == "--link-gbps") {
      number(r.links.link_gbps);
    } else if (name == "--network-gbps") {
      number(r.links.network_gbps);
    } else if (name == "--pcie-gbps") {
      number(r.links.pcie_gbps);
    } else {
      seq = seq || name == "--seq";
      p.rest.push_back(args[i]);
      if (has_value) continue;
      // The estimate's flags take their value as the next word (except the switches).
      if (name.rfind("--", 0) == 0 && name != "--json" && name != "--help" && name != "-h" && i + 1 < args.size() &&
          args[i + 1].rfind("--", 0) != 0)
        p.rest.push_back(args[++i]);
    }
  }
  if (!seq) bad("--seq", "plan needs --seq: the sequence length every micro-batch trains at");
  if (!gpus) bad("--gpus", "plan needs --gpus N (or --max-gpus N: every count up to N)");
  if (!tokens) bad("--global-batch-tokens", "plan needs --global-batch-tokens: the tokens of one optimizer step");
  return p;
}

std::string RenderPlan(const core::TrainPlanRequest& r, const core::TrainPlan& plan) {
  if (!plan.ok) return "llmmem plan: " + plan.error + "\n";
  const int64_t seq = r.seq > 0 ? r.seq : r.base.seq;
  std::string out = "Training plan: " + r.base.model.name + " on " +
                    (r.max_gpus > 0 ? "up to " + std::to_string(r.max_gpus) : std::to_string(r.gpus)) + " x " +
                    r.base.gpu + ", " + FormatNumber(static_cast<double>(r.global_batch_tokens), 0) +
                    " tokens a step (" + std::to_string(r.global_batch_tokens / seq) + " sequences of " +
                    std::to_string(seq) + ")\n";
  out += "Budget per GPU: " + Gb(plan.budget_bytes) + " (the card's " + Gb(plan.capacity_bytes) +
         " less the fit solver's 2% headroom)\n";
  const core::PlanCounts& n = plan.counts;
  out += "Searched " + FormatNumber(static_cast<double>(n.considered), 0) + " candidates: " +
         FormatNumber(static_cast<double>(n.evaluated), 0) + " estimated, " +
         FormatNumber(static_cast<double>(n.pruned), 0) + " ruled out by a bound, " +
         FormatNumber(static_cast<double>(n.invalid), 0) + " refused; " +
         FormatNumber(static_cast<double>(n.feasible), 0) + " fit\n";
  if (plan.best.empty()) return out + "\nNo layout fits.\n";
  out += "\nFastest that fit (step time: the speed model at mfu " + FormatNumber(r.base.mfu, 2) +
         ", plus bubble and communication):\n";
  for (const core::PlanCandidate& k : plan.best) {
    out += "  " + std::to_string(k.rank) + ". " + core::LayoutText(k.settings) + "\n";
    out += "     " + Gb(k.totals.peak_bytes) + " per GPU (headroom " + Gb(plan.budget_bytes - k.totals.peak_bytes) +
           "), step " + FormatNumber(k.time.total_s, 3) + " s = compute " + FormatNumber(k.time.compute_s, 3) +
           " + bubble " + FormatNumber(k.time.bubble_s, 3) + " + tp " + FormatNumber(k.time.tp_comm_s, 3) +
           " + dp " + FormatNumber(k.time.dp_comm_s, 3) +
           (k.time.cp_comm_s > 0 ? " + cp " + FormatNumber(k.time.cp_comm_s, 3) : "") +
           (k.time.ep_comm_s > 0 ? " + ep " + FormatNumber(k.time.ep_comm_s, 3) : "") +
           (k.time.offload_s > 0 ? " + offload " + FormatNumber(k.time.offload_s, 3) : "") + "\n";
    for (const core::PlanNeighbour& x : k.neighbours) out += "       " + x.text + "\n";
  }
  out += "\nMemory versus time (each uses less memory than every faster layout):\n";
  for (const core::PlanPoint& p : plan.pareto)
    out += "  " + FormatNumber(p.step_s, 3) + " s  " + Gb(p.peak_bytes) + "  " + core::LayoutText(p.settings) + "\n";
  return out;
}

std::string PlanHelp() {
  return "usage: llmmem plan --model KEY --gpu GPU --gpus N --global-batch-tokens T --seq S [--json] [--top K]\n"
         "  every layout of tp, pp (virtual stages), cp, ep, dp, ZeRO/FSDP, recompute, micro-batch, optimizer\n"
         "  offload and implementation that fits with the fit solver's headroom, fastest first\n"
         "  --max-gpus N        every GPU count up to N (powers of two and whole nodes) instead of --gpus\n"
         "  --gpus-per-node N   8; --link-gbps 450 (NVLink); --network-gbps 50 (per GPU); --pcie-gbps 25\n"
         "also: llmmem plan --serve ... (the serving planner; plan --serve --help)\n"
         "      llmmem plan --jobs FILE|- [--gpu G] (several jobs on one GPU; plan --jobs --help)\n";
}

}  // namespace llmmem::cli
