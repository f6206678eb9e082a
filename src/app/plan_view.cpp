#include "app/plan_view.h"

#include "app/i18n.h"

#include <cmath>

#include "core/config/config_json.h"
#include "core/config/gpu_count.h"
#include "core/parse/json.h"

namespace llmmem::app {
namespace {

double Number(const core::Json& j, const char* key) {
  const core::Json* x = j.Find(key);
  return x != nullptr && x->IsNumber() ? x->AsNumber() : 0.0;
}

std::string Str(const core::Json& j, const char* key) {
  const core::Json* x = j.Find(key);
  return x != nullptr ? x->AsString() : std::string();
}

}  // namespace

int64_t GlobalBatchTokens(const core::Config& c) { return c.batch * c.grad_accum * c.dp * c.seq; }

std::string PlanRequestJson(const core::Config& c, const PlanView& v, int top) {
  core::Json j(core::Json::Object{});
  j["config"] = core::ConfigToJson(c);
  const double gpus = static_cast<double>(v.gpus > 0 ? v.gpus : core::TotalGpus(c));
  j[v.up_to ? "max_gpus" : "gpus"] = core::Json(gpus);
  const int64_t tokens = v.global_batch_tokens > 0 ? v.global_batch_tokens : GlobalBatchTokens(c);
  j["global_batch_tokens"] = core::Json(static_cast<double>(tokens));
  j["seq"] = core::Json(static_cast<double>(c.seq));
  j["top"] = core::Json(top);
  return j.Dump();
}

PlanAnswer PlanAnswerFromJson(int64_t seq, const std::string& text, double ms) {
  PlanAnswer a;
  a.seq = seq;
  a.ms = ms;
  const core::JsonParseResult parsed = core::ParseJson(text);
  if (!parsed.ok || !parsed.value.IsObject()) {
    a.error = parsed.ok ? std::string(Tr("the planner's answer is not a JSON object"))
                        : std::string(Tr("the planner's answer: ")) + parsed.error;
    return a;
  }
  const core::Json& j = parsed.value;
  const core::Json* ok = j.Find("ok");
  a.ok = ok != nullptr && ok->AsBool();
  a.error = Str(j, "error");
  if (!a.ok) {
    if (a.error.empty()) a.error = Tr("the planner answered without a plan");
    return a;
  }
  a.budget_bytes = Number(j, "budget_bytes");
  a.capacity_bytes = Number(j, "capacity_bytes");
  if (const core::Json* n = j.Find("search")) {
    a.considered = static_cast<int64_t>(Number(*n, "considered"));
    a.evaluated = static_cast<int64_t>(Number(*n, "evaluated"));
    a.pruned = static_cast<int64_t>(Number(*n, "pruned"));
    a.invalid = static_cast<int64_t>(Number(*n, "invalid"));
    a.feasible = static_cast<int64_t>(Number(*n, "feasible"));
  }
  if (const core::Json* list = j.Find("candidates")) {
    for (const core::Json& k : list->AsArray()) {
      PlanRow row;
      row.rank = static_cast<int>(Number(k, "rank"));
      row.layout = Str(k, "layout");
      row.peak_bytes = Number(k, "peak_bytes");
      row.tokens_per_s = Number(k, "tokens_per_s");
      if (const core::Json* step = k.Find("step")) row.step_s = Number(*step, "total_s");
      if (const core::Json* c = k.Find("config")) row.config = core::ConfigFromJson(*c, core::DefaultConfig()).config;
      if (const core::Json* ns = k.Find("neighbours"))
        for (const core::Json& n : ns->AsArray()) row.neighbours.push_back(Str(n, "text"));
      a.best.push_back(std::move(row));
    }
  }
  return a;
}

void PlanAnswered(PlanView& v, int64_t seq, bool ok, const std::string& text, double ms) {
  if (seq != v.seq) return;  // a newer search is on its way
  v.running = false;
  if (ok) {
    v.answer = PlanAnswerFromJson(seq, text, ms);
    return;
  }
  v.answer = PlanAnswer{};
  v.answer.seq = seq;
  v.answer.error = text;
}

}  // namespace llmmem::app
