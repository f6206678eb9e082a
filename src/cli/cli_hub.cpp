// The CLI's Hub commands; see cli_hub.h.
#include "cli/cli_hub.h"

#include "core/hub/hub_ref.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"
#include "net/hub_loader.h"

namespace llmmem::cli {

HubModelLoad LoadHubForCli(const std::string& text, const std::string& gguf_file) {
  HubModelLoad out;
  std::vector<std::string> notes;
  net::HubLoadOptions options = net::HubOptionsFromEnv(&notes);
  // A URL's host is checked against the endpoint (HF_ENDPOINT) the model will come from.
  const core::HubRefParse ref = core::ParseHubRef(text, options.endpoint);
  if (!ref.ok) {
    out.error = ref.error;
    return out;
  }
  options.gguf_file = !gguf_file.empty() ? gguf_file : ref.ref.file;
  const net::HubLoad load = net::LoadHubModel(ref.ref, options);
  out.provenance = notes;
  if (!load.ok) {
    out.error = load.error;
    return out;
  }
  out.ok = true;
  out.model = load.build.model;
  out.dtype_known = load.build.dtype_known;
  out.dtype = load.build.dtype;
  out.provenance.push_back(load.from_cache ? "read from the local cache, no request made"
                                           : "read from " + options.endpoint);
  for (const std::string& line : load.build.provenance) out.provenance.push_back(line);
  for (const core::Diagnostic& d : load.build.diagnostics) out.provenance.push_back(d.message);
  if (!load.gguf_files.empty()) {
    std::string list;
    for (const core::HubFile& f : load.gguf_files) {
      list += "\n    " + f.name + (f.size >= 0 ? "  " + core::FormatBytesBoth(static_cast<double>(f.size)) : "");
    }
    out.provenance.push_back("GGUF files (pick one with --hf-file):" + list);
  }
  return out;
}

bool RunHubSearch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, int* exit_code) {
  std::string query;
  bool asked = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--hf-search" && i + 1 < args.size()) {
      query = args[i + 1];
      asked = true;
    }
    if (args[i].compare(0, 12, "--hf-search=") == 0) {
      query = args[i].substr(12);
      asked = true;
    }
  }
  if (!asked) return false;
  std::vector<std::string> notes;
  const net::HubLoadOptions options = net::HubOptionsFromEnv(&notes);
  for (const std::string& n : notes) err << "llmmem: warning: " << core::TerminalSafe(n, true) << "\n";
  std::string error;
  const core::HubSearchParse hits = net::SearchHub(query, options, &error);
  if (!error.empty()) {
    err << "llmmem: error: " << core::TerminalSafe(error, true) << "\n";
    *exit_code = 2;
    return true;
  }
  for (const core::HubSearchHit& h : hits.hits) {
    std::string line = h.id;
    if (h.downloads >= 0) line += "  " + core::FormatCount(h.downloads) + " downloads";
    if (h.parameters > 0) line += "  " + core::FormatParams(static_cast<double>(h.parameters)) + " parameters";
    out << core::TerminalSafe(line, true) << "\n";
  }
  *exit_code = 0;
  return true;
}

}  // namespace llmmem::cli
