#include "app/jobs_view.h"

#include "app/i18n.h"

#include <algorithm>
#include <cstring>

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
bool Bool(const core::Json& j, const char* key, bool otherwise) {
  const core::Json* x = j.Find(key);
  return x != nullptr && x->IsBool() ? x->AsBool() : otherwise;
}
const core::Json::Array& List(const core::Json& j, const char* key) {
  static const core::Json::Array empty;
  const core::Json* x = j.Find(key);
  return x != nullptr ? x->AsArray() : empty;
}

}  // namespace

std::string JobsRequestText(const std::string& text, const std::string& gpu) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[') return text;
  core::Json g(gpu);
  return "{\"gpu\": " + g.Dump() + ", \"jobs\": " + text.substr(first) + "}";
}

void ChooseJobsExample(JobsView& v, int index) {
  if (index < 0 || index >= static_cast<int>(v.examples.size())) return;
  v.chosen = index;
  const std::string& r = v.examples[static_cast<size_t>(index)].request;
  const size_t n = std::min(r.size(), v.text.size() - 1);
  std::memcpy(v.text.data(), r.data(), n);
  v.text[n] = '\0';
}

std::vector<JobsExample> JobsExamplesFromJson(const std::string& text, std::string* error) {
  std::vector<JobsExample> out;
  const core::JsonParseResult parsed = core::ParseJson(text);
  if (!parsed.ok || !Bool(parsed.value, "ok", false)) {
    if (error) *error = parsed.ok ? Str(parsed.value, "error") : parsed.error;
    return out;
  }
  for (const core::Json& e : List(parsed.value, "examples"))
    out.push_back({Str(e, "id"), Str(e, "title"), Str(e, "request"), Bool(e, "bare_list", false)});
  return out;
}

JobsAnswer JobsAnswerFromJson(int64_t seq, const std::string& text) {
  JobsAnswer a;
  a.seq = seq;
  const core::JsonParseResult parsed = core::ParseJson(text);
  if (!parsed.ok || !parsed.value.IsObject()) {
    a.error = parsed.ok ? std::string(Tr("the planner's answer is not a JSON object"))
                        : std::string(Tr("the planner's answer: ")) + parsed.error;
    return a;
  }
  const core::Json& j = parsed.value;
  a.ok = Bool(j, "ok", false);
  a.error = Str(j, "error");
  if (!a.ok) {
    if (a.error.empty()) a.error = Tr("the planner answered without a plan");
    return a;
  }
  if (const core::Json* g = j.Find("gpu")) {
    a.gpu = Str(*g, "key");
    a.capacity_bytes = Number(*g, "capacity_bytes");
  }
  a.held_bytes = Number(j, "held_bytes");
  a.free_bytes = Number(j, "free_bytes");
  a.headroom = Number(j, "headroom_fraction");
  a.budget_bytes = Number(j, "budget_bytes");
  for (const core::Json& p : List(j, "phases"))
    a.phases.push_back({Str(p, "id"), Str(p, "name"), Str(p, "driver"), Number(p, "bytes"), Number(p, "over_bytes"),
                        Bool(p, "fits", true)});
  if (const core::Json* p = j.Find("peak")) {
    a.peak_phase = Str(*p, "phase");
    a.peak_driver = Str(*p, "driver");
    a.peak_bytes = Number(*p, "bytes");
    a.peak_headroom_bytes = Number(*p, "headroom_bytes");
  }
  a.verdict = Str(j, "verdict");
  for (const core::Json& r : List(j, "reasons")) a.reasons.push_back(r.AsString());
  for (const core::Json& x : List(j, "jobs")) {
    JobsJob job;
    job.name = Str(x, "name");
    job.kind = Str(x, "kind");
    job.model = Str(x, "model");
    job.runtime = Str(x, "runtime");
    job.peak_bytes = Number(x, "peak_bytes");
    job.cpu_bytes = Number(x, "cpu_bytes");
    if (const core::Json* s = x.Find("start")) {
      job.start_checked = Bool(*s, "checked", false);
      job.starts = Bool(*s, "starts", true);
      job.start_free_bytes = Number(*s, "free_bytes");
      job.requested_bytes = Number(*s, "requested_bytes");
    }
    for (const core::Json& p : List(x, "phases")) {
      job.states.push_back(Str(p, "state"));
      job.bytes.push_back(Number(p, "bytes"));
    }
    a.jobs.push_back(std::move(job));
  }
  for (const core::Json& c : List(j, "changes")) a.changes.push_back(Str(c, "text"));
  return a;
}

bool JobsAnswered(JobsView& v, int64_t seq, bool ok, const std::string& text) {
  if (seq == v.examples_seq && v.examples.empty()) {
    if (ok) v.examples = JobsExamplesFromJson(text, &v.examples_error);
    else v.examples_error = text;
    if (v.chosen < 0 && !v.examples.empty()) ChooseJobsExample(v, 0);
    return true;
  }
  if (seq != v.seq) return false;
  v.running = false;
  if (ok) {
    v.answer = JobsAnswerFromJson(seq, text);
  } else {
    v.answer = JobsAnswer{};
    v.answer.seq = seq;
    v.answer.error = text;
  }
  return true;
}

}  // namespace llmmem::app
