// Config <-> JSON and Config <-> URL query, with the same field names everywhere
// (struct, JSON, URL, CLI --flags, JS API). Loading is tolerant: each bad field gets a
// diagnostic naming it and keeps its previous value; nothing else the user set is lost.
// URL format (versioned, v=1): "v=1&model=llama-3.1-8b&mode=train&batch=4&seq=8192&..."
// Only fields that differ from the defaults are written; model fields are written as
// "hidden=..." only when they differ from the named preset (or always for a custom model).
#pragma once

#include <string>

#include "core/config.h"
#include "core/diagnostics.h"
#include "core/json.h"

namespace llmmem::core {

constexpr int kUrlVersion = 1;

struct ConfigParse {
  Config config;            // the base with every valid field applied
  Diagnostics diagnostics;  // one per rejected field (unknown keys: warnings)
};

// The defaults the apps open with: kDefaultPreset's model, everything else Config{}.
Config DefaultConfig();

Json ConfigToJson(const Config& c);
ConfigParse ConfigFromJson(const Json& j, const Config& base);
ConfigParse ConfigFromJsonText(const std::string& text, const Config& base);

std::string ConfigToQuery(const Config& c);
ConfigParse ConfigFromQuery(const std::string& query, const Config& base);

// Sets one field from its text form ("batch", "8"); the CLI and the URL parser use it.
// Returns false with a diagnostic naming the field and the allowed values.
bool SetField(Config& c, const std::string& key, const std::string& value, Diagnostics& out);
// The names SetField accepts, for --help and error messages.
std::string FieldNames();

}  // namespace llmmem::core
