// A Python environment's package list read as settings (issue 30: the program and version a
// user runs, from what they can paste): `pip freeze` (name==version, name @ url), `pip list`
// and `uv pip list` (a Package/Version table), requirements files (==, >=, ~=, extras) and
// `conda list` (name version build channel). Each package becomes one entry: the path is its
// normalised name (PEP 503: lower case, runs of '-', '_', '.' as '-'), the value the version
// as written with its operator ("==4.46.0", ">=0.12"), the line where it stands.
#pragma once

#include <string>
#include <string_view>

#include "core/parse/settings_tree.h"

namespace llmmem::core {

// Whether `text` reads as a package list: at least two lines and most non-comment lines are
// package lines (so a YAML file or a command line is never taken for one).
bool LooksLikePackageList(std::string_view text);
SettingsTree ParsePackageList(std::string_view text);

// "==4.46.0.dev0" -> "4.46.0"; ">=0.12" -> "0.12"; "" when no version is given.
std::string PackageVersion(const std::string& value);

}  // namespace llmmem::core
