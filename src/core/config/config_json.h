// Config <-> JSON and Config <-> URL query, with the same field names everywhere
// (struct, JSON, URL, CLI --flags, JS API). Loading is tolerant: each bad field gets a
// diagnostic naming it and keeps its previous value; nothing else the user set is lost.
// URL format (versioned, v=1): "v=1&model=llama-3.1-8b&mode=train&batch=4&seq=8192&..."
// Only fields that differ from the defaults are written; model fields are written as
// "hidden=..." only when they differ from the named preset (or always for a custom model).
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/base/diagnostics.h"
#include "core/parse/json.h"

namespace llmmem::core {

constexpr int kUrlVersion = 1;

struct ConfigParse {
  Config config;            // the base with every valid field applied
  Diagnostics diagnostics;  // one per rejected field (unknown keys: warnings)
  // ConfigFromQuery: the link's items that were not taken, as the link spells them ("batch=1e308",
  // an unknown key, the unread rest of an over-long link), so the page can keep them in the
  // address bar until the user fixes or drops them.
  std::vector<std::string> kept_items;
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

// Which dependent model fields the input itself gave (JSON, URL, CLI, JS API, UI): those
// the input left unset are derived from the ones it set, never inherited from the model
// the edits started from (issue 29).
struct ModelDimsGiven {
  bool head_dim = false;
  bool kv_heads = false;
  // Records a field name as given (the names of fields.h; others are ignored).
  void Note(const std::string& field) {
    head_dim |= field == "head_dim";
    kv_heads |= field == "kv_heads";
  }
};

// The one pass that ties model fields together when a config is assembled from them.
// `before` is the model the edits started from (a preset, an imported or the default model).
// - head_dim follows hidden / heads when either changed and head_dim was not given; a
//   preset's own head_dim stays when neither changed. MLA models keep theirs (their heads
//   are qk_nope_dim + qk_rope_dim wide). When hidden is not a multiple of heads, head_dim
//   cannot be derived: an error naming head_dim, and head_dim is kept.
// - kv_heads follows heads when heads changed and kv_heads was not given: the starting
//   model's query-group size (heads / kv_heads) when it divides the new heads, else one KV
//   head per query head (multi-head attention), with a note saying which.
void DeriveDependentDims(ModelSpec& m, const ModelSpec& before, const ModelDimsGiven& given, Diagnostics& out);

// A model chosen without a sequence of the user's (the CLI's --model or --hf-config without
// --seq, a config.json imported in the UI or the JS API) starts at its own context when that
// is shorter than c.seq: GPT-2 and BERT cannot run past their learned position table.
// Adds a note (info) saying what seq became and why.
void StartAtModelContext(Config& c, Diagnostics& out);

}  // namespace llmmem::core
