// The "Any network" tab's state and logic, without ImGui: which network (a preset or a
// custom stack being edited), its input and workload, the estimate (recomputed only when
// the request changes), the URL keys (net_...), and the edits of a custom stack (insert,
// remove, move a layer within its list). The card (GPU memory, CUDA context, fragmentation)
// is the page's, from the LLM configuration's inputs.
// May include: core (no imgui).
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/parse/json.h"
#include "core/network/layer_stack_account.h"
#include "core/network/network_request.h"

namespace llmmem::app {

// Where a layer is: its index in the top list, then (branch, index) for each block it is in.
using LayerPath = std::vector<int>;

struct NetworkView {
  // What is asked (net_... in the URL; defaults are not written).
  std::string model = "resnet50";                  // a preset key; empty: the custom stack below
  core::NetworkSpec custom;                        // the custom stack (name, input, layers)
  int64_t image_h = 0, image_w = 0, channels = 0;  // 0: the network's own
  int64_t batch = 32;
  bool training = true;
  core::Dtype dtype = core::Dtype::kFp32;
  core::Optimizer optimizer = core::Optimizer::kSgdMomentum;
  core::TorchProfile profile = core::TorchProfile::kTorch2Cuda;
  core::AttentionKernel attention = core::AttentionKernel::kAuto;
  bool loss = true;

  // The answer, for the request last computed.
  std::string computed_key;  // request JSON + card, as text
  core::NetworkRequest request;
  core::NetworkEstimate estimate;
  std::vector<core::ProfileDifference> differences;
  std::vector<LayerPath> paths;  // per analysis row: where its layer is in the stack
  bool dirty = true;

  // The page fetches the presets on demand (PlatformHooks::need_networks): a link's net_ keys
  // wait here until they arrive, and the tab says they are on the way.
  std::string pending_query;
  bool presets_asked = false;
  std::string presets_error;

  // UI scratch (not in the URL).
  std::string paste;  // print(model) or a network JSON being pasted
  core::Diagnostics paste_notes;
  int selected = -1;  // row being edited (custom stacks)
};

// The request this view asks (model or network, input, workload; the card from `card`).
core::Json NetworkRequestJson(const NetworkView& v, const core::Config& card);
// Recomputes when the request or the card changed; true when it did.
bool RefreshNetwork(NetworkView& v, const core::Config& card);

// URL: the net_ keys that differ from the defaults; reading them back.
std::string NetworkViewQuery(const NetworkView& v);
// Takes the net_ pairs out of `query` (returns the rest); diagnostics for values not used.
std::string TakeNetworkKeys(NetworkView& v, const std::string& query, core::Diagnostics* notes);

// Makes the shown network the custom stack (a copy of the preset), so it can be edited.
void StartCustom(NetworkView& v);
// Uses pasted print(model) or network JSON as the custom stack; false (and notes) when not.
bool UsePasted(NetworkView& v);

// Edits of the custom stack. Each returns false (and changes nothing) for a path that does
// not name a layer or a move past the ends of its list.
bool MoveLayer(core::NetworkSpec& spec, const LayerPath& path, int delta);
bool RemoveLayer(core::NetworkSpec& spec, const LayerPath& path);
bool InsertLayerAfter(core::NetworkSpec& spec, const LayerPath& path, const core::Layer& layer);
// At the start of one branch of the block at `block`.
bool InsertLayerInBranch(core::NetworkSpec& spec, const LayerPath& block, int branch, const core::Layer& layer);
core::Layer* LayerAt(core::NetworkSpec& spec, const LayerPath& path);
// Paths of every layer and block in forward order (the order of the analysis rows).
std::vector<LayerPath> LayerPaths(const core::NetworkSpec& spec);
// A new layer of a kind with usable defaults (a 3x3 convolution to 64 channels, ...).
core::Layer DefaultLayer(core::LayerKind kind);

}  // namespace llmmem::app
