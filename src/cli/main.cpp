// llmmem: the command-line face of the estimator. Reads files (the core does no I/O),
// prints a table or JSON. Exit: 0 fits, 1 does not fit, 2 bad input.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli_args.h"
#include "cli/cli_fit.h"
#include "cli/cli_network.h"
#include "cli/cli_weights.h"
#include "cli/cli_table.h"
#include "core/compat.h"
#include "core/doctor.h"
#include "core/estimate.h"
#include "core/export.h"
#include "core/units.h"
#include "core/result_json.h"

namespace {

constexpr std::streamoff kMaxFileBytes = 8 << 20;

std::optional<std::string> ReadFile(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "no such file, or not readable";
    return std::nullopt;
  }
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > kMaxFileBytes) {
    error = "larger than 8 MiB; a config.json is a few KB";
    return std::nullopt;
  }
  in.seekg(0);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace llmmem;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (cli::IsNetworkCommand(args)) return cli::RunNetworkCommand(args, ReadFile);  // any network, layer by layer
  const cli::CliParse parsed = cli::ParseCli(args, ReadFile);
  if (parsed.options.help) {
    std::cout << cli::HelpText();
    return 0;
  }
  if (parsed.options.list_models) {
    std::cout << cli::RenderModelList();
    return 0;
  }
  if (parsed.options.list_gpus) {
    std::cout << cli::RenderGpuList();
    return 0;
  }
  bool errors = false;
  for (const core::Diagnostic& d : parsed.diagnostics) {
    errors |= d.severity == core::Severity::kError;
    std::cerr << "llmmem: " << core::SeverityName(d.severity) << ": " << d.message << "\n";
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
    if (parsed.options.json) std::cout << cli::WeightHeadersToJson(parsed.options.weights_files, results).Dump(2) << "\n";
    else std::cout << cli::RenderWeightHeaders(parsed.options.weights_files, results);
    return all_ok ? 0 : 2;
  }
  const core::Config& c = parsed.options.config;
  if (parsed.options.fit) {
    if (parsed.options.json) std::cout << cli::FitToJson(c).Dump(2) << "\n";
    else std::cout << cli::RenderFit(c);
    return 0;
  }
  const core::Estimate e = core::Explain(c);
  core::CompatEstimate compat;
  if (parsed.options.compat == "deepspeed") compat = core::DeepSpeedEstimate(c, parsed.options.gpus_per_node);
  if (parsed.options.compat == "megatron") compat = core::MegatronEstimate(c);
  if (parsed.options.format == "markdown") {
    std::cout << core::EstimateToMarkdown(c, e);
  } else if (parsed.options.format == "csv") {
    std::cout << core::EstimateToCsv(e);
  } else if (parsed.options.json) {
    core::Json j = core::EstimateToJson(c, e);
    if (!parsed.options.compat.empty()) j["compat"] = cli::CompatToJson(compat);
    std::cout << j.Dump(2) << "\n";
  } else {
    std::cout << cli::RenderTable(c, e, parsed.options.show_formulas);
    if (!parsed.options.compat.empty()) std::cout << "\n" << cli::RenderCompat(compat);
    if (parsed.options.doctor && !e.totals.Fits()) std::cout << "\n" << cli::RenderDoctor(core::Diagnose(c));
  }
  return e.totals.Fits() ? 0 : 1;
}
