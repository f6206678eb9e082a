// One request for a layer-stack estimate, as JSON: the CLI (flags of the same names in
// kebab case), the JS API and the URL fill the same keys, so every front end asks the same
// question and gets the same answer (NetworkResultToJson).
//
//   model         a preset key (torchvision's name: "resnet50", "vit_b_16")
//   network       a layer-stack JSON object (network_json.h)
//   torch_repr    the text of print(model) (torch_repr.h)
//   image_size    H = W of the input (or "HxW"); channels: C   (input: [C, H, W] in full)
//   batch, mode (train | infer), dtype (fp32 | fp16 | bf16: IsPlainFloat), optimizer (the
//   rows of config_enums.h with layer_stack set), profile and attention (their tables in
//   layer_stack.cpp), loss (true | false), gpu (a catalogue key), gpu_memory_gb,
//   cuda_context_gb, fragmentation_pct
#pragma once

#include <string>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/network/layer_stack_account.h"

namespace llmmem::core {

struct NetworkRequest {
  bool ok = false;
  NetworkSpec spec;
  NetworkEstimateInput input;
  std::string source;       // "preset resnet50", "network JSON", "torch repr"
  std::string gpu;          // catalogue key, when one was named
  Diagnostics diagnostics;  // errors stop; warnings and notes travel with the result
};

// Keys the request accepts (for --help and the URL).
extern const char* const kNetworkRequestKeys[];
NetworkRequest NetworkRequestFromJson(const Json& j);

// The result: the seed's view (model, per sample, total, max batch), the terms with their
// formulas, one row per layer, the notes and the named profile differences.
Json NetworkResultToJson(const NetworkRequest& r, const NetworkEstimate& e);

// request JSON in, result JSON out (what the JS API's estimateNetwork calls).
std::string EstimateNetworkJson(const std::string& request_json);

// The request in a URL: "net_model=resnet50&net_batch=64" (each key with a net_ prefix,
// values percent-encoded; network as compact JSON; torch_repr is not carried: the parsed
// stack travels as network). Keys the request does not know are dropped; an empty request
// gives "". NetworkRequestFromQuery reads the pairs it recognises and returns the rest.
std::string NetworkRequestToQuery(const Json& request);
Json NetworkRequestFromQuery(const std::string& query, std::string* rest = nullptr);

// JSON text in and out, for the JS API (src/bindings/embind_api.cpp):
//   NetworkPresetsJson() -> [{key, name, family, task, params, input}]
//   TorchReprToNetworkJson(text) -> {ok, network (the stack, no input), graph_exact, diagnostics}
std::string NetworkPresetsJson();
std::string TorchReprToNetworkJson(const std::string& text);

}  // namespace llmmem::core
