// `llmmem plan --serve` (cli_plan_serve.h): its flags, and the serving plan as a table.
#include "cli/cli_plan_serve.h"

#include <algorithm>
#include <cmath>

#include "core/base/units.h"
#include "core/estimate/serving.h"
#include "core/plan/serve_plan_json.h"
#include "core/solve/fit.h"

namespace llmmem::cli {
namespace {

using core::FormatNumber;

std::string Gb(double bytes) { return FormatNumber(bytes / 1e9, 2) + " GB"; }
std::string Count(int64_t v) { return FormatNumber(static_cast<double>(v), 0); }

const char* Usage() {
  return "usage: llmmem plan --serve --model M --runtime vllm|sglang|llama.cpp|ollama|hf-generate --gpu G\n"
         "                  [--gpus N] [--goal concurrency|context] [--top K] [--seq S] [--batch B] [--json]\n"
         "  concurrency: the most requests of --seq tokens; context: the longest context for --batch requests;\n"
         "  over tensor parallelism up to N GPUs (llama.cpp: the layers on the GPUs) and the KV formats\n";
}

}  // namespace

bool IsServePlanCommand(const std::vector<std::string>& args) {
  return !args.empty() && args[0] == "plan" && std::find(args.begin(), args.end(), "--serve") != args.end();
}

int RunServePlan(const std::vector<std::string>& args, const ReadFileFn& read_file, const HubLoadFn& hub,
                 std::ostream& out, std::ostream& err) {
  core::ServePlanRequest r;
  std::vector<std::string> rest;
  bool mode_given = false, bad = false;
  auto fail = [&](const std::string& msg) {
    err << "llmmem plan: error: " << msg << "\n";
    bad = true;
  };
  for (size_t i = 1; i < args.size(); ++i) {
    std::string name = args[i], value;
    bool has_value = false;
    if (const size_t eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    auto take = [&]() {
      if (has_value) return true;
      if (i + 1 >= args.size()) return false;
      value = args[++i];
      return true;
    };
    auto whole = [&](int64_t lo, int64_t hi, int64_t& dst) {
      char* end = nullptr;
      const double d = take() ? std::strtod(value.c_str(), &end) : NAN;
      if (end == nullptr || end == value.c_str() || *end != '\0' || !(d >= lo && d <= hi) || d != std::floor(d))
        return fail(name + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
      dst = static_cast<int64_t>(d);
    };
    if (name == "--serve") {
      continue;
    } else if (name == "--help" || name == "-h") {
      out << Usage();
      return 0;
    } else if (name == "--gpus") {
      whole(1, 1024, r.gpus);
    } else if (name == "--top") {
      int64_t top = r.top;
      whole(0, 1000, top);
      r.top = static_cast<int>(top);
    } else if (name == "--goal") {
      if (!take() || (value != "concurrency" && value != "context"))
        fail("--goal is concurrency (the most requests at --seq) or context (the longest context at --batch)");
      else
        r.goal = value == "context" ? core::ServeGoal::kContext : core::ServeGoal::kConcurrency;
    } else {
      mode_given |= name == "--mode";
      rest.push_back(args[i]);
      if (has_value) continue;
      if (name.rfind("--", 0) == 0 && name != "--json" && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        rest.push_back(args[++i]);
    }
  }
  if (!mode_given) rest.insert(rest.begin(), {"--mode", "infer"});
  const CliParse base = ParseCli(rest, read_file, hub);
  for (const core::Diagnostic& d : base.diagnostics) {
    bad |= d.severity == core::Severity::kError;
    err << "llmmem plan: " << core::SeverityName(d.severity) << ": " << d.message << "\n";
  }
  if (!bad && base.options.config.mode != core::Mode::kInference)
    fail("plan --serve plans serving: --mode infer (or no --mode)");
  if (bad) {
    err << Usage();
    return 2;
  }
  r.base = base.options.config;
  const core::ServePlan plan = core::PlanServing(r);
  if (base.options.json)
    out << core::ServePlanToJson(r, plan).Dump(2) << "\n";
  else
    out << RenderServePlan(r, plan);
  if (!plan.ok) return 2;
  return plan.options.empty() ? 1 : 0;
}

std::string RenderServePlan(const core::ServePlanRequest& r, const core::ServePlan& plan) {
  if (!plan.ok) return "llmmem plan: " + plan.error + "\n";
  const bool concurrency = r.goal == core::ServeGoal::kConcurrency;
  std::string out = "Serving plan: " + r.base.model.name + " under " + core::Id(r.base.runtime) + " on up to " +
                    std::to_string(r.gpus) + " x " + r.base.gpu + ", " +
                    (concurrency ? "the most requests of " + Count(r.base.seq) + " tokens"
                                 : "the longest context for " + Count(r.base.batch) + " request" + (r.base.batch == 1 ? "" : "s")) +
                    "\n";
  const double headroom = core::AnswerHeadroom(r.base);
  out += headroom > 0 ? "Budget per GPU: the card less the fit solver's " + FormatNumber(headroom * 100, 0) +
                            "% headroom (" + Gb(plan.budget_bytes) + ")\n"
                      : "Budget per GPU: the runtime's own share (" +
                            std::string(r.base.runtime == core::Runtime::kVllm ? "gpu_memory_utilization "
                                                                               : "mem_fraction_static ") +
                            FormatNumber(core::ResolveServing(r.base).mem_fraction, 2) + ")\n";
  out += "Searched " + Count(plan.considered) + " layouts and KV formats (" + Count(plan.evaluated) + " estimates)\n";
  if (plan.options.empty()) return out + "\nNothing fits.\n";
  out += "\n";
  int rank = 0;
  for (const core::ServeOption& o : plan.options) {
    out += "  " + std::to_string(++rank) + ". " + std::to_string(o.gpus) + " GPU" + (o.gpus > 1 ? "s" : "") +
           ", KV " + core::Info(o.kv_dtype).id +
           (o.gpu_layers >= 0 ? ", " + std::to_string(o.gpu_layers) + " layers on the GPU" : "") + ": " +
           Count(o.concurrency) + " request" + (o.concurrency == 1 ? "" : "s") + " of " + Count(o.context) +
           " tokens, " + Gb(o.peak_bytes) + " per GPU\n";
    if (!o.launch.empty()) {
      std::string launch = o.launch;
      while (!launch.empty() && launch.back() == '\n') launch.pop_back();
      std::string indented;
      for (char ch : launch) indented += ch == '\n' ? std::string("\n     ") : std::string(1, ch);
      out += "     " + indented + "\n";
    }
  }
  return out;
}

}  // namespace llmmem::cli
