// The collected list of one layer's saved tensors (activation_rows.h LayerTensorList) holds every
// row any profile emits: its fixed capacity is never reached, for every preset under every
// framework profile, with and without adapters, dropout, flash attention, the linear layers'
// torch fallbacks and selective recompute.
#include <doctest.h>

#include <algorithm>

#include "core/catalogue/presets.h"
#include "core/config/config_json.h"
#include "core/config/framework.h"
#include "core/estimate/account_activations.h"

using namespace llmmem::core;

TEST_CASE("Layer tensors: the collected list never reaches its capacity") {
  int largest = 0, lists = 0;
  for (const Preset& p : Presets()) {
    if (!p.ok) continue;
    for (const FrameworkInfo& fw : TableOf(Framework{})) {
      for (const Mode mode : {Mode::kTraining, Mode::kLora, Mode::kQlora}) {
        for (const bool flags : {false, true}) {
          Config c = DefaultConfig();
          c.model = p.model;
          c.framework = fw.value;
          c.mode = mode;
          c.dropout = flags;
          c.flash_attn = !flags;
          c.linear_kernels = flags ? LinearKernels::kTorch : LinearKernels::kFused;
          const Derived d(c, 0);
          for (const bool keep_scores : {true, false}) {
            const LayerTensorList list = CollectLayerTensors(d, keep_scores);
            CHECK_FALSE(list.overflowed);
            largest = std::max(largest, list.size);
            ++lists;
          }
        }
      }
    }
  }
  MESSAGE("largest list: " << largest << " rows of " << LayerTensorList::kCapacity << ", over " << lists << " lists");
  CHECK(lists > 1000);
  CHECK(largest > 10);                                // the rows are really collected
  CHECK(largest <= LayerTensorList::kCapacity / 2);  // room for the next profiles' rows
}
