// Reading the Hub API's JSON and choosing files; see hub_api.h for the field sources.
#include "core/hub/hub_api.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/parse/json.h"
#include "core/hub/hub_ref.h"
#include "core/base/safe_text.h"

namespace llmmem::core {
namespace {

std::string Str(const Json& j, const char* key) {
  const Json* v = j.Find(key);
  return v != nullptr && v->IsString() ? v->AsString() : std::string();
}

// A whole, non-negative number below 2^53, else -1 (the API's counts and sizes).
int64_t Count(const Json* v) {
  if (v == nullptr || !v->IsNumber()) return -1;
  const double d = v->AsNumber();
  if (!std::isfinite(d) || d < 0 || d > 9e15 || d != std::floor(d)) return -1;
  return static_cast<int64_t>(d);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

HubModelInfo ReadInfoObject(const Json& j) {
  HubModelInfo info;
  info.id = Str(j, "id");
  info.sha = Str(j, "sha");
  if (const Json* g = j.Find("gated"); g != nullptr && g->IsString()) info.gated = g->AsString();
  info.library_name = Str(j, "library_name");
  info.downloads = Count(j.Find("downloads"));
  if (const Json* c = j.Find("config"); c != nullptr && c->IsObject()) info.model_type = Str(*c, "model_type");
  if (const Json* st = j.Find("safetensors"); st != nullptr && st->IsObject()) {
    if (const Json* p = st->Find("parameters"); p != nullptr && p->IsObject()) {
      for (const auto& [dtype, n] : p->AsObject()) {
        if (Count(&n) >= 0) info.safetensors_parameters.emplace_back(dtype, Count(&n));
      }
    }
    info.safetensors_total = Count(st->Find("total"));
  }
  if (const Json* g = j.Find("gguf"); g != nullptr && g->IsObject()) {
    info.gguf_total = Count(g->Find("total"));
    info.gguf_architecture = Str(*g, "architecture");
  }
  if (const Json* s = j.Find("siblings"); s != nullptr && s->IsArray()) {
    for (const Json& f : s->AsArray()) {
      if (!f.IsObject() || Str(f, "rfilename").empty()) continue;
      HubFile file{Str(f, "rfilename"), Count(f.Find("size"))};
      // An LFS file's "size" is its real size too; "lfs.size" says so when "size" is absent.
      if (file.size < 0) {
        if (const Json* lfs = f.Find("lfs"); lfs != nullptr && lfs->IsObject()) file.size = Count(lfs->Find("size"));
      }
      info.files.push_back(std::move(file));
    }
  }
  return info;
}

}  // namespace

HubInfoParse ReadHubModelInfo(const std::string& text) {
  HubInfoParse r;
  const JsonParseResult j = ParseJson(text);
  if (!j.ok) {
    r.error = "the Hub's answer is not valid JSON (" + j.error + ")";
    return r;
  }
  if (!j.value.IsObject()) {
    r.error = "the Hub's answer is not a JSON object";
    return r;
  }
  if (const Json* e = j.value.Find("error"); e != nullptr && e->IsString()) {
    r.error = "the Hub said: " + EchoValue(e->AsString(), 300);
    return r;
  }
  r.info = ReadInfoObject(j.value);
  r.ok = true;
  return r;
}

HubSearchParse ReadHubSearch(const std::string& text) {
  HubSearchParse r;
  const JsonParseResult j = ParseJson(text);
  if (!j.ok || !j.value.IsArray()) {
    r.error = j.ok ? "the Hub's search answer is not a JSON array"
                   : "the Hub's search answer is not valid JSON (" + j.error + ")";
    return r;
  }
  for (const Json& m : j.value.AsArray()) {
    if (!m.IsObject()) continue;
    const HubModelInfo info = ReadInfoObject(m);
    if (info.id.empty()) continue;
    r.hits.push_back({info.id, info.downloads, info.safetensors_total >= 0 ? info.safetensors_total : info.gguf_total});
  }
  r.ok = true;
  return r;
}

HubFilePlan PlanHubFiles(const std::vector<HubFile>& files, const std::string& chosen_gguf) {
  HubFilePlan plan;
  std::vector<const HubFile*> root_safetensors;
  std::string refused;  // names that are not paths inside the repo are never used (issue 28)
  size_t refused_count = 0;
  for (const HubFile& f : files) {
    if (const std::string why = HubPathProblem(f.name); !why.empty()) {
      if (refused_count++ == 0) refused = why;
      continue;
    }
    if (f.name == "config.json") plan.has_config = true;
    if (f.name == "model.safetensors.index.json") plan.weights_file = f.name;
    if (EndsWith(f.name, ".safetensors") && f.name.find('/') == std::string::npos) root_safetensors.push_back(&f);
    if (EndsWith(Upper(f.name), ".GGUF")) plan.gguf_files.push_back(f);
  }
  std::sort(plan.gguf_files.begin(), plan.gguf_files.end(),
            [](const HubFile& a, const HubFile& b) { return a.name < b.name; });
  if (refused_count > 0) {
    plan.note = std::to_string(refused_count) + " file name" + (refused_count > 1 ? "s" : "") +
                " of the listing skipped, e.g. " + refused;
  }
  if (!plan.weights_file.empty()) {
    plan.kind = HubWeightKind::kSafetensorsIndex;
    return plan;
  }
  if (root_safetensors.size() == 1) {
    plan.kind = HubWeightKind::kSafetensors;
    plan.weights_file = root_safetensors[0]->name;
    return plan;
  }
  for (const HubFile* f : root_safetensors) {
    if (f->name == "model.safetensors") {
      plan.kind = HubWeightKind::kSafetensors;
      plan.weights_file = f->name;
      return plan;
    }
  }
  auto add_note = [&](const std::string& n) { plan.note = plan.note.empty() ? n : plan.note + "; " + n; };
  if (!root_safetensors.empty()) {
    add_note(std::to_string(root_safetensors.size()) +
                " .safetensors files and no model.safetensors.index.json: which is the model is not clear");
  }
  if (plan.gguf_files.empty()) {
    if (root_safetensors.empty()) add_note("the repo has no .safetensors or .gguf files (only those are read)");
    return plan;
  }
  plan.kind = HubWeightKind::kGguf;
  const HubFile* pick = nullptr;
  for (const HubFile& f : plan.gguf_files) {
    if (!chosen_gguf.empty() && f.name == chosen_gguf) pick = &f;
  }
  if (!chosen_gguf.empty() && pick == nullptr) {
    add_note("\"" + EchoValue(chosen_gguf, 200) + "\" is not one of the repo's GGUF files");
  }
  if (pick == nullptr) {
    for (const HubFile& f : plan.gguf_files) {
      if (Upper(f.name).find("Q4_K_M") != std::string::npos) {
        pick = &f;
        break;
      }
    }
  }
  if (pick == nullptr) {
    for (const HubFile& f : plan.gguf_files) {
      if (pick == nullptr || (f.size >= 0 && (pick->size < 0 || f.size < pick->size))) pick = &f;
    }
  }
  plan.weights_file = pick->name;
  // "name-00002-of-00003.gguf": the parts share the prefix and the count.
  const std::string& n = pick->name;
  const size_t of = n.size() >= 20 ? n.size() - 20 : std::string::npos;  // "-00001-of-00003.gguf"
  if (of != std::string::npos && n.compare(of + 6, 4, "-of-") == 0 && n[of] == '-') {
    const std::string prefix = n.substr(0, of);
    const std::string tail = n.substr(of + 6);  // "-of-00003.gguf"
    for (const HubFile& f : plan.gguf_files) {
      if (f.name.size() == n.size() && f.name.compare(0, prefix.size(), prefix) == 0 &&
          f.name.compare(of + 6, std::string::npos, tail) == 0)
        plan.gguf_parts.push_back(f.name);
    }
    const int64_t count = std::atoll(tail.c_str() + 4);
    if (static_cast<int64_t>(plan.gguf_parts.size()) != count) {
      add_note("the GGUF file is split in " + std::to_string(count) + " parts and the repo lists " +
               std::to_string(plan.gguf_parts.size()));
      plan.gguf_parts.clear();
    }
  }
  return plan;
}

std::string HubErrorMessage(const HubFailure& f, const std::string& repo_id, const std::string& what) {
  const std::string id = EchoValue(repo_id, 200);
  const std::string head = id + " (" + what + "): ";
  const std::string http = "(HTTP " + std::to_string(f.status) + ")";
  const std::string said = f.error_message.empty() ? "" : "; the Hub said: \"" + EchoValue(f.error_message, 300) + "\"";
  const std::string get_token =
      "give an access token with read access (HF_TOKEN, or the token field; huggingface.co/settings/tokens)";
  const std::string& code = f.error_code;
  if (f.status == 0)
    return head + "no answer from the Hub (" + (f.transport.empty() ? std::string("offline?") : f.transport) +
           "); check the connection, or pick a mirror (HF_ENDPOINT)";
  if (code == "GatedRepo") {
    if (f.token_sent)
      return head + "the repo is gated and the token's account has not been granted access " + http +
             ": ask for access at https://huggingface.co/" + id + " while logged in as that account, and wait until it is "
             "granted" + said;
    return head + "the repo is gated " + http + ": accept its terms at https://huggingface.co/" + id +
           " while logged in, then " + get_token;
  }
  if (code == "RevisionNotFound")
    return head + "the revision is not in the repo " + http + ": check the branch, tag or commit after @" + said;
  if (code == "EntryNotFound")
    return head + "the file is not in the repo at this revision " + http + said;
  if (code == "RepoNotFound" || (f.status == 401 && !f.token_sent)) {
    if (f.token_sent)
      return head + "no such repo, or the token given has no access to it " + http +
             ": check the id; a private repo needs a token of an account that can read it";
    return head + "no such repo, or it is private " + http + ": check the id; for a private or gated repo, " + get_token;
  }
  if (f.status == 401)
    return head + "the Hub refused the access token " + http + said +
           ": it is wrong, expired or revoked; make a new one at huggingface.co/settings/tokens";
  if (f.status == 403)
    return head + "forbidden " + http + said +
           ": the token has no permission for this repo (a fine-grained token needs read access to it)";
  switch (f.status) {
    case 404:
      return head + "not found (HTTP 404): check the id and the revision" + said;
    case 416:
      return head + "the server refused the byte range (HTTP 416): the file is shorter than its header says";
    case 429:
      return head + "the Hub is rate-limiting requests (HTTP 429): wait a minute, give a token, or pick a mirror";
    default:
      break;
  }
  if (f.status >= 500)
    return head + "the Hub failed " + http + "; try again later or pick a mirror" + said;
  return head + "unexpected HTTP status " + std::to_string(f.status) + said;
}

std::string HubErrorMessage(int status, const std::string& repo_id, const std::string& what,
                            const std::string& transport) {
  HubFailure f;
  f.status = status;
  f.transport = transport;
  return HubErrorMessage(f, repo_id, what);
}

}  // namespace llmmem::core
