// The table of every settable field: its name (JSON, URL, CLI), its kind, and how to
// read and write it as text. config_json.cpp and the CLI's --help are built on it.
#pragma once

#include <string>
#include <vector>

#include "core/config.h"

namespace llmmem::core {

enum class FieldKind { kInt, kNumber, kBool, kDtype, kMode, kRecompute, kOptimizer, kLoraTargets, kMlp, kNorm,
                       kQkNorm, kArch, kText };

struct FieldDef {
  const char* name;       // "batch", "hidden"
  FieldKind kind;
  bool model_field;       // lives in Config::model (JSON: under "model")
  const char* help;
  std::string (*get)(const Config&);
  // Parses and stores; on failure returns the message (what is allowed), else empty.
  std::string (*set)(Config&, const std::string&);
};

const std::vector<FieldDef>& Fields();
const FieldDef* FindField(const std::string& name);  // accepts "model.hidden" too

}  // namespace llmmem::core
