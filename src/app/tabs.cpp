#include "app/tabs.h"

namespace llmmem::app {
namespace {

constexpr TabRow kTabs[] = {
    {kTabBreakdown, "breakdown", "Breakdown"}, {kTabCharts, "charts", "Charts"},
    {kTabFitMap, "fitmap", "Fit map"},         {kTabFit, "fit", "Fit"},
    {kTabServing, "serving", "Serving"},       {kTabDoctor, "doctor", "OOM doctor"},
    {kTabOom, "oom", "Read an OOM"},           {kTabNetwork, "network", "Any network"},
};
static_assert(sizeof kTabs / sizeof kTabs[0] == kTabCount, "one row per Tab");

}  // namespace

const TabRow& TabOf(int tab) { return kTabs[tab >= 0 && tab < kTabCount ? tab : 0]; }

bool ParseTab(const std::string& id, int& out) {
  for (const TabRow& t : kTabs) {
    if (id == t.id) {
      out = t.tab;
      return true;
    }
  }
  return false;
}

}  // namespace llmmem::app
