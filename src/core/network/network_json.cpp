// Reading and writing the layer-stack JSON format; the embedded vision presets.
#include "core/network/network_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/catalogue/embedded.h"
#include "core/parse/text.h"
#include "core/base/stable_order.h"

namespace llmmem::core {

extern const EmbeddedFile kEmbeddedNetworks[];

namespace {

constexpr const char* kLayerKeys[] = {
    "type",     "name",           "in",        "out",       "vocab",       "kernel",  "stride", "padding",
    "dilation", "output_padding", "groups",    "heads",     "window",      "shift",   "size",   "scale",
    "match",    "mode",           "dims",      "start_dim", "end_dim",     "dim",     "p",      "bias",
    "affine",   "inplace",        "ceil_mode", "trainable", "approximate", "branches"};
constexpr const char* kTopKeys[] = {"key",    "name",          "family", "task",         "input",
                                    "params", "params_source", "note",   "generated_by", "layers"};

bool Known(const char* const* keys, size_t n, const std::string& k) {
  for (size_t i = 0; i < n; ++i)
    if (k == keys[i]) return true;
  return false;
}

class Reader {
 public:
  explicit Reader(Diagnostics& d) : d_(d) {}

  void Err(const std::string& where, const std::string& msg, DiagId id = DiagId::kWrongType) {
    d_.push_back({id, Severity::kError, "network", where + ": " + msg});
  }

  bool Int(const Json& v, const std::string& where, int64_t lo, int64_t hi, int64_t& out) {
    if (!v.IsNumber() || !std::isfinite(v.AsNumber()) || std::floor(v.AsNumber()) != v.AsNumber()) {
      Err(where, "must be a whole number");
      return false;
    }
    const double x = v.AsNumber();
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
      Err(where, "must be between " + std::to_string(lo) + " and " + std::to_string(hi), DiagId::kOutOfRange);
      return false;
    }
    out = static_cast<int64_t>(x);
    return true;
  }
  // A number or [a] / [a, b]: both entries of a 2-d setting.
  bool Pair(const Json& v, const std::string& where, int64_t lo, int64_t hi, int64_t (&out)[2]) {
    if (v.IsArray()) {
      const auto& a = v.AsArray();
      if (a.empty() || a.size() > 2) {
        Err(where, "must be a number or a list of one or two numbers");
        return false;
      }
      for (size_t i = 0; i < 2; ++i)
        if (!Int(a[std::min(i, a.size() - 1)], where, lo, hi, out[i])) return false;
      return true;
    }
    int64_t x = 0;
    if (!Int(v, where, lo, hi, x)) return false;
    out[0] = out[1] = x;
    return true;
  }
  bool Bool(const Json& v, const std::string& where, bool& out) {
    if (!v.IsBool()) {
      Err(where, "must be true or false");
      return false;
    }
    out = v.AsBool();
    return true;
  }

  bool Layers(const Json& j, const std::string& where, int depth, std::vector<Layer>& out) {
    if (!j.IsArray()) {
      Err(where, "must be a list of layers");
      return false;
    }
    if (depth > kMaxNetworkDepth) {
      Err(where, "blocks nest deeper than " + std::to_string(kMaxNetworkDepth), DiagId::kOutOfRange);
      return false;
    }
    for (size_t i = 0; i < j.AsArray().size(); ++i) {
      if (++count_ > kMaxNetworkLayers) {
        Err(where, "more than " + std::to_string(kMaxNetworkLayers) + " layers", DiagId::kOutOfRange);
        return false;
      }
      Layer l;
      if (!One(j.AsArray()[i], where + "[" + std::to_string(i) + "]", depth, l)) return false;
      out.push_back(std::move(l));
    }
    return true;
  }

  bool One(const Json& j, const std::string& at, int depth, Layer& l) {
    if (!j.IsObject()) {
      Err(at, "a layer must be an object with a \"type\"");
      return false;
    }
    const std::string type = StringMember(j, "type");
    if (!ParseId(type, l.kind)) {
      Err(at, "unknown layer type \"" + type + "\"; one of: " + IdList<LayerKind>(), DiagId::kUnknownValue);
      return false;
    }
    l.name = StringMember(j, "name");
    const std::string where = l.name.empty() ? at : at + " (" + l.name + ")";
    const int64_t big = kMaxDimSize;
    for (const auto& [k, v] : j.AsObject()) {
      bool ok = true;
      if (k == "in")
        ok = Int(v, where + " in", 1, big, l.in);
      else if (k == "out")
        ok = Int(v, where + " out", 1, big, l.out);
      else if (k == "vocab")
        ok = Int(v, where + " vocab", 1, big, l.vocab);
      else if (k == "kernel")
        ok = Pair(v, where + " kernel", 1, 1 << 20, l.kernel);
      else if (k == "stride")
        ok = Pair(v, where + " stride", 1, 1 << 20, l.stride);
      else if (k == "padding") {
        if (v.IsString()) {
          const std::string p = AsciiLower(v.AsString());
          if (p == "same")
            l.padding_same = true;
          else if (p != "valid")
            ok = (Err(where + " padding", "must be a number, [h, w], \"same\" or \"valid\""), false);
        } else {
          ok = Pair(v, where + " padding", 0, 1 << 20, l.padding);
        }
      } else if (k == "dilation")
        ok = Pair(v, where + " dilation", 1, 1 << 20, l.dilation);
      else if (k == "output_padding")
        ok = Pair(v, where + " output_padding", 0, 1 << 20, l.output_padding);
      else if (k == "groups")
        ok = Int(v, where + " groups", 1, big, l.groups);
      else if (k == "heads")
        ok = Int(v, where + " heads", 1, 1 << 20, l.heads);
      else if (k == "window")
        ok = Pair(v, where + " window", 1, 1 << 16, l.window);
      else if (k == "shift")
        ok = Pair(v, where + " shift", 0, 1 << 16, l.shift);
      else if (k == "size")
        ok = Pair(v, where + " size", 1, big, l.size);
      else if (k == "scale") {
        ok = v.IsNumber() && v.AsNumber() > 0 && v.AsNumber() <= 1024;
        if (ok)
          l.scale = v.AsNumber();
        else
          Err(where + " scale", "must be a number in (0, 1024]", DiagId::kOutOfRange);
      } else if (k == "match") {
        const std::string m = v.IsString() ? AsciiLower(v.AsString()) : "";
        if (m == "input")
          l.match = UpsampleMatch::kInput;
        else if (m == "block")
          l.match = UpsampleMatch::kBlock;
        else
          ok = (Err(where + " match", "must be \"input\" (the network's) or \"block\" (the enclosing block's)",
                    DiagId::kUnknownValue),
                false);
      } else if (k == "mode") {
        if (!v.IsString())
          ok = (Err(where + " mode", "must be a string"), false);
        else if (l.kind == LayerKind::kStochasticDepth) {
          const std::string m = AsciiLower(v.AsString());
          if (m == "batch")
            l.batch_mode = true;
          else if (m != "row")
            ok = (Err(where + " mode", "must be \"row\" or \"batch\"", DiagId::kUnknownValue), false);
        }
      } else if (k == "dims") {
        if (!v.IsArray() || v.AsArray().size() < 2 || v.AsArray().size() > 6) {
          ok = (Err(where + " dims", "must be a list of 2 to 6 dims, the batch first"), false);
        } else {
          l.ndims = static_cast<int>(v.AsArray().size());
          for (int i = 0; ok && i < l.ndims; ++i) ok = Int(v.AsArray()[i], where + " dims", -6, 5, l.dims[i]);
        }
      } else if (k == "start_dim")
        ok = Int(v, where + " start_dim", -6, 5, l.start_dim);
      else if (k == "end_dim")
        ok = Int(v, where + " end_dim", -6, 5, l.end_dim);
      else if (k == "dim")
        ok = Int(v, where + " dim", -6, 5, l.dim);
      else if (k == "p") {
        ok = v.IsNumber() && v.AsNumber() >= 0 && v.AsNumber() <= 1;
        if (ok)
          l.drop_prob = v.AsNumber();
        else
          Err(where + " p", "must be a probability in [0, 1]", DiagId::kOutOfRange);
      } else if (k == "bias")
        ok = Bool(v, where + " bias", l.bias);
      else if (k == "affine")
        ok = Bool(v, where + " affine", l.affine);
      else if (k == "inplace")
        ok = Bool(v, where + " inplace", l.inplace);
      else if (k == "ceil_mode")
        ok = Bool(v, where + " ceil_mode", l.ceil_mode);
      else if (k == "trainable")
        ok = Bool(v, where + " trainable", l.trainable);
      else if (k == "branches") {
        if (!Info(l.kind).block) {
          ok = (Err(where, "only add, concat, mul and tap blocks have branches"), false);
        } else if (!v.IsArray() || v.AsArray().empty() || v.AsArray().size() > kMaxBranches) {
          ok = (Err(where + " branches", "must be a list of 1 to 64 layer lists"), false);
        } else {
          for (size_t b = 0; ok && b < v.AsArray().size(); ++b) {
            l.branches.emplace_back();
            ok = Layers(v.AsArray()[b], where + " branch " + std::to_string(b), depth + 1, l.branches.back());
          }
        }
      } else if (!Known(kLayerKeys, sizeof(kLayerKeys) / sizeof(kLayerKeys[0]), k)) {
        d_.push_back(
            {DiagId::kUnknownKey, Severity::kWarning, "network", where + ": unknown key \"" + k + "\" ignored"});
      }
      if (!ok) return false;
    }
    if (Info(l.kind).block && l.branches.empty()) {
      Err(where, std::string("a ") + Info(l.kind).id + " block needs \"branches\"", DiagId::kMissingField);
      return false;
    }
    return true;
  }

 private:
  Diagnostics& d_;
  int count_ = 0;
};

Json Pair(const int64_t (&v)[2]) {
  if (v[0] == v[1]) return Json(v[0]);
  return Json(Json::Array{Json(v[0]), Json(v[1])});
}

Json LayersToJson(const std::vector<Layer>& layers);

Json LayerToJson(const Layer& l) {
  Json j;
  const Layer d;  // defaults
  j["type"] = Info(l.kind).id;
  if (!l.name.empty()) j["name"] = l.name;
  if (l.in) j["in"] = l.in;
  if (l.out) j["out"] = l.out;
  if (l.vocab) j["vocab"] = l.vocab;
  auto pair = [&](const char* k, const int64_t(&v)[2], const int64_t(&def)[2]) {
    if (v[0] != def[0] || v[1] != def[1]) j[k] = Pair(v);
  };
  pair("kernel", l.kernel, d.kernel);
  pair("stride", l.stride, d.stride);
  if (l.padding_same)
    j["padding"] = "same";
  else
    pair("padding", l.padding, d.padding);
  pair("dilation", l.dilation, d.dilation);
  pair("output_padding", l.output_padding, d.output_padding);
  if (l.groups != 1) j["groups"] = l.groups;
  if (l.heads) j["heads"] = l.heads;
  pair("window", l.window, d.window);
  pair("shift", l.shift, d.shift);
  pair("size", l.size, d.size);
  if (l.scale > 0) j["scale"] = l.scale;
  if (l.match == UpsampleMatch::kInput) j["match"] = "input";
  if (l.match == UpsampleMatch::kBlock) j["match"] = "block";
  if (l.batch_mode) j["mode"] = "batch";
  if (l.ndims) {
    Json::Array a;
    for (int i = 0; i < l.ndims; ++i) a.push_back(Json(l.dims[i]));
    j["dims"] = Json(a);
  }
  if (l.start_dim != 1) j["start_dim"] = l.start_dim;
  if (l.end_dim != -1) j["end_dim"] = l.end_dim;
  if (l.dim != 1) j["dim"] = l.dim;
  if (l.drop_prob > 0) j["p"] = l.drop_prob;
  if (!l.bias) j["bias"] = false;
  if (!l.affine) j["affine"] = false;
  if (l.inplace) j["inplace"] = true;
  if (l.ceil_mode) j["ceil_mode"] = true;
  if (!l.trainable) j["trainable"] = false;
  if (!l.branches.empty()) {
    Json::Array b;
    for (const auto& br : l.branches) b.push_back(LayersToJson(br));
    j["branches"] = Json(b);
  }
  return j;
}

Json LayersToJson(const std::vector<Layer>& layers) {
  Json::Array a;
  for (const Layer& l : layers) a.push_back(LayerToJson(l));
  return Json(a);
}

}  // namespace

const char* NetworkTaskId(NetworkTask t) {
  switch (t) {
    case NetworkTask::kSegmentation:
      return "segmentation";
    case NetworkTask::kBackbone:
      return "backbone";
    case NetworkTask::kOther:
      return "other";
    default:
      return "classification";
  }
}

NetworkParse NetworkFromJson(const Json& j) {
  NetworkParse r;
  Reader rd(r.diagnostics);
  if (!j.IsObject()) {
    rd.Err("network", "must be a JSON object with \"layers\"");
    return r;
  }
  NetworkSpec& s = r.spec;
  s.key = StringMember(j, "key");
  s.name = StringMember(j, "name");
  s.family = StringMember(j, "family");
  s.note = StringMember(j, "note");
  s.params_source = StringMember(j, "params_source");
  const std::string task = AsciiLower(StringMember(j, "task", "classification"));
  if (task == "segmentation")
    s.task = NetworkTask::kSegmentation;
  else if (task == "backbone")
    s.task = NetworkTask::kBackbone;
  else if (task != "classification")
    s.task = NetworkTask::kOther;
  for (const auto& [k, v] : j.AsObject()) {
    (void)v;
    if (!Known(kTopKeys, sizeof(kTopKeys) / sizeof(kTopKeys[0]), k))
      r.diagnostics.push_back(
          {DiagId::kUnknownKey, Severity::kWarning, "network", "unknown key \"" + k + "\" ignored"});
  }
  if (const Json* p = j.Find("params")) {
    int64_t n = 0;
    if (!rd.Int(*p, "params", 0, static_cast<int64_t>(1e14), n)) return r;
    s.published_params = n;
  }
  if (const Json* in = j.Find("input")) {
    if (!in->IsArray() || in->AsArray().empty() || in->AsArray().size() > static_cast<size_t>(kMaxRank - 1)) {
      rd.Err("input", "must be a list of 1 to 4 sizes per sample, e.g. [3, 224, 224]");
      return r;
    }
    for (const Json& d : in->AsArray()) {
      int64_t x = 0;
      if (!rd.Int(d, "input", 1, kMaxDimSize, x)) return r;
      s.input.push_back(x);
    }
  }
  const Json* layers = j.Find("layers");
  if (layers == nullptr) {
    r.diagnostics.push_back({DiagId::kMissingField, Severity::kError, "network", "the network has no \"layers\" list"});
    return r;
  }
  if (!rd.Layers(*layers, "layers", 0, s.layers)) return r;
  r.ok = !HasErrors(r.diagnostics);
  return r;
}

JsonLimits NetworkJsonLimits(const char* what) {
  JsonLimits limits;
  limits.max_depth = kNetworkJsonMaxDepth;
  limits.what = what;
  return limits;
}

NetworkParse ParseNetworkJson(const std::string& text) {
  const JsonParseResult p = ParseJson(text, NetworkJsonLimits());
  if (!p.ok) {
    NetworkParse r;
    r.diagnostics.push_back({DiagId::kParse, Severity::kError, "network", "the network is not valid JSON: " + p.error});
    return r;
  }
  return NetworkFromJson(p.value);
}

Json NetworkToJson(const NetworkSpec& s) {
  Json j;
  if (!s.key.empty()) j["key"] = s.key;
  if (!s.name.empty()) j["name"] = s.name;
  if (!s.family.empty()) j["family"] = s.family;
  if (s.task != NetworkTask::kClassification) j["task"] = NetworkTaskId(s.task);
  if (!s.input.empty()) {
    Json::Array a;
    for (int64_t d : s.input) a.push_back(Json(d));
    j["input"] = Json(a);
  }
  if (s.published_params) j["params"] = s.published_params;
  if (!s.params_source.empty()) j["params_source"] = s.params_source;
  if (!s.note.empty()) j["note"] = s.note;
  j["layers"] = LayersToJson(s.layers);
  return j;
}

// [SECTION] Presets
namespace {

std::string KeyForm(std::string s) {
  s = AsciiLower(s);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

NetworkPreset FromText(const std::string& name, const std::string& text) {
  NetworkPreset p;
  p.key = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 ? name.substr(0, name.size() - 5) : name;
  NetworkParse parsed = ParseNetworkJson(text);
  p.ok = parsed.ok;
  p.spec = std::move(parsed.spec);
  if (p.spec.key.empty()) p.spec.key = p.key;
  p.diagnostics = std::move(parsed.diagnostics);
  return p;
}

void SortPresets(std::vector<NetworkPreset>& all) {
  const char* order[] = {"ResNet",   "VGG", "MobileNet", "EfficientNet", "DenseNet",
                         "ConvNeXt", "ViT", "Swin",      "Segmentation", "Detection"};
  auto rank = [&](const NetworkPreset& p) {
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); ++i)
      if (p.spec.family == order[i]) return static_cast<int>(i);
    return 100;
  };
  // The key breaks ties: the same order whatever order the files come in.
  StableSort(all, [&](const NetworkPreset& a, const NetworkPreset& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (a.spec.published_params != b.spec.published_params) return a.spec.published_params < b.spec.published_params;
    return a.key < b.key;
  });
}

// The presets: embedded (native builds, the JS API, the tests), or added once from the bundle
// the page fetches when "Any network" first needs them (AddNetworkPresetBundle).
std::vector<NetworkPreset>& Registry() {
  static std::vector<NetworkPreset> all = [] {
    std::vector<NetworkPreset> out;
    for (const EmbeddedFile* f = kEmbeddedNetworks; f->name != nullptr; ++f) {
      const size_t n = std::strlen(f->name);
      if (n > 5 && std::strcmp(f->name + n - 5, ".json") == 0) out.push_back(FromText(f->name, f->Text()));
    }
    SortPresets(out);
    return out;
  }();
  return all;
}

}  // namespace

const std::vector<NetworkPreset>& NetworkPresets() { return Registry(); }

std::string AddNetworkPresetBundle(const std::string& text) {
  std::vector<NetworkPreset>& all = Registry();
  if (!all.empty()) return "";  // embedded, or added already: pointers into the list stay valid
  JsonLimits limits;
  limits.what = "the network presets";
  const JsonParseResult j = ParseJson(text, limits);
  if (!j.ok) return "the network presets could not be read: " + j.error;
  const Json* files = j.value.Find("files");
  if (files == nullptr || !files->IsArray()) return "the network presets have no \"files\" list";
  std::vector<NetworkPreset> added;
  for (const Json& f : files->AsArray()) {
    const Json* name = f.Find("name");
    const Json* body = f.Find("text");
    if (name == nullptr || body == nullptr || !name->IsString() || !body->IsString())
      return "a network preset in the bundle has no name or text";
    added.push_back(FromText(name->AsString(), body->AsString()));
  }
  SortPresets(added);
  all = std::move(added);
  return "";
}

const NetworkPreset* FindNetworkPreset(const std::string& key) {
  const std::string k = KeyForm(key);
  for (const NetworkPreset& p : NetworkPresets()) {
    if (KeyForm(p.key) == k) return &p;
  }
  // "resnet-50" / "ResNet50": ignore separators entirely as a last resort
  auto bare = [](std::string s) {
    s = AsciiLower(s);
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '-' || c == '_' || c == '/'; }), s.end());
    return s;
  };
  const std::string kb = bare(key);
  for (const NetworkPreset& p : NetworkPresets()) {
    if (bare(p.key) == kb || bare(p.spec.name) == kb) return &p;
  }
  return nullptr;
}

}  // namespace llmmem::core
