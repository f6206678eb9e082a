// The model's shape choices (model.h: MLP kind, norm, Q/K norm, encoder or decoder), one
// table each (enum_table.h): the id in configs, links and the CLI, accepted aliases, the UI's
// label and a short help. Rows: model_enums.cpp.
#pragma once

#include "core/base/enum_table.h"
#include "core/model/model.h"

namespace llmmem::core {

using MlpKindInfo = EnumInfo<MlpKind>;
using NormKindInfo = EnumInfo<NormKind>;
using QkNormInfo = EnumInfo<QkNorm>;
using ArchInfo = EnumInfo<Arch>;
using VisionKindInfo = EnumInfo<VisionKind>;
using LinearKindInfo = EnumInfo<LinearKind>;

EnumTable<MlpKindInfo> TableOf(MlpKind);
EnumTable<NormKindInfo> TableOf(NormKind);
EnumTable<QkNormInfo> TableOf(QkNorm);
EnumTable<ArchInfo> TableOf(Arch);
EnumTable<VisionKindInfo> TableOf(VisionKind);
EnumTable<LinearKindInfo> TableOf(LinearKind);

}  // namespace llmmem::core
