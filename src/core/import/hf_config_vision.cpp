// The vision towers of Qwen2.5-VL, Qwen3-VL, Llama 4, Mistral 3 (Pixtral) and Gemma 4, read from the
// whole config.json's vision_config; the tensors each stores are listed by ForEachVisionTensor
// (model.h). Defaults are each configuration file's (configuration_qwen2_5_vl.py,
// configuration_qwen3_vl.py, configuration_llama4.py, configuration_pixtral.py) where a
// config.json leaves a field out. Parameters only: the tower's activations for an image are
// not estimated (only Gemma 3's SigLIP has an image size the estimate could use).
#include <cmath>

#include "core/import/hf_config_reader.h"

namespace llmmem::core::hf {
namespace {

const Json* VisionConfig(const Json& top) {
  const Json* vision = top.Find("vision_config");
  return vision != nullptr && vision->IsObject() ? vision : nullptr;
}

void Unsupported(Diagnostics& d, const char* field, const std::string& what) {
  d.push_back({DiagId::kUnsupported, Severity::kError, field, what + "; enter the dimensions by hand"});
}

}  // namespace

void ReadQwenVisionTower(const Json& top, VisionKind kind, ModelSpec& m, Diagnostics& d) {
  const Json* vision = VisionConfig(top);
  if (vision == nullptr) return;
  Reader r(*vision, d);
  const bool qwen3 = kind == VisionKind::kQwen3Vl;
  m.vision_kind = kind;
  m.vision_layers = r.Int("depth", 32);
  m.vision_hidden = r.Int("hidden_size", qwen3 ? 1152 : 3584);
  m.vision_ffn = r.Int("intermediate_size", qwen3 ? 4304 : 3420);
  m.vision_patch = r.Int("patch_size", qwen3 ? 16 : 14);
  m.vision_merge = r.Int("spatial_merge_size", 2);
  m.vision_out = r.Int("out_hidden_size", m.hidden);
  if (r.Int("temporal_patch_size", 2) != 2 || r.Int("in_channels", r.Int("in_chans", 3)) != 3) {
    Unsupported(d, "temporal_patch_size", "a patch embedding other than 3 channels x 2 frames is not modelled");
  }
  if (qwen3) {
    // pos_embed has num_position_embeddings rows, a square grid (num_grid_per_side).
    const int64_t positions = r.Int("num_position_embeddings", 2304);
    const int64_t side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(positions))));
    if (side * side != positions) {
      Unsupported(d, "num_position_embeddings", "a position table that is not a square grid is not modelled");
    }
    m.vision_image = side * m.vision_patch;
    const Json* deep = vision->Find("deepstack_visual_indexes");
    m.vision_deepstack = deep != nullptr && deep->IsArray() ? static_cast<int64_t>(deep->AsArray().size()) : 0;
  }
}

void ReadLlama4VisionTower(const Json& top, ModelSpec& m, Diagnostics& d) {
  const Json* vision = VisionConfig(top);
  if (vision == nullptr) return;
  Reader r(*vision, d);
  m.vision_kind = VisionKind::kLlama4;
  m.vision_layers = r.Int("num_hidden_layers", 34);
  m.vision_hidden = r.Int("hidden_size", 768);
  m.vision_ffn = r.Int("intermediate_size", 5632);
  m.vision_patch = r.Int("patch_size", 14);
  m.vision_image = r.Int("image_size", 448);
  m.vision_merge = 2;  // pixel_shuffle_ratio 0.5 (its default): 2 x 2 patches per token
  const int64_t out = r.Int("vision_output_dim", 7680);
  m.vision_out = out;
  if (r.Int("projector_input_dim", 4096) != out || r.Int("projector_output_dim", 4096) != out) {
    Unsupported(d, "projector_input_dim", "a Llama 4 projector whose dims differ from vision_output_dim is not modelled");
  }
  Reader wrapper(top, d);
  // Llama-4-Scout writes multi_modal_projector_bias (false) in vision_config.
  if (r.Bool("multi_modal_projector_bias", false) || wrapper.Bool("multi_modal_projector_bias", false)) {
    Unsupported(d, "multi_modal_projector_bias", "a Llama 4 projector with biases is not modelled");
  }
  const Json* ratio = vision->Find("pixel_shuffle_ratio");
  if (ratio != nullptr && ratio->IsNumber() && ratio->AsNumber() != 0.5) {
    Unsupported(d, "pixel_shuffle_ratio", "a pixel-shuffle ratio other than 0.5 is not modelled");
  }
}

// Gemma 4 (configuration_gemma4.py @351f643ab9f5 Gemma4VisionConfig, whose defaults these are;
// the tensors: ForEachVisionTensor).
void ReadGemma4VisionTower(const Json& top, ModelSpec& m, Diagnostics& d) {
  const Json* vision = VisionConfig(top);
  if (vision == nullptr) return;
  Reader r(*vision, d);
  m.vision_kind = VisionKind::kGemma4;
  m.vision_layers = r.Int("num_hidden_layers", 16);
  m.vision_hidden = r.Int("hidden_size", 768);
  m.vision_ffn = r.Int("intermediate_size", 3072);
  m.vision_patch = r.Int("patch_size", 16);
  m.vision_image = r.Int("position_embedding_size", 10'240);
  const int64_t heads = r.Int("num_attention_heads", 12);
  m.vision_head_dim = r.Int("head_dim", 64);
  if (heads * m.vision_head_dim != m.vision_hidden || r.Int("num_key_value_heads", heads) != heads) {
    Unsupported(d, "head_dim", "a Gemma 4 tower whose heads x head_dim differs from hidden_size is not modelled");
  }
  if (r.Bool("attention_bias", false)) Unsupported(d, "attention_bias", "a Gemma 4 tower with biases is not modelled");
  m.vision_clipped = r.Bool("use_clipped_linears", false);
  m.vision_standardize = r.Bool("standardize", false);
}

void ReadPixtralTower(const Json& top, ModelSpec& m, Diagnostics& d) {
  const Json* vision = VisionConfig(top);
  if (vision == nullptr) return;
  Reader r(*vision, d);
  Reader wrapper(top, d);
  m.vision_kind = VisionKind::kPixtral;
  m.vision_layers = r.Int("num_hidden_layers", 24);
  m.vision_hidden = r.Int("hidden_size", 1024);
  m.vision_ffn = r.Int("intermediate_size", 4096);
  m.vision_patch = r.Int("patch_size", 16);
  m.vision_image = r.Int("image_size", 1024);
  m.vision_merge = wrapper.Int("spatial_merge_size", 2);
  const int64_t heads = r.Int("num_attention_heads", 16);
  if (r.Int("head_dim", heads > 0 ? m.vision_hidden / heads : 0) * heads != m.vision_hidden) {
    Unsupported(d, "head_dim", "a Pixtral tower whose heads x head_dim differs from hidden_size is not modelled");
  }
  if (wrapper.Bool("multimodal_projector_bias", true)) {
    Unsupported(d, "multimodal_projector_bias", "Mistral 3's projector with biases is not modelled");
  }
}

}  // namespace llmmem::core::hf
