// The field table (core/fields.h) is the one row per setting: every row is complete, the
// range check is one loop over it (each numeric setting out of range gives exactly one
// error naming it, with the row's help and range), the UI's labels have their translation
// rows, and --help prints the rows' help and ranges.
#include <doctest.h>

#include <cstring>
#include <string>

#include "app/i18n.h"
#include "core/config/config_schema.h"
#include "core/config/fields.h"
#include "core/base/units.h"
#include "setups.h"
#if LLMMEM_TEST_CLI
#include "cli/cli_args.h"
#endif

using namespace llmmem::test;

namespace {

// The same number as the row's setter takes it ("8", "0.5").
std::string Text(double v) { return FormatJsonNumber(v); }

int ErrorsNaming(const Diagnostics& d, const std::string& field) {
  int n = 0;
  for (const Diagnostic& x : d) n += x.severity == Severity::kError && x.field == field ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("Fields: every row is complete, and numeric rows carry a range, steps and the value") {
  int numeric = 0;
  for (const FieldDef& f : Fields()) {
    const std::string name = f.name;
    CAPTURE(name);
    CHECK(f.help[0] != 0);
    CHECK(f.label[0] != 0);
    CHECK(f.unit != nullptr);
    CHECK(f.group < FieldGroup::kCount);
    CHECK(FindField(f.name) == &f);
    if (!f.Numeric()) {
      CHECK((f.config_number == nullptr && f.model_number == nullptr));
      continue;
    }
    ++numeric;
    CHECK(f.min <= f.max);
    CHECK(f.step >= 0);
    CHECK(f.step_fast >= 0);
    CHECK((f.model_field ? f.model_number != nullptr : f.config_number != nullptr));
    if (f.kind == FieldKind::kNumber) CHECK(f.format != nullptr);
    // The value the range check reads is the value the row writes.
    Config c = DefaultConfig();
    REQUIRE(f.set(c, Text(f.min)).empty());
    CHECK(f.Number(c) == f.min);
  }
  CHECK(numeric == 89);  // (89: issue 33's measured_residual_gb) the 58 ranges limits.h held before they became columns of the rows, cublas_workspace_mib,
                         // and issue 31's 14 model widths (moe_layer_step, linear_*, index_*, vision_*), then
                         // the vision towers' vision_merge, vision_out and vision_deepstack, then the
                         // Nemotron-H block counts mixer_free_layers and mlp_free_layers, then unified
                         // memory's wired_limit_mb, then Gemma 3n's ple_dim, ple_vocab, altup_inputs,
                         // laurel_rank and kv_shared_layers, then Mamba-2's linear_chunk, then Gemma 4's
                         // global_head_dim and global_kv_heads, and its tower's vision_head_dim
}

TEST_CASE(
    "Fields: the range check is one loop over the table (each setting out of range: one error, the row's words)") {
  for (const FieldDef& f : Fields()) {
    if (!f.Numeric()) continue;
    const std::string name = f.name;
    CAPTURE(name);
    const std::string id = std::string(f.model_field ? "model." : "") + f.name;
    // The bounds themselves raise no range error for the field (other rules may object).
    for (double v : {f.min, f.max}) {
      Config c = DefaultConfig();
      REQUIRE(f.set(c, Text(v)).empty());
      for (const Diagnostic& d : Validate(c))
        CHECK_MESSAGE(!(d.id == DiagId::kOutOfRange && d.severity == Severity::kError && d.field == id), d.message);
    }
    // Just past the top: one error, naming the field, its range (with its unit) and its help.
    Config c = DefaultConfig();
    const double over = f.kind == FieldKind::kInt ? f.max + 1 : f.max * 2 + 1;
    REQUIRE(f.set(c, Text(over)).empty());
    const Diagnostics d = Validate(c);
    CHECK(ErrorsNaming(d, id) == 1);
    CHECK_FALSE(IsValid(c));
    CHECK(EstimateTotals(c).ok == false);
    for (const Diagnostic& x : d) {
      if (x.field != id || x.severity != Severity::kError) continue;
      CHECK(x.id == DiagId::kOutOfRange);
      CHECK(x.message == id + " = " + FormatNumber(over, 3) + " is outside the allowed range " + f.RangeText() + " (" +
                             f.help + ")");
    }
  }
  // Units reach the message: "... 0.001 to 2048 GB (usable memory of one GPU ...)".
  Config c = DefaultConfig();
  c.gpu_memory_gb = 0;
  const Diagnostics d = Validate(c);
  REQUIRE(ErrorsNaming(d, "gpu_memory_gb") == 1);
  CHECK(d.front().message.find("0.001 to 2048 GB (usable memory of one GPU") != std::string::npos);
}

TEST_CASE("Fields: a params-only model checks only its parameter count") {
  Config c = ParamsOnly(7e9);
  CHECK_FALSE(HasErrors(Validate(c)));
  c.model.params_override = -1;
  const Diagnostics d = Validate(c);
  CHECK(ErrorsNaming(d, "model.params_override") == 1);
}

TEST_CASE("Fields: every row's label, with its unit, has a row in the UI's strings table (简体中文)") {
  llmmem::app::SetLang(llmmem::app::Lang::kZh);
  for (const FieldDef& f : Fields()) {
    const std::string en = f.LabelWithUnit();
    bool found = false;
    for (const llmmem::app::Translation* r = llmmem::app::kStrings; r->en != nullptr; ++r) found |= en == r->en;
    CHECK_MESSAGE(found, f.name, ": \"", en, "\" has no row in src/app/strings.cpp");
  }
  CHECK(std::string(llmmem::app::Tr(FindField("gpu_memory_gb")->LabelWithUnit())) == "显存，GB");
  llmmem::app::SetLang(llmmem::app::Lang::kEn);
}

#if LLMMEM_TEST_CLI
TEST_CASE("Fields: --help prints each row's help and range under its group") {
  const std::string help = llmmem::cli::HelpText();
  for (const FieldDef& f : Fields()) {
    const std::string name = f.name;
    CAPTURE(name);
    CHECK(help.find(f.help) != std::string::npos);
    if (f.Numeric()) CHECK(help.find(std::string(f.help) + " [" + f.RangeText() + "]") != std::string::npos);
  }
  CHECK(help.find("\n Parallelism:\n") != std::string::npos);
  CHECK(help.find("usable memory of one GPU (no device has more than 2,048 GB) [0.001 to 2048 GB]") != std::string::npos);
}

TEST_CASE("Fields: a flag's bad value names the flag and the row's range") {
  const auto parsed = llmmem::cli::ParseCli({"--batch", "x"}, nullptr);
  REQUIRE(parsed.diagnostics.size() >= 1);
  CHECK(parsed.diagnostics.front().message ==
        "--batch: \"x\" is not a number (write it in decimal, like 8, 0.5 or 1e9) (allowed 1 to 1048576)");
}
#endif

TEST_CASE("Fields: the JSON Schema has one property per row, with its type, range, default and help") {
  const Json schema = ConfigSchema();
  const Json* properties = schema.Find("properties");
  REQUIRE(properties != nullptr);
  const Config defaults = DefaultConfig();
  size_t described = 0;
  for (const FieldDef& f : Fields()) {
    const std::string name = f.name;
    CAPTURE(name);
    const Json* where = f.model_field ? properties->Find("model")->Find("properties") : properties;
    const Json* p = where->Find(f.name);
    REQUIRE(p != nullptr);
    const std::string type = p->Find("type")->AsString();
    CHECK(type == (f.kind == FieldKind::kInt      ? "integer"
                   : f.kind == FieldKind::kNumber ? "number"
                   : f.kind == FieldKind::kBool   ? "boolean"
                                                  : "string"));
    if (f.Numeric()) {
      CHECK(p->Find("minimum")->AsNumber() == f.min);
      CHECK(p->Find("maximum")->AsNumber() == f.max);
    }
    CHECK(p->Find("description")->AsString().find(f.help) == 0);
    ++described;
  }
  CHECK(described == Fields().size());
}

// Issue 32: a field at a special value shows what it stands for, read from its help.
TEST_CASE("Fields: a special value's meaning comes from the field's help") {
  CHECK(FindField("prefill_chunk")->SpecialMeaning(0) == "all prompts at once");
  CHECK(FindField("mem_fraction")->SpecialMeaning(0) == "the runtime's default");
  CHECK(FindField("gpu_layers")->SpecialMeaning(-1) == "all");
  CHECK(FindField("prefill_chunk")->SpecialMeaning(512).empty());
  CHECK(FindField("batch")->SpecialMeaning(0).empty());
  int described = 0;
  for (const FieldDef& f : Fields())
    if (f.Numeric() && f.InRange(0) && !f.SpecialMeaning(0).empty()) ++described;
  CHECK(described >= 20);
}
