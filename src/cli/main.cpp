// llmmem: the command-line face of the estimator. Reads files (the core does no I/O),
// prints a table or JSON. Exit: 0 fits, 1 does not fit, 2 bad input, 3 incomplete (what is
// counted fits but a part of the memory is unknown: core Verdict::kIncomplete).
#include <iostream>

#include "cli/cli_args.h"
#include "cli/cli_files.h"
#include "cli/cli_fit.h"
#include "cli/cli_hub.h"
#include "cli/cli_oom.h"
#include "cli/cli_plan.h"
#include "cli/cli_plan_jobs.h"
#include "cli/cli_plan_serve.h"
#include "cli/cli_run.h"
#include "cli/cli_network.h"
#include "cli/cli_weights.h"
#include "cli/cli_table.h"
#include "cli/terminal_streams.h"
#include "core/config/config_schema.h"
#include "core/report/fit_json.h"
#include "core/plan/plan_json.h"
#include "core/solve/compat.h"
#include "core/solve/doctor.h"
#include "core/report/doctor_json.h"
#include "core/estimate/estimate.h"
#include "core/report/export.h"
#include "core/parse/json.h"
#include "core/network/torch_repr.h"
#include "core/report/launch_export.h"
#include "core/report/published_bands.h"
#include "core/base/units.h"
#include "core/report/result_json.h"
#include "core/base/safe_text.h"
#include "io/bounded_file.h"

namespace {

// --config and --hf-config: a regular file (or - for standard input) of at most 8 MiB.
const llmmem::cli::ReadFileFn ReadFile = llmmem::cli::ReaderFor("a config.json", llmmem::core::kJsonMaxBytes);

// std::cout and std::cerr are terminal-safe for the whole run (cli/terminal_streams.h).
void Print(std::ostream& out, const std::string& text) { out << text; }

// 0 fits, 1 does not fit, 3 incomplete (2 is bad input, returned before an estimate).
int ExitCode(llmmem::core::Verdict v) {
  switch (v) {
    case llmmem::core::Verdict::kFits:
      return 0;
    case llmmem::core::Verdict::kDoesNotFit:
      return 1;
    case llmmem::core::Verdict::kIncomplete:
      return 3;
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace llmmem;
  // Every command's output, whatever prints it: names read from files and links cannot
  // move the cursor, set the title or rewrite a line.
  const cli::TerminalSafeStdStreams safe_streams;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "oom") return cli::RunOom(args, ReadFile, std::cout, std::cerr);
  if (!args.empty() && args[0] == "run") return cli::RunRunLog(args, ReadFile, std::cout, std::cerr);
  if (cli::IsNetworkCommand(args))  // any network, layer by layer
    return cli::RunNetworkCommand(args, cli::ReaderFor("a network description", core::kJsonMaxBytes),
                                  cli::ReaderFor("a print(model) text", core::kTorchReprMaxBytes));
  if (cli::IsJobsPlanCommand(args))  // several jobs on one GPU
    return cli::RunJobsPlan(args, cli::ReaderFor("a jobs plan", core::kJsonMaxBytes), std::cout, std::cerr);
  if (cli::IsServePlanCommand(args))  // the serving planner
    return cli::RunServePlan(args, ReadFile, cli::LoadHubForCli, std::cout, std::cerr);
  if (cli::IsPlanCommand(args)) {  // the training planner: its flags, then the estimate's
    cli::PlanArgs plan_args = cli::SplitPlanArgs(args);
    for (const std::string& a : plan_args.rest)
      if (a == "--help" || a == "-h") {
        Print(std::cout, cli::PlanHelp());
        return 0;
      }
    const cli::CliParse base = cli::ParseCli(plan_args.rest, ReadFile, cli::LoadHubForCli);
    bool bad = false;
    for (const core::Diagnostic& d : plan_args.diagnostics) {
      bad = true;
      Print(std::cerr, "llmmem plan: error: " + d.message + "\n");
    }
    for (const core::Diagnostic& d : base.diagnostics) {
      bad |= d.severity == core::Severity::kError;
      Print(std::cerr, "llmmem plan: " + std::string(core::SeverityName(d.severity)) + ": " + d.message + "\n");
    }
    if (bad) {
      Print(std::cerr, cli::PlanHelp());
      return 2;
    }
    plan_args.request.base = base.options.config;
    const core::TrainPlan plan = core::PlanTraining(plan_args.request);
    if (base.options.json)
      std::cout << core::PlanToJson(plan_args.request, plan).Dump(2) << "\n";
    else
      Print(std::cout, cli::RenderPlan(plan_args.request, plan));
    if (!plan.ok) return 2;
    return plan.best.empty() ? 1 : 0;
  }
  int search_exit = 0;
  if (cli::RunHubSearch(args, std::cout, std::cerr, &search_exit)) return search_exit;
  const cli::CliParse parsed = cli::ParseCli(args, ReadFile, cli::LoadHubForCli);
  if (parsed.options.help) {
    Print(std::cout, cli::HelpText());
    return 0;
  }
  if (parsed.options.list_models) {
    Print(std::cout, cli::RenderModelList());
    return 0;
  }
  if (parsed.options.list_gpus) {
    Print(std::cout, cli::RenderGpuList());
    return 0;
  }
  if (parsed.options.schema) {
    std::cout << core::ConfigSchema().Dump(2) << "\n";
    return 0;
  }
  bool errors = false;
  for (const core::Diagnostic& d : parsed.diagnostics) {
    errors |= d.severity == core::Severity::kError;
    Print(std::cerr, "llmmem: " + std::string(core::SeverityName(d.severity)) + ": " + d.message + "\n");
  }
  if (errors) {
    std::cerr << "llmmem: see llmmem --help for every flag and its range\n";
    return 2;
  }
  if (!parsed.options.weights_files.empty()) {
    std::vector<core::WeightHeaderResult> results;
    bool all_ok = true;
    for (const std::string& path : parsed.options.weights_files) {
      results.push_back(cli::InspectWeightFile(path));
      all_ok &= results.back().ok();
    }
    if (parsed.options.json)
      std::cout << cli::WeightHeadersToJson(parsed.options.weights_files, results).Dump(2) << "\n";
    else
      Print(std::cout, cli::RenderWeightHeaders(parsed.options.weights_files, results));
    return all_ok ? 0 : 2;
  }
  const core::Config& c = parsed.options.config;
  if (!parsed.options.export_target.empty()) {
    core::LaunchTarget target = core::LaunchTarget::kVllm;  // cli_args checked the id
    core::ParseId(parsed.options.export_target, target);
    Print(std::cout, core::ExportLaunch(c, target));
    return 0;
  }
  if (parsed.options.fit) {
    if (parsed.options.json)
      std::cout << core::FitToJson(c).Dump(2) << "\n";
    else
      Print(std::cout, cli::RenderFit(c));
    return 0;
  }
  // What each --from file set, assumed, did not count or did not know (before the figures).
  core::Json::Array from_json;
  for (const auto& [name, file] : parsed.options.from_files) {
    from_json.push_back(core::ProgramFileToJson(file, name));
    if (!parsed.options.json && parsed.options.format.empty()) Print(std::cout, core::ProgramFileText(file, name) + "\n");
  }
  const core::Estimate e = core::Explain(c);
  // Notes on the result itself (the input's were printed above): why a figure is unexpected,
  // and which values the training program (--stack) gave.
  for (const core::Diagnostic& d : e.diagnostics) {
    if (d.id == core::DiagId::kCostsMore || d.id == core::DiagId::kFromStack)
      Print(std::cerr, "llmmem: note: " + d.message + "\n");
    if (d.id == core::DiagId::kHostShort) Print(std::cerr, "llmmem: warning: " + d.message + "\n");
  }
  core::CompatEstimate compat;
  if (parsed.options.compat == "deepspeed") compat = core::DeepSpeedEstimate(c, parsed.options.gpus_per_node);
  if (parsed.options.compat == "megatron") compat = core::MegatronEstimate(c);
  if (parsed.options.format == "markdown") {
    Print(std::cout, core::EstimateToMarkdown(c, e));
  } else if (parsed.options.format == "csv") {
    Print(std::cout, core::EstimateToCsv(e));
  } else if (parsed.options.json) {
    core::Json j = core::EstimateToJson(c, e);
    if (core::Json band = core::PublishedBandJson(c); !band.IsNull()) j["published_runs"] = std::move(band);
    if (!from_json.empty()) j["from"] = core::Json(std::move(from_json));
    if (!parsed.options.compat.empty()) j["compat"] = core::CompatToJson(compat);
    if (parsed.options.doctor)
      j["doctor"] = core::RemediesToJson(e.totals.GpuHolds() ? std::vector<core::Remedy>{} : core::Diagnose(c));
    std::cout << j.Dump(2) << "\n";
  } else {
    Print(std::cout, cli::RenderTable(c, e, parsed.options.show_formulas));
    if (!parsed.options.compat.empty()) Print(std::cout, "\n" + cli::RenderCompat(compat));
    if (parsed.options.doctor && !e.totals.GpuHolds()) Print(std::cout, "\n" + cli::RenderDoctor(core::Diagnose(c)));
  }
  return ExitCode(e.totals.Judge());
}
