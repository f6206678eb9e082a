// The layer-stack JSON format (CLI --network FILE, the URL, the JS API, presets/networks/)
// and the vision presets embedded from presets/networks/*.json.
//
//   {"name": "tiny", "input": [3, 32, 32], "layers": [
//     {"type": "conv2d", "out": 16, "kernel": 3, "padding": 1, "bias": false},
//     {"type": "batchnorm"}, {"type": "relu", "inplace": true},
//     {"type": "add", "branches": [[{"type": "conv2d", "out": 16, "kernel": 3, "padding": 1}], []]},
//     {"type": "adaptive_avgpool2d", "size": 1}, {"type": "flatten"}, {"type": "linear", "out": 10}]}
//
// Keys of a layer: type (LayerKindIdList), name, in, out, vocab, kernel, stride, padding
// (a number, [h, w], "same" or "valid"), dilation, output_padding, groups, heads, window,
// shift, size, scale, match ("input" | "block"), mode, dims, start_dim, end_dim, dim, p,
// bias, affine, inplace, ceil_mode, trainable, approximate, branches (blocks: a list of
// layer lists, [] the block input itself). "in" is optional everywhere (taken from the
// shape and checked when given). Unknown keys are warnings; wrong types and ranges errors.
#pragma once

#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/network/layer_stack.h"

namespace llmmem::core {

struct NetworkParse {
  bool ok = false;
  NetworkSpec spec;
  Diagnostics diagnostics;
};

// The JSON depth a network description needs: each nested block is three levels (the block's
// object, its "branches" list, one branch's list), kMaxNetworkDepth of them, plus the request,
// the network, its layer list and a layer's own lists. Every reader of a network's JSON (the
// CLI's --network, the JS API's request, the URL) parses with these limits, so the documented
// block depth holds and only past it does the network's own message say why.
constexpr int kNetworkJsonMaxDepth = 3 * kMaxNetworkDepth + 16;
JsonLimits NetworkJsonLimits(const char* what = "a network description");

NetworkParse ParseNetworkJson(const std::string& text);
NetworkParse NetworkFromJson(const Json& j);
// Only what differs from the defaults; ParseNetworkJson(NetworkToJson(s).Dump()) gives s back.
Json NetworkToJson(const NetworkSpec& spec);
const char* NetworkTaskId(NetworkTask t);

struct NetworkPreset {
  std::string key;  // file name without .json: "resnet50" (torchvision's name)
  bool ok = false;
  NetworkSpec spec;
  Diagnostics diagnostics;
};

// All presets, in family order, then by size, then by key; parsed once. Empty on the page
// until AddNetworkPresetBundle: the page fetches them when "Any network" first needs them
// (11 KB off its first load), every other build embeds them.
const std::vector<NetworkPreset>& NetworkPresets();
// Adds the presets of a bundle {"files": [{"name": "resnet50.json", "text": "..."}]} when there
// are none yet (scripts/bundle_networks.py writes it); "" or why the bundle was not taken.
std::string AddNetworkPresetBundle(const std::string& text);
// nullptr when unknown; case-insensitive; "-" and "_" are the same ("resnet-50" finds resnet50).
const NetworkPreset* FindNetworkPreset(const std::string& key);

}  // namespace llmmem::core
