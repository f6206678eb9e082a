// Files embedded at build time (scripts/embed.py). Arrays end with a {nullptr} row.
#pragma once

#include <cstddef>
#include <string>

namespace llmmem::core {

struct EmbeddedFile {
  const char* name;  // file name without directories: "llama-2-7b.json"
  const unsigned char* data;
  size_t size;
  std::string Text() const { return std::string(reinterpret_cast<const char*>(data), size); }
};

}  // namespace llmmem::core
