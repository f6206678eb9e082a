// The "Any network" tab's logic (no ImGui): request, refresh, URL keys, stack edits.
#include "app/network_view.h"

#include "app/i18n.h"
#include "core/network/network_json.h"
#include "core/parse/text.h"
#include "core/network/torch_repr.h"

namespace llmmem::app {
namespace {

const NetworkView kDefaults;

// The list that holds the layer named by path ([index, branch, index, branch, ..., index]),
// and the layer's index in it.
std::vector<core::Layer>* Parent(core::NetworkSpec& spec, const LayerPath& path, int* index) {
  if (path.empty() || path.size() % 2 == 0) return nullptr;
  std::vector<core::Layer>* list = &spec.layers;
  for (size_t i = 0; i + 1 < path.size(); i += 2) {
    const int idx = path[i], br = path[i + 1];
    if (idx < 0 || idx >= static_cast<int>(list->size())) return nullptr;
    core::Layer& l = (*list)[static_cast<size_t>(idx)];
    if (br < 0 || br >= static_cast<int>(l.branches.size())) return nullptr;
    list = &l.branches[static_cast<size_t>(br)];
  }
  *index = path.back();
  if (*index < 0 || *index >= static_cast<int>(list->size())) return nullptr;
  return list;
}

void Paths(const std::vector<core::Layer>& layers, LayerPath prefix, std::vector<LayerPath>& out) {
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerPath p = prefix;
    p.push_back(static_cast<int>(i));
    out.push_back(p);
    for (size_t b = 0; b < layers[i].branches.size(); ++b) {
      LayerPath q = p;
      q.push_back(static_cast<int>(b));
      Paths(layers[i].branches[b], q, out);
    }
  }
}

}  // namespace

core::Json NetworkRequestJson(const NetworkView& v, const core::Config& card) {
  core::Json j(core::Json::Object{});
  if (!v.model.empty()) {
    j["model"] = v.model;
  } else {
    j["network"] = core::NetworkToJson(v.custom);
  }
  if (v.image_h > 0) {
    j["image_size"] = std::to_string(v.image_h) + "x" + std::to_string(v.image_w > 0 ? v.image_w : v.image_h);
  }
  if (v.channels > 0) j["channels"] = v.channels;
  j["batch"] = v.batch;
  j["mode"] = v.training ? "train" : "infer";
  j["dtype"] = core::Info(v.dtype).id;
  j["optimizer"] = core::Id(v.optimizer);
  j["profile"] = core::Id(v.profile);
  j["attention"] = core::Id(v.attention);
  j["loss"] = v.loss;
  j["gpu_memory_gb"] = card.gpu_memory_gb;
  j["cuda_context_gb"] = card.cuda_context_gb;
  j["fragmentation_pct"] = card.fragmentation_pct;
  return j;
}

bool RefreshNetwork(NetworkView& v, const core::Config& card) {
  const core::Json req = NetworkRequestJson(v, card);
  std::string key = req.Dump();
  if (!v.dirty && key == v.computed_key) return false;
  v.dirty = false;
  v.computed_key = std::move(key);
  v.request = core::NetworkRequestFromJson(req);
  v.estimate = core::NetworkEstimate{};
  v.differences.clear();
  v.paths.clear();
  if (v.request.ok) {
    v.estimate = core::EstimateNetwork(v.request.spec, v.request.input);
    if (v.estimate.ok && v.request.input.settings.training)
      v.differences = core::ProfileDifferences(v.request.spec, v.request.input.settings);
    v.paths = LayerPaths(v.request.spec);
  }
  return true;
}

std::string NetworkViewQuery(const NetworkView& v) {
  core::Json j(core::Json::Object{});
  if (v.model.empty())
    j["network"] = core::NetworkToJson(v.custom);
  else if (v.model != kDefaults.model)
    j["model"] = v.model;
  if (v.image_h > 0)
    j["image_size"] = std::to_string(v.image_h) + "x" + std::to_string(v.image_w > 0 ? v.image_w : v.image_h);
  if (v.channels > 0) j["channels"] = v.channels;
  if (v.batch != kDefaults.batch) j["batch"] = v.batch;
  if (!v.training) j["mode"] = "infer";
  if (v.dtype != kDefaults.dtype) j["dtype"] = core::Info(v.dtype).id;
  if (v.optimizer != kDefaults.optimizer) j["optimizer"] = core::Id(v.optimizer);
  if (v.profile != kDefaults.profile) j["profile"] = core::Id(v.profile);
  if (v.attention != kDefaults.attention) j["attention"] = core::Id(v.attention);
  if (!v.loss) j["loss"] = false;
  return core::NetworkRequestToQuery(j);
}

std::string TakeNetworkKeys(NetworkView& v, const std::string& query, core::Diagnostics* notes) {
  std::string rest;
  const core::Json j = core::NetworkRequestFromQuery(query, &rest);
  if (j.AsObject().empty()) return rest;
  // Validate through the request (one place for every rule), then copy what it read.
  core::Json probe = j;
  if (!probe.Find("model") && !probe.Find("network")) probe["model"] = v.model;
  const core::NetworkRequest r = core::NetworkRequestFromJson(probe);
  if (!r.ok) {
    if (notes) notes->insert(notes->end(), r.diagnostics.begin(), r.diagnostics.end());
    return rest;
  }
  if (j.Find("network")) {
    v.model.clear();
    v.custom = r.spec;
  } else if (j.Find("model")) {
    v.model = r.spec.key;
  }
  const core::NetworkEstimateInput& in = r.input;
  if (j.Find("image_size") && r.spec.input.size() == 3) {
    v.image_h = r.spec.input[1];
    v.image_w = r.spec.input[2];
  }
  if (j.Find("channels") && r.spec.input.size() == 3) v.channels = r.spec.input[0];
  v.batch = in.batch;
  v.training = in.settings.training;
  v.dtype = in.settings.dtype;
  v.optimizer = in.optimizer;
  v.profile = in.settings.profile;
  v.attention = in.settings.attention;
  v.loss = in.settings.loss;
  v.dirty = true;
  return rest;
}

void StartCustom(NetworkView& v) {
  if (v.model.empty()) return;
  if (const core::NetworkPreset* p = core::FindNetworkPreset(v.model)) {
    v.custom = p->spec;
    v.custom.name = p->spec.name + " (edited)";
    v.custom.key.clear();
    v.custom.published_params = 0;  // an edited stack no longer claims the preset's count
    if (v.image_h > 0 && v.custom.input.size() == 3) {
      v.custom.input[1] = v.image_h;
      v.custom.input[2] = v.image_w > 0 ? v.image_w : v.image_h;
    }
  }
  v.model.clear();
  v.dirty = true;
}

bool UsePasted(NetworkView& v) {
  v.paste_notes.clear();
  std::string text = v.paste;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    v.paste_notes.push_back({core::DiagId::kMissingField, core::Severity::kError, "paste",
                             Tr("paste what print(model) shows, or a network JSON")});
    return false;
  }
  core::NetworkSpec spec;
  if (text[first] == '{') {
    core::NetworkParse p = core::ParseNetworkJson(text);
    v.paste_notes = p.diagnostics;
    if (!p.ok) return false;
    spec = std::move(p.spec);
  } else {
    core::TorchReprParse p = core::ParseTorchRepr(text);
    v.paste_notes = p.diagnostics;
    if (!p.ok) return false;
    spec = std::move(p.spec);
  }
  if (spec.input.empty()) {
    // The repr does not say its input: keep the one shown, channels from the first conv.
    const core::NetworkSpec* shown = v.model.empty() ? &v.custom : nullptr;
    const core::NetworkPreset* preset = v.model.empty() ? nullptr : core::FindNetworkPreset(v.model);
    spec.input = shown ? shown->input : preset ? preset->spec.input : std::vector<int64_t>{3, 224, 224};
    if (spec.input.size() == 3 && !spec.layers.empty() && spec.layers.front().kind == core::LayerKind::kConv2d &&
        spec.layers.front().in > 0)
      spec.input[0] = spec.layers.front().in;
  }
  v.custom = std::move(spec);
  v.model.clear();
  v.image_h = v.image_w = v.channels = 0;
  v.selected = -1;
  v.dirty = true;
  return true;
}

core::Layer* LayerAt(core::NetworkSpec& spec, const LayerPath& path) {
  int i = 0;
  std::vector<core::Layer>* list = Parent(spec, path, &i);
  return list ? &(*list)[static_cast<size_t>(i)] : nullptr;
}

bool MoveLayer(core::NetworkSpec& spec, const LayerPath& path, int delta) {
  int i = 0;
  std::vector<core::Layer>* list = Parent(spec, path, &i);
  const int j = i + delta;
  if (list == nullptr || j < 0 || j >= static_cast<int>(list->size())) return false;
  std::swap((*list)[static_cast<size_t>(i)], (*list)[static_cast<size_t>(j)]);
  return true;
}

bool RemoveLayer(core::NetworkSpec& spec, const LayerPath& path) {
  int i = 0;
  std::vector<core::Layer>* list = Parent(spec, path, &i);
  if (list == nullptr) return false;
  list->erase(list->begin() + i);
  return true;
}

bool InsertLayerAfter(core::NetworkSpec& spec, const LayerPath& path, const core::Layer& layer) {
  if (core::CountLayers(spec.layers) + core::CountLayers({layer}) > core::kMaxNetworkLayers) return false;
  if (path.empty()) {
    spec.layers.push_back(layer);
    return true;
  }
  int i = 0;
  std::vector<core::Layer>* list = Parent(spec, path, &i);
  if (list == nullptr) return false;
  list->insert(list->begin() + i + 1, layer);
  return true;
}

bool InsertLayerInBranch(core::NetworkSpec& spec, const LayerPath& block, int branch, const core::Layer& layer) {
  if (core::CountLayers(spec.layers) + core::CountLayers({layer}) > core::kMaxNetworkLayers) return false;
  core::Layer* b = LayerAt(spec, block);
  if (b == nullptr || branch < 0 || branch >= static_cast<int>(b->branches.size())) return false;
  auto& list = b->branches[static_cast<size_t>(branch)];
  list.insert(list.begin(), layer);
  return true;
}

std::vector<LayerPath> LayerPaths(const core::NetworkSpec& spec) {
  std::vector<LayerPath> out;
  Paths(spec.layers, {}, out);
  return out;
}

core::Layer DefaultLayer(core::LayerKind kind) {
  core::Layer l;
  l.kind = kind;
  switch (kind) {
    case core::LayerKind::kConv1d:
    case core::LayerKind::kConv2d:
    case core::LayerKind::kConvTranspose2d:
      l.out = 64;
      l.kernel[0] = l.kernel[1] = 3;
      l.padding[0] = l.padding[1] = kind == core::LayerKind::kConvTranspose2d ? 0 : 1;
      if (kind == core::LayerKind::kConvTranspose2d) l.stride[0] = l.stride[1] = 2, l.kernel[0] = l.kernel[1] = 2;
      break;
    case core::LayerKind::kLinear:
      l.out = 256;
      break;
    case core::LayerKind::kEmbedding:
      l.vocab = 1000, l.out = 256;
      break;
    case core::LayerKind::kGroupNorm:
      l.groups = 32;
      break;
    case core::LayerKind::kMaxPool2d:
    case core::LayerKind::kAvgPool2d:
      l.kernel[0] = l.kernel[1] = 2;
      break;
    case core::LayerKind::kAdaptiveAvgPool2d:
    case core::LayerKind::kAdaptiveMaxPool2d:
      l.size[0] = l.size[1] = 1;
      break;
    case core::LayerKind::kDropout:
      l.drop_prob = 0.5;
      break;
    case core::LayerKind::kStochasticDepth:
      l.drop_prob = 0.1;
      break;
    case core::LayerKind::kUpsample:
      l.scale = 2;
      break;
    case core::LayerKind::kAttention:
    case core::LayerKind::kWindowAttention:
      l.heads = 8, l.window[0] = l.window[1] = 7;
      break;
    case core::LayerKind::kPermute:
      l.ndims = 4, l.dims[0] = 0, l.dims[1] = 2, l.dims[2] = 3, l.dims[3] = 1;
      break;
    case core::LayerKind::kAdd:
    case core::LayerKind::kConcat:
    case core::LayerKind::kMul:
      l.branches = {{}, {}};  // both the block input: fill them with InsertLayerInBranch
      break;
    case core::LayerKind::kTap:
      l.branches = {{}};
      break;
    case core::LayerKind::kReLU:
      l.inplace = true;
      break;
    default:
      break;
  }
  return l;
}

}  // namespace llmmem::app
