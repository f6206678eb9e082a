// What a model changed from the preset it was picked as. A model keeps its preset's key
// when its fields are edited (the CLI's --hidden, a link's hidden=, the JS API's model
// object, the UI's dimension inputs), and this one function says which fields differ:
// the CLI's "Model:" line, the JSON's model.customised, the links' model fields, the UI's
// "(modified)" and the launch exports (a customised model is not the preset's Hub repo)
// all read it. Standard library only.
#pragma once

#include <string>
#include <vector>

#include "core/config/fields.h"
#include "core/model/model.h"

namespace llmmem::core {

// The model a link writes `m`'s fields against: its preset's, or for a custom model (no
// preset, or one not in the catalogue) ModelSpec's defaults.
ModelSpec PresetBase(const ModelSpec& m);
// The model rows (fields.h, in table order, "name" included) whose value differs from PresetBase(m).
std::vector<const FieldDef*> ChangedModelFields(const ModelSpec& m);
// The names of the fields changed from a preset, "name" aside; empty for a custom model
// and for a preset as it is (restating a preset's own values changes nothing).
std::vector<std::string> CustomisedFields(const ModelSpec& m);
bool IsCustomised(const ModelSpec& m);
// "llama-3.1-8b" or "llama-3.1-8b, customised: hidden, head_dim"; empty for a custom model.
std::string PresetNote(const ModelSpec& m);

}  // namespace llmmem::core
