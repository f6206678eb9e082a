// The desktop's Hub loader; see desktop_hub.h.
#include "platform/desktop_hub.h"

#include <mutex>
#include <thread>
#include <vector>

#include "core/hub/hub_ref.h"
#include "net/hub_loader.h"

namespace llmmem::platform::desktophub {
namespace {

std::mutex g_mutex;
std::vector<app::HubResult> g_loads;
std::vector<app::HubHits> g_searches;
void (*g_wake)() = nullptr;

net::HubLoadOptions Options(const std::string& endpoint, const std::string& token) {
  net::HubLoadOptions o = net::HubOptionsFromEnv(nullptr);
  // The box's endpoint choice; HF_ENDPOINT set in the environment wins over the default.
  if (endpoint != core::kHubDefaultEndpoint || o.endpoint == core::kHubDefaultEndpoint) o.endpoint = endpoint;
  if (!token.empty()) {
    o.token = token;
    o.token_source = "the access token field";
  }
  return o;
}

app::HubResult Load(const app::HubRequest& q) {
  app::HubResult r;
  r.seq = q.seq;
  net::HubLoadOptions o = Options(q.endpoint, q.token);
  const core::HubRefParse ref = core::ParseHubRef(q.ref, o.endpoint);
  if (!ref.ok) {
    r.error = ref.error;
    return r;
  }
  o.gguf_file = !q.gguf_file.empty() ? q.gguf_file : ref.ref.file;
  const net::HubLoad load = net::LoadHubModel(ref.ref, o);
  r.ref = core::HubRefToText(ref.ref);
  r.gguf_files = load.gguf_files;
  if (!load.ok) {
    r.error = load.error;
    return r;
  }
  r.ok = true;
  r.model = load.build.model;
  r.dtype_known = load.build.dtype_known;
  r.dtype = load.build.dtype;
  r.approximate = load.build.approximate;
  r.provenance.push_back(load.from_cache ? "read from the local Hugging Face cache, no request made"
                                         : "read from " + o.endpoint);
  for (const std::string& line : load.build.provenance) r.provenance.push_back(line);
  for (const core::Diagnostic& d : load.build.diagnostics) r.provenance.push_back(d.message);
  if (!load.gguf_files.empty())
    r.gguf_file = o.gguf_file.empty() ? core::PlanHubFiles(load.gguf_files).weights_file : o.gguf_file;
  return r;
}

}  // namespace

void Install(app::PlatformHooks* hooks, void (*wake)()) {
  g_wake = wake;
  hooks->hub_load = [](const app::HubRequest& q) {
    std::thread([q] {
      app::HubResult r = Load(q);
      std::lock_guard<std::mutex> lock(g_mutex);
      g_loads.push_back(std::move(r));
      if (g_wake) g_wake();
    }).detach();
  };
  hooks->hub_search = [](int64_t seq, const std::string& query, const std::string& endpoint, const std::string& token) {
    std::thread([=] {
      app::HubHits h;
      h.seq = seq;
      std::string error;
      const core::HubSearchParse p = net::SearchHub(query, Options(endpoint, token), &error);
      h.ok = error.empty() && p.ok;
      h.error = error;
      h.hits = p.hits;
      std::lock_guard<std::mutex> lock(g_mutex);
      g_searches.push_back(std::move(h));
      if (g_wake) g_wake();
    }).detach();
  };
}

void Poll() {
  std::vector<app::HubResult> loads;
  std::vector<app::HubHits> searches;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    loads.swap(g_loads);
    searches.swap(g_searches);
  }
  for (const app::HubResult& r : loads) app::HubLoaded(r);
  for (const app::HubHits& h : searches) app::HubSearched(h);
}

}  // namespace llmmem::platform::desktophub
