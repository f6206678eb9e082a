// The JS API's Hub functions (issue 15): the pure parts of loading a Hugging Face model,
// for web/hub.js, which does the fetching (the browser's fetch(), or node's). JSON text out.
//   hubParseRef(text, endpoint) -> {ok, repo_id, revision, file, text, error} (a URL's host
//     must be the endpoint's, see core::ParseHubRef)
//   hubTokenProblem(token) -> "" or why it cannot be sent (never repeating it)
//   hubEndpoint(value) -> {endpoint, error}      hubMirrors() -> [{name, endpoint}]
//   hubFileUrl(endpoint, repoId, revision, file), hubApiUrl(endpoint, repoId, revision),
//   hubSearchUrl(endpoint, query, limit) -> URL text (huggingface_hub's layout)
//   hubPlan(infoText, chosenGguf) -> {ok, error, info: {...}, plan: {has_config, kind,
//     weights_file, gguf_files: [{name, size}], gguf_parts: [a split GGUF's parts], note}}
//   hubReadSearch(text) -> {ok, error, hits: [{id, downloads, parameters}]}
//   hubErrorMessage(status, repoId, what, transport, errorCode, errorMessage, tokenSent) ->
//     a sentence (errorCode/errorMessage: the Hub's X-Error-Code / X-Error-Message headers)
//   hubIndexShards(bytes of model.safetensors.index.json) -> {ok, error, shard_files}: every
//     shard name a path inside the repo (core::HubPathProblem), else ok false
//   new HubBudget(timeoutMs, nowMs): the load's budget (core/hub/hub_budget.h), the same as
//     the CLI's: request(nowMs), time(nowMs), bytes(n), shards(n), splitParts(n) -> "" or the
//     sentence that stops the load; limits() -> {max_requests, max_bytes, max_wall_ms,
//     max_shards, max_split_parts}; requests(), received(). Call delete() when done.
//   new HubHeaderSum(): add(bytes, fileSize, fileName) -> "" or why the header cannot be
//     added (parsed by name as hubInspectHeader); count(). Each header is summed and its bytes
//     dropped, so the page holds one header at a time. delete() when done.
//   hubInspectHeader(bytes, fileSize, fileName) -> as inspectWeightHeader, the format by name
//   hubBuildModel(request, sum) -> {ok, error, config, approximate, model_type, dtype,
//     stored_bytes, provenance: [...], diagnostics}: request {name, config_text (absent: no
//     config.json), config_source, info_text, info_source, weights_file, weights_source};
//     sum: a HubHeaderSum of the weight headers (none added: no weights were read).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "bindings/hub_calls.h"
#include "core/parse/json.h"

namespace llmmem::bindings {
namespace {

using emscripten::val;
using hub::HeaderSumCalls;
using hub::HubBudgetCalls;

// The request object as JSON text, read by the one BuildModel.
std::string BuildModel(val request, const HeaderSumCalls& headers) {
  if (request.typeOf().as<std::string>() != "object" || request.isNull())
    return hub::BuildModel(core::Json(), headers);
  const std::string text = val::global("JSON").call<std::string>("stringify", request);
  const core::JsonParseResult j = core::ParseJson(text);
  return hub::BuildModel(j.ok ? j.value : core::Json(), headers);
}

}  // namespace
}  // namespace llmmem::bindings

EMSCRIPTEN_BINDINGS(llmmem_hub) {
  using namespace llmmem::bindings;
  emscripten::function("hubParseRef", &hub::ParseRef);
  emscripten::function("hubEndpoint", &hub::Endpoint);
  emscripten::function("hubMirrors", &hub::Mirrors);
  emscripten::function("hubFileUrl", &hub::FileUrl);
  emscripten::function("hubApiUrl", &hub::ApiUrl);
  emscripten::function("hubSearchUrl", &hub::SearchUrl);
  emscripten::function("hubPlan", &hub::Plan);
  emscripten::function("hubReadSearch", &hub::ReadSearch);
  emscripten::function("hubErrorMessage", &hub::ErrorMessage);
  emscripten::function("hubIndexShards", &hub::IndexShards);
  emscripten::function("hubInspectHeader", &hub::InspectHeader);
  emscripten::function("hubBuildModel", &BuildModel);
  emscripten::function("hubTokenProblem", &hub::TokenProblem);
  emscripten::class_<hub::HubBudgetCalls>("HubBudget")
      .constructor<double, double>()
      .function("request", &hub::HubBudgetCalls::Request)
      .function("time", &hub::HubBudgetCalls::Time)
      .function("bytes", &hub::HubBudgetCalls::Bytes)
      .function("shards", &hub::HubBudgetCalls::Shards)
      .function("splitParts", &hub::HubBudgetCalls::SplitParts)
      .function("requests", &hub::HubBudgetCalls::Requests)
      .function("received", &hub::HubBudgetCalls::Received)
      .function("limits", &hub::HubBudgetCalls::Limits);
  emscripten::class_<hub::HeaderSumCalls>("HubHeaderSum")
      .constructor<>()
      .function("add", &hub::HeaderSumCalls::Add)
      .function("count", &hub::HeaderSumCalls::Count);
}
