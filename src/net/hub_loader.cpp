// The Hub loader: cache first, then bounded requests; see hub_loader.h.
#include "net/hub_loader.h"

#include <chrono>
#include <cstdlib>

#include "core/hub/hub_budget.h"
#include "core/parse/json.h"
#include "io/bounded_file.h"
#include "net/hub_cache.h"
#include "net/hub_http.h"

namespace llmmem::net {
namespace {

constexpr uint64_t kApiMaxBytes = 16u << 20;    // a model_info answer with thousands of siblings
constexpr uint64_t kRangeChunkMax = 16u << 20;  // one Range request of a header

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One request under the load's budget (core/hub/hub_budget.h): refused once it is spent;
// its byte cap and its timeout are what is left of the budget's bytes and wall time, so
// the last request cannot overrun them.
HttpResponse BudgetedGet(HttpRequest q, core::HubBudget& budget, bool* over_budget) {
  *over_budget = false;
  const int64_t start = NowMs();
  if (!budget.Request(start)) {
    *over_budget = true;
    return HttpResponse{};
  }
  const uint64_t bytes_left = budget.limits().max_bytes - budget.bytes();
  const bool bytes_bound = bytes_left < q.max_bytes;
  if (bytes_bound) q.max_bytes = bytes_left;
  const int64_t wall_left = budget.limits().max_wall_ms - (start - budget.start_ms());
  const bool wall_bound = budget.limits().max_wall_ms > 0 && wall_left < q.timeout_ms;
  if (wall_bound) q.timeout_ms = static_cast<long>(std::max<int64_t>(wall_left, 1));
  HttpResponse r = HttpGet(q);
  budget.Bytes(r.body.size());
  // A cap or a timeout that came from the budget is the budget's sentence, not the request's.
  if (r.capped && bytes_bound) budget.Bytes(1);
  if (!r.answered && wall_bound) budget.Time(NowMs());
  *over_budget = !budget.ok();
  return r;
}

core::HubFailure Failure(const HttpResponse& r, const HttpRequest& q) {
  core::HubFailure f;
  f.status = r.answered ? r.status : 0;
  f.transport = r.error;
  f.error_code = r.error_code;
  f.error_message = r.error_message;
  f.token_sent = !q.token.empty();
  return f;
}

// Every name from the Hub is a path inside the repo before it is a URL or a file path.
bool CheckNames(const std::vector<std::string>& names, const char* what, std::string* error) {
  for (const std::string& n : names) {
    if (const std::string why = core::HubPathProblem(n); !why.empty()) {
      *error = std::string(what) + " " + why + "; refused";
      return false;
    }
  }
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

struct Got {
  bool ok = false;
  std::string bytes;
  uint64_t file_size = 0;
  std::string error;
};

// Where the files come from: a cached snapshot folder, or the endpoint's resolve/ URLs.
class Source {
 public:
  Source(const core::HubRef& ref, const HubLoadOptions& o, std::string snapshot_dir, core::HubBudget* budget)
      : ref_(ref), o_(o), dir_(std::move(snapshot_dir)), budget_(budget) {}

  std::string Describe(const std::string& file) const {
    return dir_.empty() ? core::HubFileUrl(o_.endpoint, ref_, file) : "cache: " + dir_ + "/" + file;
  }

  Got Whole(const std::string& file, uint64_t cap) const {
    Got g;
    if (!dir_.empty()) {
      io::ReadResult r = io::ReadWholeFile(dir_ + "/" + file, cap, file);
      g.ok = r.ok;
      g.bytes = std::move(r.bytes);
      g.file_size = g.bytes.size();
      g.error = r.ok ? "" : file + " in the cache: " + r.error;
      return g;
    }
    return Http(file, -1, -1, cap);
  }

  Got Range(const std::string& file, uint64_t offset, uint64_t n) const {
    Got g;
    if (!dir_.empty()) {
      io::RegularFile f;
      std::string error;
      g.ok = f.Open(dir_ + "/" + file, &error) && f.ReadAt(offset, n, &g.bytes, &error);
      g.file_size = f.size();
      g.error = g.ok ? "" : file + " in the cache: " + error;
      return g;
    }
    return Http(file, static_cast<int64_t>(offset), static_cast<int64_t>(offset + n - 1), n);
  }

 private:
  Got Http(const std::string& file, int64_t begin, int64_t end, uint64_t cap) const {
    Got g;
    HttpRequest q;
    q.url = core::HubFileUrl(o_.endpoint, ref_, file);
    q.token = o_.token;
    q.range_begin = begin;
    q.range_end = end;
    q.max_bytes = cap;
    q.timeout_ms = o_.timeout_ms;
    bool over = false;
    HttpResponse r = BudgetedGet(q, *budget_, &over);
    if (over) {
      g.error = ref_.repo_id + ": " + budget_->error();
      return g;
    }
    if (!r.answered || (r.status != 200 && r.status != 206)) {
      g.error = core::HubErrorMessage(Failure(r, q), ref_.repo_id, file);
      return g;
    }
    if (r.capped) {
      g.error = file + " of " + ref_.repo_id + " is larger than the " + std::to_string(cap) + " bytes read for it" +
                (begin >= 0 ? " (the server ignored the byte range)" : "");
      return g;
    }
    // A server that ignores Range answers 200 with the whole (small) file: take the slice.
    if (begin >= 0 && r.status == 200) {
      g.file_size = r.body.size();
      g.bytes = static_cast<uint64_t>(begin) < r.body.size() ? r.body.substr(begin, end - begin + 1) : "";
    } else {
      g.file_size = r.total_size;
      g.bytes = std::move(r.body);
    }
    g.ok = true;
    return g;
  }

  core::HubRef ref_;
  const HubLoadOptions& o_;
  std::string dir_;
  core::HubBudget* budget_;
};

// One weight file's header: the first 8 bytes (its size from Content-Range), then what the
// incremental reader asks for. The reader refuses a safetensors header over 100 MB
// (core::kSafetensorsMaxHeaderBytes) from those 8 bytes, before anything more is fetched.
core::WeightHeaderResult ReadHeader(const Source& src, const std::string& file) {
  core::WeightHeaderResult fail;
  fail.error = core::WeightIssue::kTruncated;
  Got first = src.Range(file, 0, 8);
  if (!first.ok) {
    fail.message = first.error;
    return fail;
  }
  // The format from the name (the plan chose the file by it), so the reader decides from
  // the 8 bytes alone instead of asking for more to sniff.
  auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return file.size() >= s.size() && file.compare(file.size() - s.size(), s.size(), s) == 0;
  };
  const core::WeightFormat format = ends(".safetensors")             ? core::WeightFormat::kSafetensors
                                    : ends(".gguf") || ends(".GGUF") ? core::WeightFormat::kGguf
                                                                     : core::WeightFormat::kUnknown;
  core::WeightHeaderReader reader(first.file_size, format);
  Got chunk = std::move(first);
  for (int i = 0; i < 4096; ++i) {
    if (chunk.bytes.empty()) {
      fail.message = file + " ends before its header does";
      return fail;
    }
    if (reader.Feed(reinterpret_cast<const uint8_t*>(chunk.bytes.data()), chunk.bytes.size()) !=
        core::WeightHeaderStatus::kNeedMoreBytes) {
      return reader.result();
    }
    const uint64_t n = std::min<uint64_t>(std::max<uint64_t>(reader.next_size(), 1), kRangeChunkMax);
    chunk = src.Range(file, reader.next_offset(), n);
    if (!chunk.ok) {
      fail.message = chunk.error;
      return fail;
    }
  }
  fail.message = file + ": the header did not end within 4096 reads";
  return fail;
}

// The plan's weights: one file, or the index and every shard it lists, each header added
// to the sum as it is read and then dropped.
// `refused`: a name or the budget stopped it (not worth trying the network after the cache).
core::WeightHeaderResult ReadWeights(const Source& src, const core::HubFilePlan& plan, core::HubBudget& budget,
                                     std::string* sources, bool* refused) {
  *sources = src.Describe(plan.weights_file);
  core::WeightHeaderResult fail;
  auto refuse = [&](const std::string& why) {
    *refused = true;
    fail.status = core::WeightHeaderStatus::kError;
    fail.message = why;
    return fail;
  };
  auto sum_of = [&](const std::vector<std::string>& files) {
    core::HubHeaderSum sum;
    for (const std::string& f : files) {
      core::WeightHeaderResult h = ReadHeader(src, f);
      if (!h.ok()) return h;
      if (!sum.Add(h)) return refuse(sum.error());
    }
    return sum.total();
  };
  if (plan.gguf_parts.size() > 1) {  // a split GGUF: every part's header, summed
    if (!budget.SplitParts(static_cast<int64_t>(plan.gguf_parts.size()))) return refuse(budget.error());
    if (!CheckNames(plan.gguf_parts, "a GGUF part's name", &fail.message)) return refuse(fail.message);
    core::WeightHeaderResult all = sum_of(plan.gguf_parts);
    *sources += " and its other " + std::to_string(plan.gguf_parts.size() - 1) + " parts";
    return all;
  }
  if (!CheckNames({plan.weights_file}, "the weights file's name", &fail.message)) return refuse(fail.message);
  if (plan.kind != core::HubWeightKind::kSafetensorsIndex) return ReadHeader(src, plan.weights_file);
  Got index = src.Whole(plan.weights_file, core::kWeightIndexMaxBytes);
  core::WeightHeaderResult r;
  if (!index.ok) {
    r.message = index.error;
    return r;
  }
  r = core::ParseWeightHeader(index.bytes, index.bytes.size());
  if (!r.ok()) return r;
  if (!budget.Shards(static_cast<int64_t>(r.index.shard_files.size()))) return refuse(budget.error());
  if (!CheckNames(r.index.shard_files, "the index names a shard that", &fail.message)) return refuse(fail.message);
  core::WeightHeaderResult all = sum_of(r.index.shard_files);
  if (!all.ok()) return all;
  *sources += " and the headers of its " + std::to_string(r.index.shard_files.size()) + " shards";
  all.index = r.index;
  return all;
}

// Whether the cached snapshot has every file the plan needs (the shards are checked when
// read: a missing one fails the cache read, and the network is tried).
bool Complete(const core::HubFilePlan& plan) { return plan.has_config || plan.kind != core::HubWeightKind::kNone; }

HubLoad Finish(const core::HubRef& ref, const Source& src, const core::HubFilePlan& plan,
               const core::HubModelInfo* info, const std::string& info_source, core::HubBudget& budget) {
  HubLoad out;
  out.gguf_files = plan.gguf_files;
  std::string config_text, weights_source;
  if (plan.has_config) {
    Got c = src.Whole("config.json", core::kJsonMaxBytes);
    if (!c.ok) {
      out.error = c.error;
      return out;
    }
    config_text = std::move(c.bytes);
  }
  if (plan.kind != core::HubWeightKind::kNone) {
    out.weights = ReadWeights(src, plan, budget, &weights_source, &out.refused);
    if (!out.weights.ok()) {
      out.error = "the weights header of " + ref.repo_id + " could not be read: " + out.weights.message;
      return out;
    }
  }
  core::HubModelInput in;
  in.name = core::HubRefToText(ref);
  in.config_text = plan.has_config ? &config_text : nullptr;
  in.config_source = src.Describe("config.json");
  in.weights = plan.kind != core::HubWeightKind::kNone ? &out.weights : nullptr;
  in.weights_source = weights_source;
  in.weights_file = plan.weights_file;
  in.info = info;
  in.info_source = info_source;
  out.build = core::BuildHubModel(in);
  if (!plan.note.empty()) out.build.provenance.push_back("files: " + plan.note);
  out.ok = out.build.ok;
  if (!out.ok) {
    for (const core::Diagnostic& d : out.build.diagnostics)
      if (d.severity == core::Severity::kError) out.error = d.message;
  }
  return out;
}

}  // namespace

HubLoadOptions HubOptionsFromEnv(std::vector<std::string>* notes) {
  HubLoadOptions o;
  std::string error;
  o.endpoint = core::HubEndpoint(Env("HF_ENDPOINT"), &error);
  if (!error.empty() && notes) notes->push_back(error);
  o.token = Env("HF_TOKEN");
  o.token_source = "HF_TOKEN";
  o.offline = core::HubOfflineValue(Env("HF_HUB_OFFLINE")) || core::HubOfflineValue(Env("TRANSFORMERS_OFFLINE"));
  o.cache_dir = HubCacheDir();
  const long seconds = std::atol(Env("HF_HUB_DOWNLOAD_TIMEOUT").c_str());
  if (seconds > 0 && seconds <= 3600) o.timeout_ms = seconds * 1000;
  return o;
}

HubLoad LoadHubModel(const core::HubRef& ref, const HubLoadOptions& o) {
  HubLoad out;
  // A token that would break its header is refused before anything (issue 28).
  if (const std::string why = core::HubTokenProblem(o.token, o.token_source); !why.empty()) {
    out.error = why;
    return out;
  }
  core::HubBudget budget(core::HubBudgetFor(o.timeout_ms), NowMs());
  // 1. The cache: a model already downloaded works offline, with no request at all.
  const CachedSnapshot snap = FindCachedSnapshot(o.cache_dir, ref);
  if (snap.found) {
    const core::HubFilePlan plan = core::PlanHubFiles(snap.files, o.gguf_file);
    if (Complete(plan)) {
      core::HubBudget local(budget.limits(), NowMs());
      HubLoad cached = Finish(ref, Source(ref, o, snap.dir, &local), plan, nullptr, "", local);
      cached.from_cache = true;
      if (cached.ok || o.offline || cached.refused) return cached;
    }
  }
  if (o.offline) {
    out.error =
        ref.repo_id + " is not in the Hugging Face cache (" + o.cache_dir + ") and HF_HUB_OFFLINE forbids the network";
    return out;
  }
  if (!HttpAvailable()) {
    out.error = HttpGet(HttpRequest{}).error;
    return out;
  }
  // 2. The Hub: the model's info (files with sizes, the Hub's own parameter totals).
  HttpRequest q;
  q.url = core::HubModelApiUrl(o.endpoint, ref);
  q.token = o.token;
  q.max_bytes = kApiMaxBytes;
  q.timeout_ms = o.timeout_ms;
  bool over = false;
  const HttpResponse r = BudgetedGet(q, budget, &over);
  if (over) {
    out.error = ref.repo_id + ": " + budget.error();
    return out;
  }
  if (!r.answered || r.status != 200) {
    out.error = core::HubErrorMessage(Failure(r, q), ref.repo_id, "model info");
    return out;
  }
  if (r.capped) {
    out.error = "the Hub's answer for " + ref.repo_id + " is larger than " + std::to_string(kApiMaxBytes) + " bytes";
    return out;
  }
  const core::HubInfoParse info = core::ReadHubModelInfo(r.body);
  if (!info.ok) {
    out.error = ref.repo_id + ": " + info.error;
    return out;
  }
  const core::HubFilePlan plan = core::PlanHubFiles(info.info.files, o.gguf_file);
  if (!Complete(plan)) {
    out.error = ref.repo_id + ": " + (plan.note.empty() ? "no config.json and no weight files" : plan.note);
    return out;
  }
  return Finish(ref, Source(ref, o, "", &budget), plan, &info.info, q.url, budget);
}

core::HubSearchParse SearchHub(const std::string& query, const HubLoadOptions& o, std::string* error) {
  core::HubSearchParse out;
  if (o.offline) {
    *error = "HF_HUB_OFFLINE forbids the network: search needs the Hub";
    return out;
  }
  if (const std::string why = core::HubTokenProblem(o.token, o.token_source); !why.empty()) {
    *error = why;
    return out;
  }
  HttpRequest q;
  q.url = core::HubSearchUrl(o.endpoint, query, 20);
  q.token = o.token;
  q.max_bytes = kApiMaxBytes;
  q.timeout_ms = o.timeout_ms;
  const HttpResponse r = HttpGet(q);
  if (!r.answered || r.status != 200 || r.capped) {
    *error = core::HubErrorMessage(Failure(r, q), query, "the search");
    return out;
  }
  out = core::ReadHubSearch(r.body);
  if (!out.ok) *error = out.error;
  return out;
}

}  // namespace llmmem::net
