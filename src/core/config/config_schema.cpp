#include "core/config/config_schema.h"

#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/config/fields.h"

namespace llmmem::core {
namespace {

// One row as a schema property: JSON's type for its kind, the row's range and help, and the
// default configuration's value.
Json Property(const FieldDef& f, const Config& defaults) {
  Json p(Json::Object{});
  const std::string value = f.get(defaults);
  switch (f.kind) {
    case FieldKind::kInt:
    case FieldKind::kNumber:
      p["type"] = Json(f.kind == FieldKind::kInt ? "integer" : "number");
      p["minimum"] = Json(f.min);
      p["maximum"] = Json(f.max);
      p["default"] = Json(std::strtod(value.c_str(), nullptr));
      break;
    case FieldKind::kBool:
      p["type"] = Json("boolean");
      p["default"] = Json(value == "1");
      break;
    default:
      p["type"] = Json("string");  // a choice or a name: the help lists what is accepted
      p["default"] = Json(value);
      break;
  }
  p["description"] = Json(std::string(f.help) + (*f.unit != '\0' ? std::string(" (") + f.unit + ")" : ""));
  p["title"] = Json(f.LabelWithUnit());
  return p;
}

}  // namespace

Json ConfigSchema() {
  const Config defaults = DefaultConfig();
  Json properties(Json::Object{});
  Json model_properties(Json::Object{});
  Json preset(Json::Object{});
  preset["type"] = Json("string");
  preset["description"] = Json("a model of the catalogue (llmmem --list-models); the fields given beside it change it");
  model_properties["preset"] = std::move(preset);
  for (const FieldDef& f : Fields()) (f.model_field ? model_properties : properties)[f.name] = Property(f, defaults);
  Json model(Json::Object{});
  model["type"] = Json("object");
  model["description"] = Json("the model: a preset, a Hugging Face config's dimensions, or both");
  model["properties"] = std::move(model_properties);
  properties["model"] = std::move(model);
  Json version(Json::Object{});
  version["type"] = Json("integer");
  version["description"] = Json("the configuration format's version");
  properties["version"] = std::move(version);
  Json schema(Json::Object{});
  schema["$schema"] = Json("https://json-schema.org/draft/2020-12/schema");
  schema["title"] = Json("llmmem configuration");
  schema["description"] = Json("what llmmem --config, the JS API's estimate() and links read; every property optional");
  schema["type"] = Json("object");
  schema["properties"] = std::move(properties);
  return schema;
}

}  // namespace llmmem::core
