// libFuzzer: the Hub's pure parts (core/hub_*.h) on any text. The first byte picks the
// reader: a reference (and the URLs built from it), the API's model info (and the file
// plan), a search answer, or a config.json built into a model. Nothing crashes; a parsed
// reference re-reads to itself; URLs carry no space or control character; every failure
// has a message.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/hub/hub_api.h"
#include "core/hub/hub_model.h"
#include "core/hub/hub_ref.h"
#include "core/parse/percent_encoding.h"

namespace {

void Clean(const std::string& url) {
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      const HubRefParse p = ParseHubRef(text);
      if (!p.ok) {
        if (p.error.empty()) std::abort();
        break;
      }
      const HubRefParse again = ParseHubRef(HubRefToText(p.ref));
      if (!again.ok || again.ref.repo_id != p.ref.repo_id || again.ref.revision != p.ref.revision) std::abort();
      Clean(HubFileUrl(kHubDefaultEndpoint, p.ref, p.ref.file.empty() ? "config.json" : p.ref.file));
      Clean(HubModelApiUrl(kHubDefaultEndpoint, p.ref));
      Clean(HubSearchUrl(kHubDefaultEndpoint, text, 10));
      if (PercentDecode(PercentEncode(text, "/"), false) != text) std::abort();
      break;
    }
    case 1: {
      const HubInfoParse p = ReadHubModelInfo(text);
      if (!p.ok && p.error.empty()) std::abort();
      if (p.ok) {
        const HubFilePlan plan = PlanHubFiles(p.info.files, text.substr(0, 16));
        if (plan.kind == HubWeightKind::kGguf && plan.weights_file.empty()) std::abort();
      }
      break;
    }
    case 2: {
      const HubSearchParse p = ReadHubSearch(text);
      if (!p.ok && p.error.empty()) std::abort();
      break;
    }
    default: {
      HubModelInput in;
      in.name = "fuzz/model";
      in.config_text = &text;
      const HubModelBuild b = BuildHubModel(in);
      if (!b.ok && b.diagnostics.empty()) std::abort();
      break;
    }
  }
  return 0;
}
