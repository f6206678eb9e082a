// The enumeration tables (core/enum_table.h): every row's id and aliases parse back to
// its value, ignoring case; the lists --help and messages print; the subsets callers take.
// (Each table's file static_asserts that it names every enumerator once, in order.)
#include <doctest.h>

#include <algorithm>
#include <string>

#include "core/model/activation_fn.h"
#include "core/model/model_enums.h"
#include "core/config/config_enums.h"
#include "core/config/config.h"
#include "core/report/launch_export.h"
#include "core/network/layer_stack.h"

using namespace llmmem::core;

namespace {

std::string Upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
  return s;
}

// Every id and alias of E's table parses to its row's value, in either case, and nothing
// is named twice.
template <typename E>
void RoundTrips() {
  for (const RowOf<E>& row : TableOf(E{})) {
    CAPTURE(row.id);
    E back{};
    CHECK(ParseId(row.id, back));
    CHECK(back == row.value);
    CHECK(ParseId(Upper(row.id), back));
    CHECK(back == row.value);
    CHECK(std::string(Id(row.value)) == row.id);
    std::string aliases = row.aliases;
    for (size_t at = 0; at < aliases.size();) {
      const size_t end = std::min(aliases.find(' ', at), aliases.size());
      const std::string alias = aliases.substr(at, end - at);
      CAPTURE(alias);
      E from_alias{};
      CHECK(ParseId(alias, from_alias));
      CHECK(from_alias == row.value);
      at = end + 1;
    }
    for (const RowOf<E>& other : TableOf(E{}))
      if (other.value != row.value) CHECK(std::string(other.id) != row.id);
  }
  E none{};
  CHECK_FALSE(ParseId("no-such-id", none));
  CHECK_FALSE(ParseId("", none));
}

}  // namespace

TEST_CASE("Enum tables: every id and alias parses back to its enumerator, in any case") {
  RoundTrips<Mode>();
  RoundTrips<Schedule>();
  RoundTrips<Offload>();
  RoundTrips<Rlhf>();
  RoundTrips<Recompute>();
  RoundTrips<Optimizer>();
  RoundTrips<Dtype>();
  RoundTrips<Framework>();
  RoundTrips<Runtime>();
  RoundTrips<OptimizerImpl>();
  RoundTrips<ActivationFn>();
  RoundTrips<LaunchTarget>();
  RoundTrips<LayerKind>();
  RoundTrips<TorchProfile>();
  RoundTrips<AttentionKernel>();
  // tests/check_enum_tables.py fails when a table of src/core is missing here.
  RoundTrips<Arch>();
  RoundTrips<LossKernel>();
  RoundTrips<LinearKernels>();
  RoundTrips<MlpKind>();
  RoundTrips<NormKind>();
  RoundTrips<QkNorm>();
  RoundTrips<Sharding>();
  RoundTrips<VisionKind>();
  RoundTrips<LinearKind>();
}

TEST_CASE("Enum tables: the aliases people type") {
  Optimizer o{};
  CHECK((ParseId("adamw8bit", o) && o == Optimizer::kAdam8bit));
  CHECK((ParseId("Adam", o) && o == Optimizer::kAdamW));
  Mode m{};
  CHECK((ParseId("full", m) && m == Mode::kTraining));
  Offload f{};
  CHECK((ParseId("off", f) && f == Offload::kNone));
  Schedule s{};
  CHECK((ParseId("vpp", s) && s == Schedule::kInterleaved));
  Dtype d{};
  CHECK((ParseId("bfloat16", d) && d == Dtype::kBf16));
  Runtime r{};
  CHECK((ParseId("llama-server", r) && r == Runtime::kLlamaCpp));
  LaunchTarget t{};
  CHECK((ParseId("accelerate", t) && t == LaunchTarget::kFsdp));
}

TEST_CASE("Enum tables: the lists --help and the messages print, and the subsets callers take") {
  CHECK(IdList<Optimizer>() == "sgd, momentum, adamw, adam8bit, adafactor, lion");
  CHECK(IdList<Mode>(" or ") == "infer, train, lora, qlora or rlhf");
  CHECK(IdList<Optimizer>(" or ", LayerStackOptimizer) == "sgd, momentum, adamw, adam8bit or lion");
  CHECK(IdList<Dtype>("|", IsPlainFloatRow, "|") == "fp32|fp16|bf16");
  CHECK(NotOneOf<Schedule>("x", "a pipeline schedule") ==
        "\"x\" is not a pipeline schedule; one of: 1f1b, interleaved, gpipe");
  CHECK(&Info(Optimizer::kLion) == &TableOf(Optimizer{}).rows[static_cast<size_t>(Optimizer::kLion)]);
}
