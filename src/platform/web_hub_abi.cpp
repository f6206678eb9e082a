// The page's door to the Hub's pure calls (bindings/hub_calls.h) without Embind, whose runtime
// cost the page 21 KB on the wire for these thirteen functions (issue 28: the page's byte
// budget). One C entry point: a call's name, its arguments as a JSON array, and the bytes of a
// header or an index where the call takes them; the answer is JSON {"r": value}. HubBudget and
// HubHeaderSum live here, named by handles. Linked into the page's worker module (llmmem-plan),
// not the page's own wasm (issue 32): web/plan_worker.js gives hub.js the same methods the JS
// API's Embind module has, so hub.js runs unchanged on both.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "bindings/hub_calls.h"
#include "core/parse/json.h"

namespace {

using llmmem::core::Json;
namespace hub = llmmem::bindings::hub;

std::map<int, std::unique_ptr<hub::HubBudgetCalls>> g_budgets;
std::map<int, std::unique_ptr<hub::HeaderSumCalls>> g_sums;
int g_next_handle = 1;
std::string g_answer;  // the last answer, valid until the next call

const Json& Arg(const Json& args, size_t i) {
  static const Json kNull;
  return i < args.AsArray().size() ? args.AsArray()[i] : kNull;
}
std::string S(const Json& args, size_t i) { return Arg(args, i).AsString(); }
double N(const Json& args, size_t i) { return Arg(args, i).IsNumber() ? Arg(args, i).AsNumber() : 0; }
int H(const Json& args, size_t i) { return static_cast<int>(N(args, i)); }

Json Call(const std::string& fn, const Json& a, const std::string& bytes) {
  if (fn == "parse_ref") return Json(hub::ParseRef(S(a, 0), S(a, 1)));
  if (fn == "endpoint") return Json(hub::Endpoint(S(a, 0)));
  if (fn == "mirrors") return Json(hub::Mirrors());
  if (fn == "file_url") return Json(hub::FileUrl(S(a, 0), S(a, 1), S(a, 2), S(a, 3)));
  if (fn == "api_url") return Json(hub::ApiUrl(S(a, 0), S(a, 1), S(a, 2)));
  if (fn == "search_url") return Json(hub::SearchUrl(S(a, 0), S(a, 1), static_cast<int>(N(a, 2))));
  if (fn == "plan") return Json(hub::Plan(S(a, 0), S(a, 1)));
  if (fn == "read_search") return Json(hub::ReadSearch(S(a, 0)));
  if (fn == "error_message")
    return Json(hub::ErrorMessage(static_cast<int>(N(a, 0)), S(a, 1), S(a, 2), S(a, 3), S(a, 4), S(a, 5),
                                  Arg(a, 6).AsBool()));
  if (fn == "index_shards") return Json(hub::IndexShards(bytes));
  if (fn == "inspect_header") return Json(hub::InspectHeader(bytes, N(a, 0), S(a, 1)));
  if (fn == "token_problem") return Json(hub::TokenProblem(S(a, 0)));
  if (fn == "budget_new") {
    g_budgets[g_next_handle] = std::make_unique<hub::HubBudgetCalls>(N(a, 0), N(a, 1));
    return Json(static_cast<double>(g_next_handle++));
  }
  if (fn == "sum_new") {
    g_sums[g_next_handle] = std::make_unique<hub::HeaderSumCalls>();
    return Json(static_cast<double>(g_next_handle++));
  }
  if (fn == "budget_delete") return Json(static_cast<double>(g_budgets.erase(H(a, 0))));
  if (fn == "sum_delete") return Json(static_cast<double>(g_sums.erase(H(a, 0))));
  if (fn.rfind("budget_", 0) == 0) {
    const auto it = g_budgets.find(H(a, 0));
    if (it == g_budgets.end()) return Json("the Hub load's budget is gone");
    hub::HubBudgetCalls& b = *it->second;
    if (fn == "budget_request") return Json(b.Request(N(a, 1)));
    if (fn == "budget_time") return Json(b.Time(N(a, 1)));
    if (fn == "budget_bytes") return Json(b.Bytes(N(a, 1)));
    if (fn == "budget_shards") return Json(b.Shards(N(a, 1)));
    if (fn == "budget_split_parts") return Json(b.SplitParts(N(a, 1)));
    if (fn == "budget_requests") return Json(b.Requests());
    if (fn == "budget_received") return Json(b.Received());
    if (fn == "budget_limits") return Json(b.Limits());
  }
  if (fn == "sum_add" || fn == "sum_count" || fn == "build_model") {
    const auto it = g_sums.find(H(a, 0));
    if (it == g_sums.end()) return Json(std::string("the Hub load's header sum is gone"));
    if (fn == "sum_add") return Json(it->second->Add(bytes, N(a, 1), S(a, 2)));
    if (fn == "sum_count") return Json(it->second->Count());
    const llmmem::core::JsonParseResult request = llmmem::core::ParseJson(S(a, 1));
    return Json(hub::BuildModel(request.ok ? request.value : Json(), *it->second));
  }
  return Json();  // an unknown call answers null: hub.js and this file are built together
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* llmmem_hub_call(const char* fn, const char* args_json, const char* bytes,
                                                          int size) {
  const llmmem::core::JsonParseResult args = llmmem::core::ParseJson(args_json);
  Json answer(Json::Object{});
  answer["r"] = Call(fn, args.ok ? args.value : Json(Json::Array{}),
                     std::string(bytes, size > 0 ? static_cast<size_t>(size) : 0));
  g_answer = answer.Dump();
  return g_answer.c_str();
}
