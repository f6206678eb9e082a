// libFuzzer: layer stacks (issue 17). The first byte picks the reader: a network JSON, a
// pasted print(model), or a request (the JS API's estimateNetwork); what parses is
// analysed and estimated. Nothing crashes, hangs or overflows; every error has a message;
// every figure of a successful estimate is finite and non-negative.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/network/layer_stack_account.h"
#include "core/network/network_json.h"
#include "core/network/network_request.h"
#include "core/network/torch_repr.h"

namespace {

void CheckDiagnostics(const llmmem::core::Diagnostics& ds) {
  for (const auto& d : ds)
    if (d.message.empty()) std::abort();
}

void Estimate(llmmem::core::NetworkSpec spec) {
  using namespace llmmem::core;
  if (spec.input.empty()) spec.input = {3, 32, 32};
  for (bool training : {true, false}) {
    NetworkEstimateInput in;
    in.settings.training = training;
    in.batch = 3;
    const NetworkEstimate e = EstimateNetwork(spec, in);
    CheckDiagnostics(e.diagnostics);
    if (!e.ok) continue;
    for (double v : {e.model_bytes, e.per_sample_bytes, e.total_bytes, e.analysis.saved_bytes,
                     e.analysis.inference_peak_bytes, e.analysis.feature_map_bytes})
      if (!std::isfinite(v) || v < 0) std::abort();
    if (e.max_batch < 0) std::abort();
  }
  (void)ProfileDifferences(spec, NetworkSettings{});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      NetworkParse p = ParseNetworkJson(text);
      CheckDiagnostics(p.diagnostics);
      if (p.ok) {
        Estimate(p.spec);
        const NetworkParse back = ParseNetworkJson(NetworkToJson(p.spec).Dump());
        if (!back.ok) std::abort();  // what was read writes back readable
      }
      break;
    }
    case 1: {
      TorchReprParse p = ParseTorchRepr(text);
      CheckDiagnostics(p.diagnostics);
      if (p.ok) Estimate(p.spec);
      break;
    }
    default: {
      const std::string out = EstimateNetworkJson(text);
      if (out.empty()) std::abort();
      break;
    }
  }
  return 0;
}
