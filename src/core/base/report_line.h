// One line of a text report (serving, speed): what, its figure, and a note on where the
// figure comes from. The UI shows these as three columns, the CLI as aligned text.
#pragma once

#include <string>

namespace llmmem::core {

struct ReportLine {
  std::string label;
  std::string value;
  std::string note;
};

}  // namespace llmmem::core
