// The one reader of a number typed as text (a CLI flag, a link value, a JSON string where a
// number belongs), for every door and every request kind: the LLM's fields (fields.h), the
// layer-stack request (network_request.h) and the CLI's own options (issue 29: "--batch
// 0x10" ran for a layer stack and was refused for an LLM). Returns "" and sets `out`, or a
// message saying what is wrong with the text.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

std::string ParseNumber(const std::string& text, double& out);
std::string ParseInt(const std::string& text, int64_t& out);

}  // namespace llmmem::core
