// The "Any network" tab's logic (src/app/network_view.h, no ImGui): the URL keys round-trip
// (a preset, a custom stack, the workload), bad link values become notes, the edits of a
// custom stack (add, remove, reorder, into a branch) act on the right list, the rows' paths
// follow the analysis order, the card comes from the page; and the per-layer chart's math.
#include <doctest.h>

#include "app/chart_math.h"
#include "app/network_view.h"
#include "core/config/config_json.h"
#include "core/network/network_json.h"

using namespace llmmem;
using app::LayerPath;
using app::NetworkView;

TEST_CASE("Network view: URL keys round-trip and defaults write nothing") {
  NetworkView v;
  CHECK(app::NetworkViewQuery(v).empty());
  v.model = "vit_b_16";
  v.batch = 8;
  v.training = false;
  v.dtype = core::Dtype::kBf16;
  v.image_h = v.image_w = 384;
  const std::string q = app::NetworkViewQuery(v);
  CHECK(q.find("net_model=vit_b_16") != std::string::npos);
  NetworkView w;
  core::Diagnostics notes;
  const std::string rest = app::TakeNetworkKeys(w, "v=1&model=llama-3.1-8b&" + q, &notes);
  CHECK(rest == "v=1&model=llama-3.1-8b");
  CHECK(notes.empty());
  CHECK(w.model == "vit_b_16");
  CHECK(w.batch == 8);
  CHECK_FALSE(w.training);
  CHECK(w.dtype == core::Dtype::kBf16);
  CHECK(w.image_h == 384);
  CHECK(app::NetworkViewQuery(w) == q);

  // A custom stack travels as JSON.
  app::StartCustom(w);
  CHECK(w.model.empty());
  const std::string qc = app::NetworkViewQuery(w);
  NetworkView x;
  app::TakeNetworkKeys(x, qc, &notes);
  REQUIRE(notes.empty());
  CHECK(x.model.empty());
  CHECK(core::NetworkToJson(x.custom).Dump() == core::NetworkToJson(w.custom).Dump());

  // A bad value is a note, and the rest of the view stays as it was.
  NetworkView y;
  app::TakeNetworkKeys(y, "net_model=resnet50&net_batch=0", &notes);
  CHECK_FALSE(notes.empty());
  CHECK(y.batch == 32);
}

TEST_CASE("Network view: the card is the page's, and the estimate is recomputed only on change") {
  NetworkView v;
  core::Config card = core::DefaultConfig();
  card.gpu_memory_gb = 24;
  CHECK(app::RefreshNetwork(v, card));
  REQUIRE(v.estimate.ok);
  CHECK(v.estimate.gpu_bytes == 24e9);
  CHECK_FALSE(app::RefreshNetwork(v, card));
  card.gpu_memory_gb = 80;
  CHECK(app::RefreshNetwork(v, card));
  CHECK(v.paths.size() == v.estimate.analysis.rows.size());
}

TEST_CASE("Network view: editing a custom stack") {
  NetworkView v;
  v.model = "resnet18";
  app::StartCustom(v);
  core::NetworkSpec& s = v.custom;
  CHECK(s.published_params == 0);
  const std::vector<LayerPath> paths = app::LayerPaths(s);
  // Rows of the analysis and paths agree in order and count.
  const core::NetworkAnalysis a = core::AnalyzeNetwork(s, core::NetworkSettings{});
  REQUIRE(a.rows.size() == paths.size());
  for (size_t i = 0; i < paths.size(); ++i) CHECK(app::LayerAt(s, paths[i])->name == a.rows[i].name);
  // layer1.0 is an add block at the top level; its main branch's conv2 sits at [4, 0, 3].
  const LayerPath conv2 = {4, 0, 3};
  REQUIRE(app::LayerAt(s, conv2) != nullptr);
  CHECK(app::LayerAt(s, conv2)->name == "layer1.0.conv2");
  CHECK(app::MoveLayer(s, conv2, -1));
  CHECK(app::LayerAt(s, {4, 0, 2})->name == "layer1.0.conv2");
  CHECK_FALSE(app::MoveLayer(s, {4, 0, 0}, -1));  // already first
  CHECK(app::RemoveLayer(s, {4, 0, 2}));
  CHECK(s.layers[4].branches[0].size() == 4);
  core::Layer relu = app::DefaultLayer(core::LayerKind::kReLU);
  relu.name = "extra";
  CHECK(app::InsertLayerInBranch(s, {4}, 1, relu));
  CHECK(s.layers[4].branches[1].front().name == "extra");
  CHECK(app::InsertLayerAfter(s, {0}, relu));
  CHECK(s.layers[1].name == "extra");
  CHECK_FALSE(app::RemoveLayer(s, {99}));
  CHECK_FALSE(app::RemoveLayer(s, {4, 7, 0}));
  CHECK_FALSE(app::RemoveLayer(s, {}));
  // Every kind has a default that the JSON format writes and reads back.
  for (int k = 0; k < static_cast<int>(core::LayerKind::kCount); ++k) {
    core::NetworkSpec one;
    one.layers.push_back(app::DefaultLayer(static_cast<core::LayerKind>(k)));
    const core::NetworkParse back = core::ParseNetworkJson(core::NetworkToJson(one).Dump());
    CAPTURE(core::Info(static_cast<core::LayerKind>(k)).id);
    CHECK(back.ok);
  }
}

TEST_CASE("Network view: pasting print(model) or a network JSON") {
  NetworkView v;
  v.paste = "Sequential(\n  (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1))\n  (1): ReLU()\n)";
  CHECK(app::UsePasted(v));
  CHECK(v.model.empty());
  CHECK(v.custom.input == std::vector<int64_t>{1, 224, 224});  // channels from the first conv
  v.paste = R"({"input": [3, 8, 8], "layers": [{"type": "relu"}]})";
  CHECK(app::UsePasted(v));
  CHECK(v.custom.input == std::vector<int64_t>{3, 8, 8});
  v.paste = "   ";
  CHECK_FALSE(app::UsePasted(v));
  CHECK_FALSE(v.paste_notes.empty());
}

TEST_CASE("Chart math: the largest layers and the hovered slot") {
  const std::vector<double> v = {1, 5, 3, 5, -2, NAN, 4};
  CHECK(app::chart::LargestIndices(v, 3) == std::vector<int>{1, 3, 6});
  CHECK(app::chart::LargestIndices(v, 0).empty());
  CHECK(app::chart::LargestIndices(v, 99).size() == v.size());
  CHECK(app::chart::SlotAt(0, 100, 4) == 0);
  CHECK(app::chart::SlotAt(99.9, 100, 4) == 3);
  CHECK(app::chart::SlotAt(100, 100, 4) == -1);
  CHECK(app::chart::SlotAt(-1, 100, 4) == -1);
  CHECK(app::chart::SlotAt(10, 100, 0) == -1);
}
