// libFuzzer: a training program's file for --from (YAML, TOML, JSON or a command line; the
// first byte picks the name it is read under). Any input yields an import or a clear error,
// never a crash, and applying a successful import to a config never crashes either.
#include <cstdint>
#include <string>

#include "core/config/config_json.h"
#include "core/program_files/program_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  if (size == 0) return 0;
  static const char* kNames[] = {"x.yaml", "x.toml", "x.json", "x.sh", "x"};
  const std::string name = kNames[data[0] % 5];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const ProgramFileImport file = ImportProgramFile(text, name);
  (void)ProgramFileToJson(file, name).Dump();
  (void)ProgramFileText(file, name);
  if (file.ok) {
    Config c = DefaultConfig();
    Diagnostics out;
    ApplyProgramFile(c, file, out);
  }
  return 0;
}
