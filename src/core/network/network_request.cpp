// Requests and results for layer-stack estimates (CLI, JS API, URL).
#include "core/network/network_request.h"
#include "core/parse/number_text.h"

#include <cctype>
#include <cmath>

#include "core/catalogue/gpus.h"
#include "core/network/network_json.h"
#include "core/parse/number_text.h"
#include "core/parse/percent_encoding.h"
#include "core/parse/text.h"
#include "core/network/torch_repr.h"

namespace llmmem::core {

const char* const kNetworkRequestKeys[] = {
    "model", "network", "torch_repr",    "image_size",      "channels",          "input",
    "batch", "mode",    "dtype",         "optimizer",       "profile",           "attention",
    "loss",  "gpu",     "gpu_memory_gb", "cuda_context_gb", "fragmentation_pct", nullptr};

namespace {

void Err(NetworkRequest& r, const char* field, const std::string& msg, DiagId id = DiagId::kOutOfRange) {
  r.diagnostics.push_back({id, Severity::kError, field, msg});
}

bool Number(NetworkRequest& r, const Json& j, const char* key, double lo, double hi, double& out) {
  const Json* v = j.Find(key);
  if (v == nullptr) return false;
  double x = 0;
  if (v->IsNumber()) {
    x = v->AsNumber();
  } else if (v->IsString()) {
    const std::string err = ParseNumber(v->AsString(), x);  // as every LLM field reads it
    if (!err.empty()) {
      Err(r, key, std::string(key) + ": " + err, DiagId::kNotANumber);
      return false;
    }
  } else {
    Err(r, key, std::string(key) + " must be a number", DiagId::kWrongType);
    return false;
  }
  if (!std::isfinite(x) || x < lo || x > hi) {
    Err(r, key, std::string(key) + " must be between " + FormatJsonNumber(lo) + " and " + FormatJsonNumber(hi));
    return false;
  }
  out = x;
  return true;
}

std::string Text(const Json& j, const char* key) {
  const Json* v = j.Find(key);
  if (v == nullptr) return "";
  if (v->IsString()) return v->AsString();
  if (v->IsBool()) return v->AsBool() ? "true" : "false";
  if (v->IsNumber()) return FormatJsonNumber(v->AsNumber());
  return "";
}

}  // namespace

NetworkRequest NetworkRequestFromJson(const Json& j) {
  NetworkRequest r;
  if (!j.IsObject()) {
    Err(r, "", "the request must be a JSON object", DiagId::kWrongType);
    return r;
  }
  for (const auto& [k, v] : j.AsObject()) {
    (void)v;
    bool known = false;
    for (const char* const* p = kNetworkRequestKeys; *p; ++p) known |= k == *p;
    if (!known)
      r.diagnostics.push_back({DiagId::kUnknownKey, Severity::kWarning, k, "unknown key \"" + k + "\" ignored"});
  }
  // The network: one of model, network, torch_repr.
  const int sources = (j.Find("model") != nullptr) + (j.Find("network") != nullptr) + (j.Find("torch_repr") != nullptr);
  if (sources != 1) {
    Err(r, "model",
        sources ? "give one of model, network and torch_repr, not several"
                : "no network: give model (a preset such as resnet50), network (a layer-stack JSON) "
                  "or torch_repr (the text of print(model))",
        sources ? DiagId::kInconsistent : DiagId::kMissingField);
    return r;
  }
  if (j.Find("model")) {
    const std::string key = Text(j, "model");
    const NetworkPreset* p = FindNetworkPreset(key);
    if (p == nullptr || !p->ok) {
      std::string all;
      for (const NetworkPreset& q : NetworkPresets()) all += (all.empty() ? "" : ", ") + q.key;
      Err(r, "model", "unknown network \"" + key + "\"; presets: " + all, DiagId::kUnknownValue);
      return r;
    }
    r.spec = p->spec;
    r.source = "preset " + p->key;
  } else if (const Json* n = j.Find("network")) {
    NetworkParse p = n->IsString() ? ParseNetworkJson(n->AsString()) : NetworkFromJson(*n);
    for (const Diagnostic& d : p.diagnostics) r.diagnostics.push_back(d);
    if (!p.ok) return r;
    r.spec = std::move(p.spec);
    r.source = "network JSON";
  } else {
    const Json* t = j.Find("torch_repr");
    if (!t->IsString()) {
      Err(r, "torch_repr", "torch_repr must be the text print(model) shows", DiagId::kWrongType);
      return r;
    }
    TorchReprParse p = ParseTorchRepr(t->AsString());
    for (const Diagnostic& d : p.diagnostics) r.diagnostics.push_back(d);
    if (!p.ok) return r;
    r.spec = std::move(p.spec);
    r.source = "torch repr";
  }
  // The input.
  if (const Json* in = j.Find("input")) {
    std::vector<int64_t> dims;
    if (in->IsArray() && !in->AsArray().empty() && in->AsArray().size() <= 4) {
      for (const Json& d : in->AsArray()) {
        if (!d.IsNumber() || d.AsNumber() < 1 || d.AsNumber() > 1e9 || std::floor(d.AsNumber()) != d.AsNumber()) {
          dims.clear();
          break;
        }
        dims.push_back(static_cast<int64_t>(d.AsNumber()));
      }
    }
    if (dims.empty()) {
      Err(r, "input", "input must be a list of 1 to 4 whole sizes, e.g. [3, 224, 224]", DiagId::kWrongType);
      return r;
    }
    r.spec.input = dims;
  }
  if (j.Find("image_size") != nullptr) {
    int64_t h = 0, w = 0;
    const std::string s = Text(j, "image_size");
    const size_t x = s.find_first_of("xX");
    const bool read = ParseInt(s.substr(0, x), h).empty() &&
                      (x == std::string::npos ? (w = h, true) : ParseInt(s.substr(x + 1), w).empty());
    if (!read || h < 1 || w < 1 || h > 1000000 || w > 1000000) {
      Err(r, "image_size", "image_size must be N or HxW, each between 1 and 1000000, not \"" + s + "\"");
      return r;
    }
    if (r.spec.input.size() != 3) {
      // channels: the first convolution's, when it says (a pasted repr does), else 3
      int64_t c = 3;
      if (!r.spec.layers.empty() && r.spec.layers.front().kind == LayerKind::kConv2d && r.spec.layers.front().in > 0)
        c = r.spec.layers.front().in;
      r.spec.input = {c, h, w};
    }
    r.spec.input[1] = h;
    r.spec.input[2] = w;
  }
  double v = 0;
  if (j.Find("channels") != nullptr) {
    if (!Number(r, j, "channels", 1, 1e6, v)) return r;
    if (r.spec.input.size() != 3) {
      Err(r, "channels", "channels applies to a (C, H, W) image input", DiagId::kInconsistent);
      return r;
    }
    r.spec.input[0] = static_cast<int64_t>(v);
  }
  if (r.spec.input.empty()) {
    Err(r, "image_size", "the network does not say its input: give image_size (and channels) or input",
        DiagId::kMissingField);
    return r;
  }
  // Settings.
  NetworkEstimateInput& in = r.input;
  r.gpu = kDefaultGpu;
  if (const Gpu* g = FindGpu(kDefaultGpu)) in.gpu_memory_bytes = g->UsableBytes();
  if (j.Find("batch") != nullptr) {
    if (!Number(r, j, "batch", 1, 1048576, v)) return r;
    in.batch = static_cast<int64_t>(v);
    if (static_cast<double>(in.batch) != v) return Err(r, "batch", "batch must be a whole number"), r;
  }
  if (j.Find("mode") != nullptr) {
    const std::string m = AsciiLower(Text(j, "mode"));
    if (m == "train" || m == "training")
      in.settings.training = true;
    else if (m == "infer" || m == "inference" || m == "eval")
      in.settings.training = false;
    else
      return Err(r, "mode", "mode must be train or infer, not \"" + m + "\"", DiagId::kUnknownValue), r;
  }
  if (j.Find("dtype") != nullptr) {
    Dtype d;
    const std::string s = Text(j, "dtype");
    if (!ParseId(s, d) || !IsPlainFloat(d))
      return Err(r, "dtype",
                 "dtype must be " + IdList<Dtype>(" or ", IsPlainFloatRow) + " for a layer stack, not \"" + s + "\"",
                 DiagId::kUnknownValue),
             r;
    in.settings.dtype = d;
  }
  if (j.Find("optimizer") != nullptr) {
    const std::string s = Text(j, "optimizer");
    if (!ParseId(s, in.optimizer) || !Info(in.optimizer).layer_stack)
      return Err(r, "optimizer",
                 "optimizer must be " + IdList<Optimizer>(" or ", LayerStackOptimizer) + ", not \"" + s + "\"",
                 DiagId::kUnknownValue),
             r;
  }
  if (j.Find("profile") != nullptr && !ParseId(Text(j, "profile"), in.settings.profile))
    return Err(r, "profile", "profile must be " + IdList<TorchProfile>(" or "), DiagId::kUnknownValue), r;
  if (j.Find("attention") != nullptr && !ParseId(Text(j, "attention"), in.settings.attention))
    return Err(r, "attention", "attention must be " + IdList<AttentionKernel>(" or "), DiagId::kUnknownValue), r;
  if (j.Find("loss") != nullptr) {
    const std::string s = AsciiLower(Text(j, "loss"));
    if (s == "true" || s == "on" || s == "1")
      in.settings.loss = true;
    else if (s == "false" || s == "off" || s == "0")
      in.settings.loss = false;
    else
      return Err(r, "loss", "loss must be true or false", DiagId::kWrongType), r;
  }
  if (j.Find("gpu") != nullptr) {
    const Gpu* g = FindGpu(Text(j, "gpu"));
    if (g == nullptr)
      return Err(r, "gpu", "unknown GPU \"" + Text(j, "gpu") + "\" (llmmem --list-gpus)", DiagId::kUnknownValue), r;
    r.gpu = g->key;
    in.gpu_memory_bytes = g->UsableBytes();
  }
  if (j.Find("gpu_memory_gb") != nullptr) {
    if (!Number(r, j, "gpu_memory_gb", 0.001, 100000, v)) return r;
    in.gpu_memory_bytes = v * 1e9;
    r.gpu.clear();
  }
  if (j.Find("cuda_context_gb") != nullptr) {
    if (!Number(r, j, "cuda_context_gb", 0, 100, v)) return r;
    in.cuda_context_gb = v;
  }
  if (j.Find("fragmentation_pct") != nullptr) {
    if (!Number(r, j, "fragmentation_pct", 0, 100, v)) return r;
    in.fragmentation_pct = v;
  }
  r.ok = !HasErrors(r.diagnostics);
  return r;
}

namespace {

Json ShapeJson(const Shape& s) {
  Json::Array a;
  for (int i = 0; i < s.rank; ++i) a.push_back(Json(s.d[i]));
  return Json(a);
}

}  // namespace

Json NetworkResultToJson(const NetworkRequest& r, const NetworkEstimate& e) {
  Json j;
  Json::Array diags;
  auto diag = [&](const Diagnostic& d) {
    Json x;
    x["id"] = DiagIdName(d.id);
    x["severity"] = SeverityName(d.severity);
    x["field"] = d.field;
    x["message"] = d.message;
    diags.push_back(x);
  };
  for (const Diagnostic& d : r.diagnostics) diag(d);
  for (const Diagnostic& d : e.diagnostics) diag(d);
  j["diagnostics"] = Json(diags);
  j["ok"] = r.ok && e.ok;
  if (!r.ok || !e.ok) return j;
  const NetworkAnalysis& a = e.analysis;
  const NetworkEstimateInput& in = r.input;
  Json net;
  net["key"] = r.spec.key;
  net["name"] = r.spec.name;
  net["source"] = r.source;
  net["task"] = NetworkTaskId(r.spec.task);
  net["input"] = ShapeJson(a.input);
  net["output"] = ShapeJson(a.output);
  net["params"] = a.params;
  net["trainable_params"] = a.trainable_params;
  if (r.spec.published_params) net["published_params"] = r.spec.published_params;
  net["layers"] = static_cast<int64_t>(a.rows.size());
  j["network"] = net;
  Json s;
  s["batch"] = in.batch;
  s["mode"] = in.settings.training ? "train" : "infer";
  s["dtype"] = Info(in.settings.dtype).id;
  s["optimizer"] = Id(in.optimizer);
  s["profile"] = Id(in.settings.profile);
  s["attention"] = Id(in.settings.attention);
  s["loss"] = in.settings.loss;
  if (!r.gpu.empty()) s["gpu"] = r.gpu;
  s["gpu_memory_bytes"] = in.gpu_memory_bytes;
  s["cuda_context_gb"] = in.cuda_context_gb;
  s["fragmentation_pct"] = in.fragmentation_pct;
  j["settings"] = s;
  j["model_bytes"] = e.model_bytes;
  j["per_sample_bytes"] = e.per_sample_bytes;
  j["total_bytes"] = e.total_bytes;
  j["host_bytes"] = e.host_bytes;
  j["gpu_bytes"] = e.gpu_bytes;
  j["fits"] = e.fits;
  j["max_batch"] = e.max_batch;
  Json per;
  per["saved_bytes"] = a.saved_bytes;
  per["loss_bytes"] = a.loss_bytes;
  per["output_held_bytes"] = a.output_held_bytes;
  per["input_held_bytes"] = a.input_held_bytes;
  per["inference_peak_bytes"] = a.inference_peak_bytes;
  per["feature_map_bytes"] = a.feature_map_bytes;
  j["per_sample"] = per;
  Json::Array terms;
  for (const NetworkTerm& t : e.terms) {
    Json x;
    x["id"] = t.id;
    x["label"] = t.label;
    x["bytes"] = t.bytes;
    x["per_sample"] = t.per_sample;
    x["formula"] = t.formula;
    terms.push_back(x);
  }
  j["terms"] = Json(terms);
  // The same form as an LLM's result (result_json.h: parameters.total, per_gpu, breakdown),
  // so a reader of one reads the other (issue 29). The keys above stay for existing readers.
  Json params;
  params["total"] = a.params;
  params["trainable"] = a.trainable_params;
  j["parameters"] = params;
  Json gpu;
  gpu["total_bytes"] = e.total_bytes;
  gpu["capacity_bytes"] = e.gpu_bytes;
  gpu["headroom_bytes"] = e.gpu_bytes - e.total_bytes;
  gpu["fits"] = e.fits;
  gpu["verdict"] = e.fits ? "fits" : "does_not_fit";
  gpu["host_bytes"] = e.host_bytes;
  j["per_gpu"] = gpu;
  Json tree;
  tree["id"] = "total";
  tree["name"] = "Total";
  tree["bytes"] = e.total_bytes;
  Json::Array kids;
  for (const NetworkTerm& t : e.terms) {
    Json x;
    x["id"] = t.id;
    x["name"] = t.label;
    x["bytes"] = t.bytes;
    x["formula"] = t.formula;
    kids.push_back(x);
  }
  tree["children"] = Json(kids);
  j["breakdown"] = tree;
  Json::Array rows;
  for (const LayerRow& row : a.rows) {
    Json x;
    x["name"] = row.name;
    x["type"] = Info(row.kind).id;
    x["depth"] = row.depth;
    x["output"] = ShapeJson(row.out);
    x["params"] = row.params;
    x["feature_map_bytes"] = row.feature_map_bytes;
    x["saved_bytes"] = row.saved_bytes;
    if (row.saved_fixed_bytes) x["saved_fixed_bytes"] = row.saved_fixed_bytes;
    if (row.shared_bytes) x["shared_bytes"] = row.shared_bytes;
    if (!row.saved_what.empty()) x["saved"] = row.saved_what;
    rows.push_back(x);
  }
  j["layers"] = Json(rows);
  Json::Array notes;
  for (const std::string& n : a.notes) notes.push_back(Json(n));
  j["notes"] = Json(notes);
  Json::Array diffs;
  for (const ProfileDifference& d : ProfileDifferences(r.spec, in.settings)) {
    Json x;
    x["what"] = d.what;
    x["bytes_per_sample"] = d.bytes_per_sample;
    x["bytes_per_step"] = d.bytes_per_step;
    diffs.push_back(x);
  }
  j["profile_differences"] = Json(diffs);
  return j;
}

namespace {

constexpr size_t kMaxNetworkQueryValue = 65536;  // a custom stack of a few hundred layers

}  // namespace

std::string NetworkRequestToQuery(const Json& request) {
  std::string q;
  if (!request.IsObject()) return q;
  for (const char* const* k = kNetworkRequestKeys; *k; ++k) {
    const std::string key = *k;
    if (key == "torch_repr" || key == "gpu" || key == "gpu_memory_gb" || key == "cuda_context_gb" ||
        key == "fragmentation_pct")
      continue;  // the repr travels parsed, as network; the card is the page's
    const Json* v = request.Find(key);
    if (v == nullptr || v->IsNull()) continue;
    std::string text = v->IsString() ? v->AsString() : v->Dump();
    if (!q.empty()) q += '&';
    q += "net_" + key + "=" + PercentEncode(text);
  }
  return q;
}

Json NetworkRequestFromQuery(const std::string& query, std::string* rest) {
  Json j(Json::Object{});
  size_t i = 0;
  while (i <= query.size()) {
    size_t e = query.find('&', i);
    if (e == std::string::npos) e = query.size();
    const std::string pair = query.substr(i, e - i);
    const size_t eq = pair.find('=');
    bool taken = false;
    if (pair.compare(0, 4, "net_") == 0 && eq != std::string::npos && pair.size() - eq <= kMaxNetworkQueryValue * 3) {
      const std::string key = pair.substr(4, eq - 4);
      const std::string value = PercentDecode(pair.substr(eq + 1), true);
      for (const char* const* k = kNetworkRequestKeys; *k && !taken; ++k) taken = key == *k;
      if (taken) {
        if (key == "network" || key == "input") {
          const JsonParseResult p = ParseJson(value, NetworkJsonLimits());
          j[key] = p.ok ? p.value : Json(value);  // a broken one is reported by the request
        } else {
          j[key] = value;
        }
      }
    }
    if (!taken && !pair.empty() && rest != nullptr) {
      if (!rest->empty()) *rest += '&';
      *rest += pair;
    }
    i = e + 1;
  }
  return j;
}

std::string NetworkPresetsJson() {
  Json::Array out;
  for (const NetworkPreset& p : NetworkPresets()) {
    Json j;
    j["key"] = p.key;
    j["name"] = p.spec.name;
    j["family"] = p.spec.family;
    j["task"] = NetworkTaskId(p.spec.task);
    j["params"] = p.spec.published_params;
    Json::Array in;
    for (int64_t d : p.spec.input) in.push_back(Json(d));
    j["input"] = Json(in);
    out.push_back(j);
  }
  return Json(out).Dump();
}

std::string TorchReprToNetworkJson(const std::string& text) {
  const TorchReprParse p = ParseTorchRepr(text);
  Json j;
  j["ok"] = p.ok;
  j["graph_exact"] = p.graph_exact;
  if (p.ok) j["network"] = NetworkToJson(p.spec);
  Json::Array diags;
  for (const Diagnostic& d : p.diagnostics) {
    Json x;
    x["id"] = DiagIdName(d.id);
    x["severity"] = SeverityName(d.severity);
    x["message"] = d.message;
    diags.push_back(x);
  }
  j["diagnostics"] = Json(diags);
  return j.Dump();
}

std::string EstimateNetworkJson(const std::string& request_json) {
  const JsonParseResult p = ParseJson(request_json, NetworkJsonLimits("the request"));
  NetworkRequest r;
  if (!p.ok) {
    r.diagnostics.push_back({DiagId::kParse, Severity::kError, "", "the request is not valid JSON: " + p.error});
    return NetworkResultToJson(r, NetworkEstimate{}).Dump();
  }
  r = NetworkRequestFromJson(p.value);
  NetworkEstimate e;
  if (r.ok) e = EstimateNetwork(r.spec, r.input);
  return NetworkResultToJson(r, e).Dump();
}

}  // namespace llmmem::core
