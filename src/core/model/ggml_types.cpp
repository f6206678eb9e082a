// The two type tables of core/weight_headers.h: ggml_type ids with their block layouts (GGUF
// tensors) and safetensors dtypes with their bit widths. Standard library only.
// Sources: ggml.h enum ggml_type; ggml-common.h block structs and QK* (elements and bytes
// per block of every quant type); safetensors/src/tensor.rs Dtype and Dtype::bitsize.
#include <string>
#include <string_view>

#include "core/parse/weight_headers.h"
#include "core/parse/weight_headers_internal.h"

namespace llmmem::core {

namespace {

constexpr uint32_t kQkK = 256;  // QK_K: elements per K-quant / i-quant super-block

// ggml-common.h: sizeof(block_*) and QK*; the plain types have one element per block.
constexpr GgmlTypeInfo kGgmlTypes[] = {
    {0, "F32", 1, 4},          {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},  // ggml_half d; uint8 qs[16]
    {3, "Q4_1", 32, 20},                                                       // d, m; qs[16]
    {4, "Q4_2", 0, 0},                                                         // removed
    {5, "Q4_3", 0, 0},                                                         // removed
    {6, "Q5_0", 32, 22},                                                       // d; qh[4]; qs[16]
    {7, "Q5_1", 32, 24},                                                       // d, m; qh[4]; qs[16]
    {8, "Q8_0", 32, 34},                                                       // d; int8 qs[32]
    {9, "Q8_1", 32, 36},                                                       // d, s; qs[32]
    {10, "Q2_K", kQkK, 84},                                                    // scales[16]; qs[64]; d, dmin
    {11, "Q3_K", kQkK, 110},                                                   // hmask[32]; qs[64]; scales[12]; d
    {12, "Q4_K", kQkK, 144},                                                   // d, dmin; scales[12]; qs[128]
    {13, "Q5_K", kQkK, 176},                                                   // d, dmin; scales[12]; qh[32]; qs[128]
    {14, "Q6_K", kQkK, 210},                                                   // ql[128]; qh[64]; scales[16]; d
    {15, "Q8_K", kQkK, 292},                                                   // float d; qs[256]; int16 bsums[16]
    {16, "IQ2_XXS", kQkK, 66},                                                 // d; uint16 qs[32]
    {17, "IQ2_XS", kQkK, 74},                                                  // d; uint16 qs[32]; scales[8]
    {18, "IQ3_XXS", kQkK, 98},                                                 // d; qs[96]
    {19, "IQ1_S", kQkK, 50},                                                   // d; qs[32]; uint16 qh[8]
    {20, "IQ4_NL", 32, 18},                                                    // d; qs[16]
    {21, "IQ3_S", kQkK, 110},                                                  // d; qs[64]; qh[8]; signs[32]; scales[4]
    {22, "IQ2_S", kQkK, 82},                                                   // d; qs[64]; qh[8]; scales[8]
    {23, "IQ4_XS", kQkK, 136},  // d; uint16 scales_h; scales_l[4]; qs[128]
    {24, "I8", 1, 1},          {25, "I16", 1, 2},        {26, "I32", 1, 4},
    {27, "I64", 1, 8},         {28, "F64", 1, 8},        {29, "IQ1_M", kQkK, 56},  // qs[32]; qh[16]; scales[8]
    {30, "BF16", 1, 2},        {31, "Q4_0_4_4", 0, 0},  // removed from GGUF files (repacked at load time now)
    {32, "Q4_0_4_8", 0, 0},    {33, "Q4_0_8_8", 0, 0},   {34, "TQ1_0", kQkK, 54},  // qs[48]; qh[4]; d
    {35, "TQ2_0", kQkK, 66},                                                       // qs[64]; d
    {36, "IQ4_NL_4_4", 0, 0},                                                      // removed
    {37, "IQ4_NL_4_8", 0, 0},  {38, "IQ4_NL_8_8", 0, 0}, {39, "MXFP4", 32, 17},    // uint8 e; qs[16]
    {40, "NVFP4", 64, 36},  // uint8 d[4] (UE4M3 per 16); qs[32] (ggml-common.h block_nvfp4; ggml.h GGML_TYPE_NVFP4 = 40)
};

// safetensors Dtype and Dtype::bitsize (names as serialized in headers).
constexpr SafetensorsDtypeInfo kSafetensorsDtypes[] = {
    {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6},     {"U8", 8},          {"I8", 8},
    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},        {"U32", 32},        {"F32", 32},
    {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
};

}  // namespace

const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const SafetensorsDtypeInfo* FindSafetensorsDtype(std::string_view name) {
  for (const SafetensorsDtypeInfo& d : kSafetensorsDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

namespace detail {

std::string SafetensorsDtypeList() {
  std::string s;
  for (const SafetensorsDtypeInfo& d : kSafetensorsDtypes) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}

}  // namespace detail

}  // namespace llmmem::core
