#include "app/run_view.h"

#include "app/i18n.h"

#include "core/config/config_json.h"
#include "core/parse/json.h"

namespace llmmem::app {
namespace {

double Number(const core::Json& j, const char* key, double otherwise) {
  const core::Json* x = j.Find(key);
  return x != nullptr && x->IsNumber() ? x->AsNumber() : otherwise;
}
std::string Str(const core::Json& j, const char* key) {
  const core::Json* x = j.Find(key);
  return x != nullptr ? x->AsString() : std::string();
}
const core::Json::Array& List(const core::Json* j, const char* key) {
  static const core::Json::Array empty;
  const core::Json* x = j != nullptr ? j->Find(key) : nullptr;
  return x != nullptr ? x->AsArray() : empty;
}

std::vector<RunRow> Rows(const core::Json* comparison, const char* key) {
  std::vector<RunRow> out;
  for (const core::Json& r : List(comparison, key)) {
    RunRow row;
    row.category = Str(r, "category");
    row.label = Str(r, "label");
    row.note = Str(r, "note");
    row.bytes = r.Find("measured") == nullptr && r.Find("estimated") == nullptr;
    row.measured = Number(r, row.bytes ? "measured_bytes" : "measured", -1);
    row.estimated = Number(r, row.bytes ? "estimated_bytes" : "estimated", -1);
    row.ratio = Number(r, "ratio", 0);
    for (const core::Json& n : List(&r, "lines")) row.lines.push_back(static_cast<int64_t>(n.AsNumber()));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

std::string RunRequestJson(const std::string& text, const core::Config& c) {
  core::Json j(core::Json::Object{});
  j["text"] = core::Json(text);
  j["config"] = core::ConfigToJson(c);
  return j.Dump();
}

RunAnswer RunAnswerFromJson(int64_t seq, const std::string& text) {
  RunAnswer a;
  a.seq = seq;
  const core::JsonParseResult parsed = core::ParseJson(text);
  if (!parsed.ok || !parsed.value.IsObject()) {
    a.error = parsed.ok ? std::string(Tr("the reader's answer is not a JSON object"))
                        : std::string(Tr("the reader's answer: ")) + parsed.error;
    return a;
  }
  const core::Json* log = parsed.value.Find("log");
  if (log == nullptr) {
    a.error = Str(parsed.value, "error");
    return a;
  }
  const core::Json* recognised = log->Find("recognised");
  a.recognised = recognised != nullptr && recognised->IsBool() && recognised->AsBool();
  a.source = Str(*log, "source");
  a.source_name = Str(*log, "source_name");
  a.error = Str(*log, "error");
  for (const core::Json& n : List(log, "notes")) a.notes.push_back(n.AsString());
  const core::Json* c = parsed.value.Find("comparison");
  a.rows = Rows(c, "rows");
  a.not_modelled = Rows(c, "not_modelled");
  a.not_measured = Rows(c, "not_measured");
  a.counts = Rows(c, "counts");
  for (const core::Json& n : List(c, "notes")) a.notes.push_back(n.AsString());
  if (const core::Json* cal = parsed.value.Find("calibration"); cal != nullptr && cal->IsObject()) {
    const core::Json* ok = cal->Find("ok");
    a.calibrated = ok != nullptr && ok->IsBool() && ok->AsBool();
    a.calibration = Str(*cal, "text");
    a.reach = Str(*cal, "reach");
    const core::Json* gb = cal->Find("measured_residual_gb");
    a.carried_gb = gb != nullptr && gb->IsNumber() ? gb->AsNumber() : 0;
  }
  return a;
}

bool RunAnswered(RunView& v, int64_t seq, bool ok, const std::string& text) {
  if (seq != v.seq) return false;
  v.running = false;
  if (ok) {
    v.answer = RunAnswerFromJson(seq, text);
  } else {
    v.answer = RunAnswer{};
    v.answer.seq = seq;
    v.answer.error = text;
  }
  return true;
}

}  // namespace llmmem::app
