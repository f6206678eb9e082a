// libFuzzer: the JSON parser must reject or accept any bytes without crashing, and what
// it accepts must survive a dump/parse round trip unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/parse/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const JsonParseResult r = ParseJson(text);
  if (r.ok) {
    const std::string once = r.value.Dump();
    const JsonParseResult again = ParseJson(once);
    if (!again.ok || again.value.Dump() != once) std::abort();
  } else if (r.error.empty()) {
    std::abort();  // a rejection must say why
  }
  return 0;
}
