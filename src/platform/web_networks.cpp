// Catalogue data the page fetches when first needed. The page embeds no layer-stack presets (11 KB of its first load, for a tab few open first):
// it fetches networks.json, written by scripts/bundle_networks.py beside it, when "Any network"
// or a link that names a network first needs them (app::PlatformHooks::need_networks).
// The EM_JS body below is JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_networks.h"

#include <emscripten/emscripten.h>

#include <string>

#include "core/catalogue/embedded.h"

namespace llmmem::core {
// The core's table of embedded presets, empty on the page (core::AddNetworkPresetBundle fills it).
extern const EmbeddedFile kEmbeddedNetworks[] = {{nullptr, nullptr, 0}};
}  // namespace llmmem::core

namespace {

void (*g_wake)() = nullptr;

// Answers through _llmmem_networks_arrived(text, size, failed): the bundle, or why it failed.
EM_JS(void, JsFetchNetworks, (), {
  function answer(text, failed) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_networks_arrived(p, n - 1, failed);
    _llmmem_free(p);
  }
  fetch("networks.json").then(function (r) {
    if (!r.ok) throw new Error("the server answered " + r.status);
    return r.text();
  }).then(function (t) { answer(t, 0); }, function (e) {
    answer("the network presets could not be fetched (" + (e && e.message || e) + ")", 1);
  });
});

// The GPU catalogue's citations (gpus.json, beside the page), which the page's embedded copy
// leaves out: answers through _llmmem_gpu_sources_arrived(text, size, failed).
EM_JS(void, JsFetchGpuSources, (), {
  function answer(text, failed) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_gpu_sources_arrived(p, n - 1, failed);
    _llmmem_free(p);
  }
  fetch("gpus.json").then(function (r) {
    if (!r.ok) throw new Error("the server answered " + r.status);
    return r.text();
  }).then(function (t) { answer(t, 0); }, function (e) {
    answer("the GPU sources could not be fetched (" + (e && e.message || e) + ")", 1);
  });
});

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_gpu_sources_arrived(const char* text, int size, int failed) {
  const std::string s(text, size > 0 ? static_cast<size_t>(size) : 0);
  llmmem::app::GpuSourcesArrived(failed ? std::string() : s, failed ? s : std::string());
  if (g_wake) g_wake();
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_networks_arrived(const char* text, int size, int failed) {
  const std::string s(text, size > 0 ? static_cast<size_t>(size) : 0);
  llmmem::app::NetworksArrived(failed ? std::string() : s, failed ? s : std::string());
  if (g_wake) g_wake();
}

namespace llmmem::platform::webnetworks {

void Install(app::PlatformHooks* hooks, void (*wake)()) {
  g_wake = wake;
  hooks->need_networks = [] { JsFetchNetworks(); };
  hooks->need_gpu_sources = [] { JsFetchGpuSources(); };
}

}  // namespace llmmem::platform::webnetworks
