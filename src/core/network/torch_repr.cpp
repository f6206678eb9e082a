// Parsing print(model).
//
// Index
//   (reading the text into a module tree and arguments: torch_repr_text.h)
//   [SECTION] Leaves      a module type the stack knows -> one layer
//   [SECTION] Blocks      torchvision's blocks rebuilt from their forward
//   [SECTION] Models      torchvision's top-level forwards (flatten, class token, heads)
#include "core/network/torch_repr.h"

#include <cstdlib>
#include <memory>
#include <unordered_set>

#include "core/parse/text.h"
#include "core/network/torch_repr_text.h"

namespace llmmem::core {
namespace {

using repr_internal::Args;
using repr_internal::kMaxModules;
using repr_internal::kMaxReprBytes;
using repr_internal::Module;
using repr_internal::Reader;

// [SECTION] Leaves and blocks
class Converter {
 public:
  Converter(TorchReprParse& r, const std::string& text, int first_line) : r_(r), text_(text), first_line_(first_line) {}

  // A size printed as a non-whole number is refused (not truncated), naming its line.
  void RefuseNotWhole(const Module& m, const Args& a) {
    if (a.not_whole.empty()) return;
    r_.diagnostics.push_back({DiagId::kWrongType, Severity::kError, "torch_repr",
                              "line " + std::to_string(first_line_ + repr_internal::LineOf(text_, m.offset) - 1) + ": " +
                                  m.type + "(" + EchoValue(a.not_whole) +
                                  "): a size or count must be a whole number"});
  }

  // Each distinct note once, and at most kMaxNotes of them: a "(0-9999): 10000 x Unknown(" line
  // would otherwise make ten thousand notes, each checked against the others (found by
  // fuzz_network: seconds of work and pages of output for a few hundred bytes of input).
  void Note(const std::string& msg, bool graph = false) {
    if (graph) r_.graph_exact = false;
    if (!seen_notes_.insert(msg).second) return;
    if (seen_notes_.size() > kMaxNotes) {
      ++unlisted_notes_;
      return;
    }
    r_.diagnostics.push_back({DiagId::kUnsupported, graph ? Severity::kWarning : Severity::kInfo, "torch_repr", msg});
  }
  bool TooLarge() const { return expanded_ > kMaxModules; }
  // After the conversion: how many notes were left out.
  void Finish() {
    if (unlisted_notes_ == 0) return;
    r_.diagnostics.push_back({DiagId::kUnsupported, Severity::kWarning, "torch_repr",
                              std::to_string(unlisted_notes_) + " more notes like the ones above are not listed"});
  }

  static const Module* proj_or(const Module* parent, const Module* child) { return child ? child : parent; }
  static std::string Join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

  // One module (repeated when the ModuleList says so) into `out`.
  void Convert(const Module& m, const std::string& path, std::vector<Layer>& out) {
    for (int i = 0; i < m.repeat; ++i) {
      std::string p = path;
      if (m.repeat > 1) {
        const size_t dash = m.key.find('-');
        int64_t first = 0;  // "(0-11)": a bounded count, not atoi's wrap-around
        repr_internal::ReadCount(m.key.substr(0, dash), kMaxModules, first);
        p = path.substr(0, path.size() - m.key.size()) + std::to_string(first + i);
      }
      ConvertOnce(m, p, out);
    }
  }

  void Children(const Module& m, const std::string& path, std::vector<Layer>& out) {
    for (const auto& c : m.children) Convert(*c, Join(path, c->key), out);
  }
  void ChildIf(const Module& m, const char* key, const std::string& path, std::vector<Layer>& out) {
    if (const Module* c = m.Child(key)) Convert(*c, Join(path, key), out);
  }

  bool Leaf(const Module& m, const std::string& path, std::vector<Layer>& out);
  void ConvertOnce(const Module& m, const std::string& path, std::vector<Layer>& out);
  void Top(const Module& m, std::vector<Layer>& out);

  // The in / out channels of the first / last convolution or linear inside a converted list.
  static void Channels(const std::vector<Layer>& ls, int64_t& in, int64_t& out, int64_t& stride) {
    for (const Layer& l : ls) {
      if (l.kind == LayerKind::kConv2d || l.kind == LayerKind::kLinear) {
        if (!in) in = l.in;
        out = l.out;
        stride = std::max(stride, std::max(l.stride[0], l.stride[1]));
      }
      for (const auto& b : l.branches) Channels(b, in, out, stride);
    }
  }

 private:
  static constexpr size_t kMaxNotes = 40;
  TorchReprParse& r_;
  const std::string& text_;
  int first_line_;
  std::unordered_set<std::string> seen_notes_;
  size_t unlisted_notes_ = 0;
  int expanded_ = 0;  // modules converted, repeats expanded
};

bool Converter::Leaf(const Module& m, const std::string& path, std::vector<Layer>& out) {
  const Args a(m.args);
  Layer l;
  l.name = path;
  const std::string& t = m.type;
  auto bad = [&](const char* what) {
    RefuseNotWhole(m, a);
    Note(path + " (" + t + "): could not read " + what + " from \"" + m.args + "\"", true);
    return true;
  };
  if (t == "Conv1d" || t == "Conv2d" || t == "ConvTranspose2d") {
    l.kind = t == "Conv1d" ? LayerKind::kConv1d : t == "Conv2d" ? LayerKind::kConv2d : LayerKind::kConvTranspose2d;
    if (!a.Int("in_channels", 0, l.in) || !a.Int("out_channels", 1, l.out) || !a.Pair("kernel_size", 2, l.kernel))
      return bad("channels and kernel_size");
    a.Pair("stride", 3, l.stride);
    const std::string pad = a.Get("padding", 4);
    if (pad == "same" || pad == "'same'")
      l.padding_same = true;
    else
      a.Pair("padding", 4, l.padding);
    a.Pair("dilation", 99, l.dilation);
    a.Pair("output_padding", 99, l.output_padding);
    a.Int("groups", 99, l.groups);
    l.bias = a.Bool("bias", true);
  } else if (t == "Linear" || t == "NonDynamicallyQuantizableLinear" || t == "LazyLinear") {
    l.kind = LayerKind::kLinear;
    if (!a.Int("in_features", 0, l.in) || !a.Int("out_features", 1, l.out)) return bad("in/out features");
    l.bias = a.Bool("bias", true);
  } else if (t == "Embedding") {
    l.kind = LayerKind::kEmbedding;
    if (!a.Int("num_embeddings", 0, l.vocab) || !a.Int("embedding_dim", 1, l.out)) return bad("its size");
  } else if (t == "BatchNorm1d" || t == "BatchNorm2d" || t == "SyncBatchNorm") {
    l.kind = LayerKind::kBatchNorm;
    if (!a.Int("num_features", 0, l.in)) return bad("num_features");
    l.affine = a.Bool("affine", true);
  } else if (t == "FrozenBatchNorm2d") {
    l.kind = LayerKind::kFrozenBatchNorm;
    if (!a.Int("num_features", 0, l.in)) return bad("num_features");
  } else if (t == "LayerNorm" || t == "LayerNorm2d") {
    int64_t v[2];
    if (!Args::Ints(a.Get("normalized_shape", 0), v)) return bad("normalized_shape");
    l.kind = LayerKind::kLayerNorm;
    l.in = v[1];  // the last dimension
    l.affine = a.Bool("elementwise_affine", true);
    if (t == "LayerNorm2d") {  // torchvision: permute to channels-last, normalise, permute back
      Layer p;
      p.kind = LayerKind::kPermute;
      p.name = path + ".permute";
      p.ndims = 4;
      const int64_t to_last[] = {0, 2, 3, 1}, back[] = {0, 3, 1, 2};
      std::copy(to_last, to_last + 4, p.dims);
      out.push_back(p);
      out.push_back(l);
      std::copy(back, back + 4, p.dims);
      p.name = path + ".permute_back";
      out.push_back(p);
      return true;
    }
  } else if (t == "GroupNorm") {
    l.kind = LayerKind::kGroupNorm;
    if (!a.Int("num_groups", 0, l.groups) || !a.Int("num_channels", 1, l.in)) return bad("groups and channels");
    l.affine = a.Bool("affine", true);
  } else if (t == "ReLU" || t == "ReLU6" || t == "LeakyReLU" || t == "GELU" || t == "SiLU" || t == "Sigmoid" ||
             t == "Tanh" || t == "Hardswish" || t == "Hardsigmoid") {
    const std::map<std::string, LayerKind> kinds = {
        {"ReLU", LayerKind::kReLU}, {"ReLU6", LayerKind::kReLU6},         {"LeakyReLU", LayerKind::kLeakyReLU},
        {"GELU", LayerKind::kGELU}, {"SiLU", LayerKind::kSiLU},           {"Sigmoid", LayerKind::kSigmoid},
        {"Tanh", LayerKind::kTanh}, {"Hardswish", LayerKind::kHardswish}, {"Hardsigmoid", LayerKind::kHardsigmoid}};
    l.kind = kinds.at(t);
    l.inplace = a.Bool("inplace", false) || a.Get("inplace", 99) == "True" ||
                (!a.pos.empty() && a.pos.back() == "inplace=True");
  } else if (t == "MaxPool2d" || t == "AvgPool2d") {
    l.kind = t == "MaxPool2d" ? LayerKind::kMaxPool2d : LayerKind::kAvgPool2d;
    if (!a.Pair("kernel_size", 0, l.kernel)) return bad("kernel_size");
    if (!a.Pair("stride", 1, l.stride)) std::copy(l.kernel, l.kernel + 2, l.stride);
    a.Pair("padding", 2, l.padding);
    if (l.kind == LayerKind::kMaxPool2d) a.Pair("dilation", 3, l.dilation);
    l.ceil_mode = a.Bool("ceil_mode", false);
  } else if (t == "AdaptiveAvgPool2d" || t == "AdaptiveMaxPool2d") {
    l.kind = t == "AdaptiveAvgPool2d" ? LayerKind::kAdaptiveAvgPool2d : LayerKind::kAdaptiveMaxPool2d;
    if (!a.Pair("output_size", 0, l.size)) return bad("output_size");
  } else if (t == "Dropout" || t == "Dropout1d" || t == "Dropout2d") {
    l.kind = LayerKind::kDropout;
    l.drop_prob = a.Num("p", 0, 0.5);
    if (t != "Dropout") Note(path + ": " + t + " keeps one noise value per channel, counted as Dropout's mask");
    if (l.drop_prob <= 0) return true;
  } else if (t == "StochasticDepth") {
    l.kind = LayerKind::kStochasticDepth;
    l.drop_prob = a.Num("p", 0, 0);
    l.batch_mode = a.Get("mode", 1) == "batch";
    if (l.drop_prob <= 0) return true;
  } else if (t == "Flatten") {
    l.kind = LayerKind::kFlatten;
    a.Int("start_dim", 0, l.start_dim);
    a.Int("end_dim", 1, l.end_dim);
  } else if (t == "Identity") {
    return true;
  } else if (t == "Upsample" || t == "UpsamplingNearest2d" || t == "UpsamplingBilinear2d") {
    l.kind = LayerKind::kUpsample;
    l.scale = a.Num("scale_factor", 99, 0);
    int64_t sz[2];
    if (a.Pair("size", 0, sz)) std::copy(sz, sz + 2, l.size);
  } else if (t == "Permute") {
    return false;  // dims are not printed: the caller knows them from the block
  } else {
    return false;
  }
  RefuseNotWhole(m, a);
  out.push_back(l);
  return true;
}

Layer Block(LayerKind kind, const std::string& name, std::vector<Layer> a, std::vector<Layer> b, bool inplace = false) {
  Layer l;
  l.kind = kind;
  l.name = name;
  l.inplace = inplace;
  l.branches.push_back(std::move(a));
  l.branches.push_back(std::move(b));
  return l;
}

Layer Permute(const std::string& name, std::initializer_list<int64_t> dims) {
  Layer p;
  p.kind = LayerKind::kPermute;
  p.name = name;
  for (int64_t d : dims) p.dims[p.ndims++] = d;
  return p;
}

void Converter::ConvertOnce(const Module& m, const std::string& path, std::vector<Layer>& out) {
  // Repeats nest ("24 x Block(" holding "(0-99): 100 x Layer("): the reader's count is per
  // printed line, so the expansion counts its own modules and stops past the cap (found by
  // fuzz_network: 724 x 724 copies took seconds).
  if (++expanded_ > kMaxModules) return;
  if (m.children.empty() && Leaf(m, path, out)) return;
  const std::string& t = m.type;
  if (t == "BasicBlock" || t == "Bottleneck") {
    std::vector<Layer> main, shortcut, relu;
    for (const char* k : {"conv1", "bn1", "relu", "conv2", "bn2"}) ChildIf(m, k, path, main);
    if (m.Child("conv3")) {
      for (const char* k : {"relu", "conv3", "bn3"}) ChildIf(m, k, path, main);
    }
    ChildIf(m, "downsample", path, shortcut);
    out.push_back(Block(LayerKind::kAdd, path, std::move(main), std::move(shortcut), true));
    ChildIf(m, "relu", path, out);
    return;
  }
  if (t == "InvertedResidual" || t == "MBConv" || t == "FusedMBConv") {
    std::vector<Layer> body;
    const Module* inner = m.Child("conv") ? m.Child("conv") : m.Child("block");
    if (inner) Convert(*inner, Join(path, inner->key), body);
    int64_t in = 0, o = 0, stride = 1;
    Channels(body, in, o, stride);
    if (stride == 1 && in == o && in != 0) {  // use_res_connect
      ChildIf(m, "stochastic_depth", path, body);
      out.push_back(Block(LayerKind::kAdd, path, std::move(body), {}, t != "InvertedResidual" || !m.Child("conv")));
    } else {
      for (Layer& l : body) out.push_back(std::move(l));
    }
    return;
  }
  if (t == "SqueezeExcitation" || t == "SElayer" || t == "SqueezeExcite") {
    std::vector<Layer> gate;
    const Module* pool = m.Child("avgpool");
    Layer p;
    p.kind = LayerKind::kAdaptiveAvgPool2d;
    p.size[0] = p.size[1] = 1;
    p.name = Join(path, "avgpool");
    if (pool == nullptr) gate.push_back(p);
    for (const char* k : {"avgpool", "fc1", "activation", "fc2", "scale_activation"}) ChildIf(m, k, path, gate);
    if (gate.size() < 3) {  // another SE layout: its children in order
      gate.clear();
      gate.push_back(p);
      Children(m, path, gate);
    }
    out.push_back(Block(LayerKind::kMul, path, {}, std::move(gate)));
    return;
  }
  if (t == "_DenseLayer") {
    std::vector<Layer> body;
    Children(m, path, body);
    out.push_back(Block(LayerKind::kConcat, path, {}, std::move(body)));
    return;
  }
  if (t == "CNBlock") {
    std::vector<Layer> body;
    if (const Module* b = m.Child("block")) {
      int permutes = 0;
      for (const auto& c : b->children) {
        if (c->type == "Permute") {
          body.push_back(permutes++ == 0 ? Permute(Join(Join(path, "block"), c->key), {0, 2, 3, 1})
                                         : Permute(Join(Join(path, "block"), c->key), {0, 3, 1, 2}));
        } else {
          Convert(*c, Join(Join(path, "block"), c->key), body);
        }
      }
    }
    int64_t in = 0, o = 0, s = 1;
    Channels(body, in, o, s);
    Layer scale;
    scale.kind = LayerKind::kLayerScale;
    scale.name = Join(path, "layer_scale");
    scale.in = o;
    body.push_back(scale);
    ChildIf(m, "stochastic_depth", path, body);
    out.push_back(Block(LayerKind::kAdd, path, std::move(body), {}, true));
    Note("CNBlock: its layer_scale parameter (not printed) is counted as one value per channel");
    return;
  }
  if (t == "EncoderBlock") {  // torchvision ViT
    std::vector<Layer> first, second;
    ChildIf(m, "ln_1", path, first);
    if (const Module* att = m.Child("self_attention")) {
      Layer l;
      l.kind = LayerKind::kAttention;
      l.name = Join(path, "self_attention");
      const Module* proj = att->Child("out_proj");
      Args pa(proj ? proj->args : "");
      pa.Int("in_features", 0, l.in);
      RefuseNotWhole(*proj_or(att, proj), pa);
      l.bias = pa.Bool("bias", true);
      l.heads = l.in % 64 == 0 ? l.in / 64 : 1;
      first.push_back(l);
      Note(
          "MultiheadAttention: the repr does not print num_heads; taken as embed_dim / 64 (ViT-B/L), which "
          "changes only the attention scores' size");
    }
    ChildIf(m, "dropout", path, first);
    ChildIf(m, "ln_2", path, second);
    ChildIf(m, "mlp", path, second);
    out.push_back(Block(LayerKind::kAdd, Join(path, "attention_residual"), std::move(first), {}));
    out.push_back(Block(LayerKind::kAdd, Join(path, "mlp_residual"), std::move(second), {}));
    return;
  }
  if (t == "SwinTransformerBlock") {
    std::vector<Layer> first, second;
    ChildIf(m, "norm1", path, first);
    if (const Module* att = m.Child("attn")) {
      Layer l;
      l.kind = LayerKind::kWindowAttention;
      l.name = Join(path, "attn");
      const Module* qkv = att->Child("qkv");
      Args qa(qkv ? qkv->args : "");
      qa.Int("in_features", 0, l.in);
      RefuseNotWhole(*proj_or(att, qkv), qa);
      l.bias = qa.Bool("bias", true);
      l.heads = l.in % 32 == 0 ? l.in / 32 : 1;
      l.window[0] = l.window[1] = 7;
      const int index = std::atoi(path.substr(path.rfind('.') + 1).c_str());
      l.shift[0] = l.shift[1] = index % 2 ? 3 : 0;
      first.push_back(l);
      Note(
          "Swin attention: the repr does not print heads, window or shift; taken as torchvision's Swin-T/S/B "
          "(heads = channels / 32, window 7, shift 3 on odd blocks), which decides the relative-position table's "
          "parameters",
          false);
    }
    ChildIf(m, "stochastic_depth", path, first);
    ChildIf(m, "norm2", path, second);
    ChildIf(m, "mlp", path, second);
    ChildIf(m, "stochastic_depth", path, second);
    out.push_back(Block(LayerKind::kAdd, Join(path, "attention_residual"), std::move(first), {}));
    out.push_back(Block(LayerKind::kAdd, Join(path, "mlp_residual"), std::move(second), {}));
    return;
  }
  if (t == "PatchMerging") {
    Layer l;
    l.kind = LayerKind::kPatchMerging;
    l.name = path;
    out.push_back(l);
    ChildIf(m, "norm", path, out);
    ChildIf(m, "reduction", path, out);
    return;
  }
  if (t == "ASPP") {
    Layer cat;
    cat.kind = LayerKind::kConcat;
    cat.name = Join(path, "cat");
    if (const Module* convs = m.Child("convs")) {
      for (const auto& c : convs->children) {
        cat.branches.emplace_back();
        Convert(*c, Join(Join(path, "convs"), c->key), cat.branches.back());
      }
    }
    if (!cat.branches.empty()) out.push_back(cat);
    ChildIf(m, "project", path, out);
    return;
  }
  if (t == "ASPPPooling") {
    Children(m, path, out);
    Layer up;
    up.kind = LayerKind::kUpsample;
    up.match = UpsampleMatch::kBlock;
    up.name = Join(path, "interpolate");
    out.push_back(up);
    return;
  }
  static const char* const kSequential[] = {"Sequential",
                                            "ModuleList",
                                            "ModuleDict",
                                            "Conv2dNormActivation",
                                            "ConvNormActivation",
                                            "ConvBNActivation",
                                            "ConvBNReLU",
                                            "MLP",
                                            "MLPBlock",
                                            "_DenseBlock",
                                            "_Transition",
                                            "ASPPConv",
                                            "DeepLabHead",
                                            "FCNHead",
                                            "IntermediateLayerGetter"};
  bool sequential = false;
  for (const char* s : kSequential) sequential |= t == s;
  if (m.children.empty()) {
    Note(path + " (" + t + "): not a layer the calculator knows; its parameters and tensors are not counted", true);
    return;
  }
  if (!sequential) {
    Note(path + " (" + t +
             "): its forward is not in the repr; its children are taken in printed order, so residual "
             "branches, concatenations and functional steps inside it cannot be seen",
         true);
  }
  for (const auto& c : m.children) {
    if (c->type == "Permute") {
      Note(Join(path, c->key) + " (Permute): the dims are not printed; taken as channels-last (0, 2, 3, 1)", true);
      out.push_back(Permute(Join(path, c->key), {0, 2, 3, 1}));
      continue;
    }
    Convert(*c, Join(path, c->key), out);
  }
}

// [SECTION] Models
bool Spatial(const std::vector<Layer>& ls) {
  for (auto it = ls.rbegin(); it != ls.rend(); ++it) {
    switch (it->kind) {
      case LayerKind::kConv2d:
      case LayerKind::kConv1d:
      case LayerKind::kConvTranspose2d:
      case LayerKind::kMaxPool2d:
      case LayerKind::kAvgPool2d:
      case LayerKind::kAdaptiveAvgPool2d:
      case LayerKind::kAdaptiveMaxPool2d:
      case LayerKind::kBatchNorm:
      case LayerKind::kUpsample:
      case LayerKind::kAdd:
      case LayerKind::kConcat:
      case LayerKind::kMul:
        return true;
      case LayerKind::kLinear:
      case LayerKind::kLayerNorm:
      case LayerKind::kFlatten:
      case LayerKind::kEmbedding:
      case LayerKind::kAttention:
      case LayerKind::kSelectToken:
      case LayerKind::kPermute:
        return false;
      default:
        break;
    }
  }
  return false;
}

Layer Make(LayerKind k, const std::string& name) {
  Layer l;
  l.kind = k;
  l.name = name;
  return l;
}

void Converter::Top(const Module& m, std::vector<Layer>& out) {
  const std::string& t = m.type;
  auto pool1 = [&](const char* name) {
    Layer p = Make(LayerKind::kAdaptiveAvgPool2d, name);
    p.size[0] = p.size[1] = 1;
    return p;
  };
  if (t == "VisionTransformer") {
    ChildIf(m, "conv_proj", "", out);
    Layer f = Make(LayerKind::kFlatten, "reshape");
    f.start_dim = 2;
    out.push_back(f);
    out.push_back(Permute("permute", {0, 2, 1}));
    int64_t d = out.front().out;
    Layer cls = Make(LayerKind::kClassToken, "class_token");
    cls.in = d;
    out.push_back(cls);
    Layer pos = Make(LayerKind::kPositionEmbedding, "encoder.pos_embedding");
    pos.in = d;
    out.push_back(pos);
    if (const Module* enc = m.Child("encoder")) {
      for (const char* k : {"dropout", "layers", "ln"}) ChildIf(*enc, k, "encoder", out);
    }
    out.push_back(Make(LayerKind::kSelectToken, "class_token_out"));
    ChildIf(m, "heads", "", out);
    Note("VisionTransformer: class_token and pos_embedding (not printed) are counted from the image size given");
    return;
  }
  if (t == "SwinTransformer") {
    if (const Module* f = m.Child("features")) {
      for (const auto& c : f->children) {
        if (c->key == "0") {  // Conv2d, Permute, LayerNorm
          for (const auto& s : c->children) {
            if (s->type == "Permute")
              out.push_back(Permute("features.0." + s->key, {0, 2, 3, 1}));
            else
              Convert(*s, "features.0." + s->key, out);
          }
        } else {
          Convert(*c, "features." + c->key, out);
        }
      }
    }
    ChildIf(m, "norm", "", out);
    out.push_back(Permute("permute", {0, 3, 1, 2}));
    ChildIf(m, "avgpool", "", out);
    ChildIf(m, "flatten", "", out);
    ChildIf(m, "head", "", out);
    return;
  }
  if (t == "FCN" || t == "DeepLabV3") {
    ChildIf(m, "backbone", "backbone", out);
    ChildIf(m, "classifier", "classifier", out);
    if (m.Child("aux_classifier"))
      Note("aux_classifier: its parameters are not counted (its branch leaves from layer3; train it apart)", true);
    Layer up = Make(LayerKind::kUpsample, "interpolate");
    up.match = UpsampleMatch::kInput;
    out.push_back(up);
    return;
  }
  if (t == "DenseNet") {
    ChildIf(m, "features", "features", out);
    Layer relu = Make(LayerKind::kReLU, "relu");
    relu.inplace = true;
    out.push_back(relu);
    out.push_back(pool1("avgpool"));
    out.push_back(Make(LayerKind::kFlatten, "flatten"));
    ChildIf(m, "classifier", "classifier", out);
    return;
  }
  // ResNet, VGG, MobileNet, EfficientNet, ConvNeXt, and anything else: children in order,
  // a global pool where MobileNetV2 runs one functionally, a flatten before the first
  // Linear that follows a spatial layer (torch.flatten in their forward).
  for (const auto& c : m.children) {
    if (t == "MobileNetV2" && c->key == "classifier") out.push_back(pool1("avgpool"));
    if (c->key == "classifier" || c->key == "fc" || c->key == "head" || c->key == "heads") {
      std::vector<Layer> tail;
      Convert(*c, c->key, tail);
      // torch.flatten(x, 1) before a classifier whose first shape-sensitive layer is a
      // Linear (ConvNeXt's starts with LayerNorm2d and flattens itself)
      if (Spatial(out)) {
        for (const Layer& l : tail) {
          if (l.kind == LayerKind::kLinear) out.push_back(Make(LayerKind::kFlatten, "flatten"));
          if (l.kind != LayerKind::kDropout && l.kind != LayerKind::kReLU && l.kind != LayerKind::kHardswish) break;
        }
      }
      for (Layer& l : tail) out.push_back(std::move(l));
      continue;
    }
    Convert(*c, c->key, out);
  }
  const bool known = t == "ResNet" || t == "VGG" || t == "MobileNetV2" || t == "MobileNetV3" || t == "EfficientNet" ||
                     t == "ConvNeXt" || t == "Sequential";
  if (!known && !m.children.empty()) {
    Note(t + ": its forward is not in the repr; its children are taken in printed order, so residual branches, "
             "concatenations and functional steps (flatten, pooling) cannot be seen",
         true);
  }
}

}  // namespace

TorchReprParse ParseTorchRepr(const std::string& text) {
  TorchReprParse r;
  if (text.size() > kMaxReprBytes) {
    r.diagnostics.push_back(
        {DiagId::kOutOfRange, Severity::kError, "torch_repr",
         "the repr is larger than 4 MiB; print(model) of the largest torchvision model is ~100 KB"});
    return r;
  }
  // Skip anything printed before the model (a prompt, a log line): start at the first
  // line that looks like "Name(".
  size_t start = 0;
  while (start < text.size()) {
    size_t s = start;
    while (s < text.size() && (text[s] == ' ' || text[s] == '\t')) ++s;
    size_t e = s;
    while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_' || text[e] == '.'))
      ++e;
    if (e > s && e < text.size() && text[e] == '(' && std::isupper(static_cast<unsigned char>(text[s]))) {
      start = s;
      break;
    }
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      start = text.size();
      break;
    }
    start = nl + 1;
  }
  if (start >= text.size()) {
    r.diagnostics.push_back({DiagId::kParse, Severity::kError, "torch_repr",
                             "no module found: paste what print(model) shows, starting with the model's class, "
                             "e.g. ResNet("});
    return r;
  }
  const std::string body = text.substr(start);
  Reader reader(body, r.diagnostics);
  std::unique_ptr<Module> root = reader.Root();
  if (!root || HasErrors(r.diagnostics)) return r;
  Converter conv(r, body, repr_internal::LineOf(text, start));
  NetworkSpec& s = r.spec;
  s.name = root->type;
  s.family = "pasted repr";
  if (root->children.empty()) {
    conv.Convert(*root, "", s.layers);
  } else {
    conv.Top(*root, s.layers);
  }
  conv.Finish();
  if (HasErrors(r.diagnostics)) return r;
  if (conv.TooLarge()) {
    r.diagnostics.push_back({DiagId::kOutOfRange, Severity::kError, "torch_repr",
                             "more than 20000 modules once the repeated ones (\"N x Module(\") are expanded"});
    return r;
  }
  if (s.layers.empty()) {
    r.diagnostics.push_back(
        {DiagId::kUnsupported, Severity::kError, "torch_repr", "no layer the calculator knows was found in the repr"});
    return r;
  }
  if (CountLayers(s.layers) > kMaxNetworkLayers) {
    r.diagnostics.push_back({DiagId::kOutOfRange, Severity::kError, "torch_repr", "more than 20000 layers"});
    return r;
  }
  if (!r.graph_exact) {
    r.diagnostics.push_back({DiagId::kUnsupported, Severity::kWarning, "torch_repr",
                             "the repr cannot tell this model's graph everywhere (see the notes): parameters are "
                             "exact for the layers read, activations assume the printed order is the forward order"});
  }
  r.ok = true;
  return r;
}

}  // namespace llmmem::core
