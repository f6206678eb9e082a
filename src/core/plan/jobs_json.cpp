// Several jobs on one GPU as data (jobs_json.h): the request's reader and llmmem.jobs/1.
//
// Index
//  [SECTION] Request
//  [SECTION] Plan
#include "core/plan/jobs_json.h"

#include <cmath>
#include <initializer_list>

#include "core/base/units.h"
#include "core/catalogue/gpus.h"
#include "core/config/config_json.h"
#include "core/report/result_json.h"

namespace llmmem::core {
namespace {

// [SECTION] Request ----------------------------------------------------------------------------

struct Reader {
  Diagnostics& diags;
  void Error(DiagId id, const std::string& field, const std::string& msg) {
    diags.push_back({id, Severity::kError, field, msg});
  }
};

// The keys each kind takes (beside name and kind).
const char* KeysOf(JobKind k) {
  switch (k) {
    case JobKind::kHeld:
      return "bytes, gb";
    case JobKind::kTrainer:
      return "config";
    case JobKind::kEngine:
      return "config, sleep_level, weight_sync, bucket_mib, process";
    case JobKind::kServer:
      return "config, draft";
  }
  return "";
}

bool TakesKey(JobKind k, const std::string& key) {
  if (key == "name" || key == "kind") return true;
  const std::string keys = std::string(", ") + KeysOf(k) + ",";
  return keys.find(", " + key + ",") != std::string::npos;
}

bool ParseKind(const std::string& s, JobKind& out) {
  for (JobKind k : {JobKind::kHeld, JobKind::kTrainer, JobKind::kEngine, JobKind::kServer})
    if (s == JobKindId(k)) {
      out = k;
      return true;
    }
  return false;
}

// A Config JSON on `base`: its diagnostics under `at`, unknown keys as errors, and the keys the
// plan sets itself refused.
Config ReadConfig(const Json& j, const Config& base, const std::string& at, std::initializer_list<const char*> owned,
                  const std::string& why_owned, Reader& r) {
  if (!j.IsObject()) {
    r.Error(DiagId::kWrongType, at, at + " must be a JSON object of settings (as --config reads)");
    return base;
  }
  for (const char* key : owned)
    if (j.Find(key) != nullptr) r.Error(DiagId::kInconsistent, at + "." + key, why_owned);
  ConfigParse cp = ConfigFromJson(j, base);
  for (Diagnostic d : cp.diagnostics) {
    if (d.id == DiagId::kUnknownKey) {  // a typo must not plan something else
      d.severity = Severity::kError;
      if (const size_t at_ignored = d.message.find(", so it was ignored"); at_ignored != std::string::npos)
        d.message.erase(at_ignored, 19);
    }
    d.field = at + (d.field.empty() ? "" : "." + d.field);
    r.diags.push_back(std::move(d));
  }
  return cp.config;
}

bool PositiveNumber(const Json* x, double& out) {
  if (x == nullptr || !x->IsNumber() || !std::isfinite(x->AsNumber()) || !(x->AsNumber() > 0)) return false;
  out = x->AsNumber();
  return true;
}

void ReadJob(const Json& jj, size_t i, const Config& gpu, JobSpec& job, Reader& r) {
  const std::string at = "jobs[" + std::to_string(i) + "]";
  if (!jj.IsObject()) {
    r.Error(DiagId::kWrongType, at, at + " must be an object: {\"name\", \"kind\", ...}");
    return;
  }
  const Json* name = jj.Find("name");
  if (name == nullptr || !name->IsString() || name->AsString().empty())
    r.Error(DiagId::kMissingField, at + ".name", at + " needs a name (a string)");
  else
    job.name = name->AsString();
  const Json* kind = jj.Find("kind");
  if (kind == nullptr || !ParseKind(kind->AsString(), job.kind)) {
    r.Error(DiagId::kUnknownValue, at + ".kind", "kind is held, trainer, engine or server");
    return;
  }
  for (const auto& kv : jj.AsObject()) {
    if (TakesKey(job.kind, kv.first)) continue;
    bool elsewhere = false;
    for (JobKind k : {JobKind::kHeld, JobKind::kTrainer, JobKind::kEngine, JobKind::kServer})
      elsewhere |= TakesKey(k, kv.first);
    r.Error(DiagId::kUnknownKey, at + "." + kv.first,
            (elsewhere ? "a " + std::string(JobKindId(job.kind)) + " job has no \"" + kv.first + "\""
                       : "\"" + kv.first + "\" is not a key of a job") +
                "; a " + JobKindId(job.kind) + "'s keys are name, kind, " + KeysOf(job.kind));
  }
  if (job.kind == JobKind::kHeld) {
    const Json* bytes = jj.Find("bytes");
    const Json* gb = jj.Find("gb");
    double v = 0;
    if ((bytes != nullptr) == (gb != nullptr))
      r.Error(DiagId::kMissingField, at + ".bytes", "memory held by others needs \"bytes\" or \"gb\" (one of them)");
    else if (!PositiveNumber(bytes != nullptr ? bytes : gb, v))
      r.Error(DiagId::kOutOfRange, at + (bytes != nullptr ? ".bytes" : ".gb"), "the memory held must be a number above 0");
    else
      job.held_bytes = bytes != nullptr ? std::round(v) : std::round(v * kGB);
    return;
  }
  Config base = DefaultConfig();
  base.gpu = gpu.gpu;
  base.gpu_memory_gb = gpu.gpu_memory_gb;
  if (job.kind != JobKind::kTrainer) base.mode = Mode::kInference;
  if (job.kind == JobKind::kEngine) base.runtime = Runtime::kVllm;
  const Json* config = jj.Find("config");
  if (config == nullptr) {
    r.Error(DiagId::kMissingField, at + ".config", "a " + std::string(JobKindId(job.kind)) + " needs its config");
    return;
  }
  job.config = ReadConfig(*config, base, at + ".config", {"gpu", "gpu_memory_gb"},
                          "every job runs on the plan's GPU: set \"gpu\" (and \"gpu_memory_gb\") once, at the top", r);
  if (job.kind == JobKind::kEngine) {
    job.sleep_level = 1;
    if (const Json* s = jj.Find("sleep_level")) {
      const double v = s->IsNumber() ? s->AsNumber() : -1;
      if (v != 0 && v != 1 && v != 2)
        r.Error(DiagId::kOutOfRange, at + ".sleep_level", "sleep_level is 0 (no sleep mode), 1 or 2");
      else
        job.sleep_level = static_cast<int>(v);
    }
    if (const Json* w = jj.Find("weight_sync")) {
      const std::string s = w->AsString();
      bool found = false;
      for (WeightSync x : {WeightSync::kPerTensor, WeightSync::kBucket, WeightSync::kFull})
        if (s == WeightSyncId(x)) {
          job.sync = x;
          found = true;
        }
      if (!found) r.Error(DiagId::kUnknownValue, at + ".weight_sync", "weight_sync is per_tensor, bucket or full");
    }
    if (const Json* b = jj.Find("bucket_mib")) {
      double v = 0;
      if (!PositiveNumber(b, v) || v > 1048576)
        r.Error(DiagId::kOutOfRange, at + ".bucket_mib", "bucket_mib must be a number of MiB above 0 (verl: 2048)");
      else
        job.bucket_bytes = v * kMiB;
    }
    if (const Json* p = jj.Find("process")) {
      if (!p->IsString())
        r.Error(DiagId::kWrongType, at + ".process", "process is the name of the trainer job the engine runs in");
      else
        job.process = p->AsString();
    }
  }
  if (job.kind == JobKind::kServer)
    if (const Json* d = jj.Find("draft")) {
      Config dbase = base;
      dbase.runtime = job.config.runtime;
      job.has_draft = true;
      job.draft = ReadConfig(*d, dbase, at + ".draft", {"gpu", "gpu_memory_gb", "runtime", "mode", "seq", "batch"},
                             "the draft runs in its server's process: its runtime, GPU, slots and context are the "
                             "server's (llama-server -cd 0: a slot's context)",
                             r);
    }
}

// [SECTION] Plan -------------------------------------------------------------------------------

Json Categories(const double* c) {
  Json j(Json::Object{});
  for (int i = 0; i < kCategoryCount; ++i) j[CategoryId(static_cast<Category>(i))] = Json(c[i]);
  return j;
}

Json JobToJson(const JobResult& x, const std::vector<JobPhase>& phases) {
  Json j(Json::Object{});
  j["name"] = Json(x.name);
  j["kind"] = Json(JobKindId(x.kind));
  const bool held = x.kind == JobKind::kHeld;
  j["model"] = Json(held ? "" : x.config.model.name);
  j["runtime"] = Json(held || x.config.mode != Mode::kInference ? "" : Id(x.config.runtime));
  j["peak_bytes"] = Json(x.peak_bytes);
  j["verdict"] = Json(VerdictId(x.verdict));
  j["verdict_note"] = Json(x.verdict_note);
  Json start(Json::Object{});
  start["checked"] = Json(x.paged);
  start["starts"] = Json(x.starts);
  start["free_bytes"] = Json(x.start_free_bytes);
  start["requested_bytes"] = Json(x.requested_bytes);
  j["start"] = std::move(start);
  j["cpu_bytes"] = Json(x.cpu_bytes);
  j["sync_buffer_bytes"] = Json(x.sync_buffer_bytes);
  j["draft_bytes"] = Json(x.draft_bytes);
  Json::Array ps;
  for (size_t p = 0; p < phases.size() && p < x.phases.size(); ++p) {
    Json s(Json::Object{});
    s["phase"] = Json(JobPhaseId(phases[p]));
    s["state"] = Json(x.phases[p].state);
    s["bytes"] = Json(x.phases[p].bytes);
    s["bytes_by_category"] = Categories(x.phases[p].category_bytes);
    ps.push_back(std::move(s));
  }
  j["phases"] = Json(std::move(ps));
  j["config"] = held ? Json(Json::Object{}) : ConfigToJson(x.config);
  j["launch"] = Json(x.launch);
  j["source"] = Json(x.source);
  return j;
}

}  // namespace

JobsRequestParse JobsRequestFromJsonText(const std::string& text, const std::string& gpu_key) {
  JobsRequestParse out;
  Reader r{out.diagnostics};
  const JsonParseResult parsed = ParseJson(text);
  if (!parsed.ok) {
    r.Error(DiagId::kParse, "", parsed.error);
    return out;
  }
  const Json& doc = parsed.value;
  if (!doc.IsObject() && !doc.IsArray()) {
    r.Error(DiagId::kWrongType, "", "the jobs plan request is an object {\"gpu\", \"jobs\": [...]} or a list of jobs");
    return out;
  }
  if (doc.IsObject())
    for (const auto& kv : doc.AsObject())
      if (kv.first != "gpu" && kv.first != "gpu_memory_gb" && kv.first != "jobs")
        r.Error(DiagId::kUnknownKey, kv.first, "\"" + kv.first + "\" is not a key of the request (gpu, gpu_memory_gb, jobs)");
  const Json* g = doc.IsObject() ? doc.Find("gpu") : nullptr;
  const std::string key = g != nullptr ? g->AsString() : gpu_key;
  const Gpu* gpu = FindGpu(key);
  if (g != nullptr && !g->IsString())
    r.Error(DiagId::kWrongType, "gpu", "gpu is a catalogue key (llmmem --list-gpus)");
  else if (key.empty())
    r.Error(DiagId::kMissingField, "gpu", "the plan needs its GPU: \"gpu\": a catalogue key (llmmem --list-gpus)");
  else if (gpu == nullptr)
    r.Error(DiagId::kUnknownValue, "gpu", "\"" + key + "\" is not a GPU of the catalogue (llmmem --list-gpus)");
  else
    SelectGpu(out.request.gpu, *gpu);
  if (const Json* m = doc.IsObject() ? doc.Find("gpu_memory_gb") : nullptr) {
    double v = 0;
    if (!PositiveNumber(m, v) || v > 100000)
      r.Error(DiagId::kOutOfRange, "gpu_memory_gb", "gpu_memory_gb must be a number of GB above 0");
    else
      out.request.gpu.gpu_memory_gb = v;
  }
  const Json* jobs = doc.IsArray() ? &doc : doc.Find("jobs");
  if (jobs == nullptr || !jobs->IsArray()) {
    r.Error(DiagId::kMissingField, "jobs", "jobs is a list of the jobs on the GPU");
    return out;
  }
  if (jobs->AsArray().size() > 64) {
    r.Error(DiagId::kOutOfRange, "jobs", "at most 64 jobs on one GPU");
    return out;
  }
  for (size_t i = 0; i < jobs->AsArray().size(); ++i) {
    out.request.jobs.emplace_back();
    ReadJob(jobs->AsArray()[i], i, out.request.gpu, out.request.jobs.back(), r);
  }
  if (!HasErrors(out.diagnostics))
    for (const Diagnostic& d : ValidateJobs(out.request)) out.diagnostics.push_back(d);
  return out;
}

Json JobsToJson(const JobsPlan& plan, const JobsRequest& r) {
  Json j(Json::Object{});
  j["schema"] = Json(kJobsSchema);
  j["ok"] = Json(plan.ok);
  if (!plan.ok) {
    j["error"] = Json(plan.error);
    return j;
  }
  Json gpu(Json::Object{});
  gpu["key"] = Json(r.gpu.gpu);
  gpu["capacity_bytes"] = Json(plan.capacity_bytes);
  j["gpu"] = std::move(gpu);
  j["held_bytes"] = Json(plan.held_bytes);
  j["free_bytes"] = Json(plan.free_bytes);
  j["headroom_fraction"] = Json(plan.headroom);
  j["budget_bytes"] = Json(plan.budget_bytes);
  Json::Array phases;
  for (const PhaseTotal& t : plan.totals) {
    Json p(Json::Object{});
    p["id"] = Json(JobPhaseId(t.phase));
    p["name"] = Json(JobPhaseName(t.phase));
    p["bytes"] = Json(t.bytes);
    p["over_bytes"] = Json(t.over_bytes);
    p["fits"] = Json(t.over_bytes <= 0);
    p["driver"] = Json(t.driver);
    p["bytes_by_category"] = Categories(t.category_bytes);
    phases.push_back(std::move(p));
  }
  j["phases"] = Json(std::move(phases));
  const PhaseTotal& top = plan.totals[static_cast<size_t>(plan.peak_phase)];
  Json peak(Json::Object{});
  peak["phase"] = Json(JobPhaseId(top.phase));
  peak["bytes"] = Json(top.bytes);
  peak["driver"] = Json(top.driver);
  peak["headroom_bytes"] = Json(plan.budget_bytes - top.bytes);
  j["peak"] = std::move(peak);
  j["verdict"] = Json(VerdictId(plan.verdict));
  Json::Array reasons;
  for (const std::string& s : plan.reasons) reasons.push_back(Json(s));
  j["reasons"] = Json(std::move(reasons));
  Json::Array jobs;
  for (const JobResult& x : plan.jobs) jobs.push_back(JobToJson(x, plan.phases));
  j["jobs"] = Json(std::move(jobs));
  Json::Array changes;
  for (const JobChange& c : plan.changes) {
    Json x(Json::Object{});
    x["job"] = Json(c.job);
    x["setting"] = Json(c.setting);
    x["current"] = Json(c.current);
    x["lo"] = Json(c.lo);
    x["hi"] = Json(c.hi);
    x["fits"] = Json(c.hi >= c.lo);
    x["text"] = Json(c.text);
    changes.push_back(std::move(x));
  }
  j["changes"] = Json(std::move(changes));
  return j;
}

Json JobsErrorJson(const Diagnostics& diags) {
  Json j(Json::Object{});
  j["schema"] = Json(kJobsSchema);
  j["ok"] = Json(false);
  j["diagnostics"] = DiagnosticsToJson(diags);
  for (const Diagnostic& d : diags)
    if (d.severity == Severity::kError) {
      j["error"] = Json((d.field.empty() ? "" : d.field + ": ") + d.message);
      break;
    }
  return j;
}

std::string JobsJson(const std::string& request_json) {
  const JobsRequestParse p = JobsRequestFromJsonText(request_json);
  if (HasErrors(p.diagnostics)) return JobsErrorJson(p.diagnostics).Dump();
  return JobsToJson(PlanJobs(p.request), p.request).Dump();
}

}  // namespace llmmem::core
