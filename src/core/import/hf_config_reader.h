// The pieces of the config.json importer its family files share: a reader of typed fields
// that reports what is missing or mistyped, the family enumeration the model_type table maps
// onto, and the readers several families reuse. Pure: includes only core/base, core/parse and core/model.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/model/model.h"

namespace llmmem::core::hf {

// One family per way of reading a config.json; several model_type ids share one (kModelTypes).
enum class Family : uint8_t {
  kLlama, kMixtral, kQwen2, kQwen2Moe, kQwen3, kQwen3Moe, kGemma, kGemma2, kGemma3Text, kGemma3,
  kPhi3, kOlmo2, kOlmo3, kGpt2, kGptBigCode, kGptNeox, kFalcon, kBert, kDeepseek, kDeepseekV32,
  kGptOss, kQwen3Next, kLlama4, kGlm4Moe, kMinimaxM2, kMistral3, kSmolLm3, kQwen25Vl, kQwen3Vl, kQwen3VlMoe,
  kNemotronH, kGraniteMoeHybrid, kFalconH1, kKimiLinear, kGlm4MoeLite, kGlmMoeDsa, kGemma3n, kGemma4,
};

class Reader {
 public:
  Reader(const Json& j, Diagnostics& d) : j_(j), d_(d) {}

  int64_t Int(const char* key, int64_t fallback, bool required = false) {
    const Json* v = j_.Find(key);
    if (v == nullptr || v->IsNull()) {
      if (required) {
        d_.push_back({DiagId::kMissingField, Severity::kError, key,
                      std::string("config.json has no \"") + key +
                          "\"; add it to the file or enter the model's dimensions by hand"});
      }
      return fallback;
    }
    if (!v->IsNumber() || !std::isfinite(v->AsNumber()) || v->AsNumber() != std::floor(v->AsNumber()) ||
        std::fabs(v->AsNumber()) > 9e15) {
      d_.push_back({DiagId::kWrongType, Severity::kError, key,
                    std::string("\"") + key + "\" in config.json must be a whole number"});
      return fallback;
    }
    return static_cast<int64_t>(v->AsNumber());
  }
  bool Bool(const char* key, bool fallback) {
    const Json* v = j_.Find(key);
    if (v == nullptr || v->IsNull()) return fallback;
    if (!v->IsBool()) {
      d_.push_back({DiagId::kWrongType, Severity::kError, key, std::string("\"") + key + "\" must be true or false"});
      return fallback;
    }
    return v->AsBool();
  }
  bool Has(const char* key) const {
    const Json* v = j_.Find(key);
    return v != nullptr && !v->IsNull();
  }
  const Json& json() const { return j_; }
  Diagnostics& diagnostics() { return d_; }

 private:
  const Json& j_;
  Diagnostics& d_;
};

// The decoder fields most families share (llama naming).
void ReadLlamaLike(Reader& r, ModelSpec& m);
// DeepSeek-V2/V3's MLA and MoE fields (DeepSeek, Kimi K2, GLM-4.x MoE reuse parts).
void ReadDeepseek(Reader& r, ModelSpec& m);
void ReadGlmMoeDsa(Reader& r, ModelSpec& m);
void ReadGemma3n(Reader& r, ModelSpec& m);  // Gemma 3n: PLE, AltUp, LAuReL, KV-shared layers
void ReadGemma4(Reader& r, ModelSpec& m);
void ReadGemma4VisionTower(const Json& top, ModelSpec& m, Diagnostics& d);  // hf_config_vision.cpp   // Gemma 4: per-kind heads, K = V, PLE, KV-shared layers, MoE
// The 2025-2026 families (hf_config_families.cpp). `top` is the whole config.json when the
// text model sits under text_config (r reads that text config).
void ReadGptOss(Reader& r, ModelSpec& m);
void ReadQwen3Next(Reader& r, ModelSpec& m);
void ReadLlama4(Reader& r, ModelSpec& m);
void ReadGlm4Moe(Reader& r, ModelSpec& m);
void ReadMinimaxM2(Reader& r, ModelSpec& m);
void ReadKimiLinear(Reader& r, ModelSpec& m);
void ReadGemma3TextDefaults(Reader& r, ModelSpec& m);
// The Mamba-2 hybrids (hf_config_mamba.cpp).
void ReadNemotronH(Reader& r, ModelSpec& m);
void ReadGraniteMoeHybrid(Reader& r, ModelSpec& m);
void ReadFalconH1(Reader& r, ModelSpec& m);
void ReadSiglipTower(const Json& top, ModelSpec& m, Diagnostics& d);
// The other towers of the whole config.json's vision_config (hf_config_vision.cpp): Qwen2.5-VL,
// Qwen3-VL (and its MoE), Llama 4, Pixtral (Mistral 3). Run after the text model is read.
void ReadQwenVisionTower(const Json& top, VisionKind kind, ModelSpec& m, Diagnostics& d);
void ReadLlama4VisionTower(const Json& top, ModelSpec& m, Diagnostics& d);
void ReadPixtralTower(const Json& top, ModelSpec& m, Diagnostics& d);
// Layer kinds from layer_types (sliding_attention, chunked_attention, linear_attention, mamba, ...):
// counts them into the model's per-layer cache kinds. false when the config has no list.
// `mamba` layers are accepted only where the family's linear layers are Mamba-2 (Granite 4.0-H).
bool ReadLayerTypes(const Json& j, ModelSpec& m, Diagnostics& d, bool mamba_layers = false);
// An info diagnostic naming what the checkpoint stores apart and is not counted.
void NoteLeftOut(Diagnostics& d, const char* field, const std::string& what);

}  // namespace llmmem::core::hf
