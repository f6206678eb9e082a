// The result views (the tab bar under the verdict), one row each: its id in links (view=)
// and its title. Tab (state.h) indexes the rows; app.cpp's switch over Tab draws each
// (-Wswitch names a tab without a panel).
#pragma once

#include <string>

#include "app/state.h"

namespace llmmem::app {

struct TabRow {
  Tab tab;
  const char* id;     // "fitmap": the link's view=
  const char* title;  // English; shown through Tr()
};

const TabRow& TabOf(int tab);  // tab in [0, kTabCount)
// The tab with this id; false when none has it.
bool ParseTab(const std::string& id, int& out);

}  // namespace llmmem::app
