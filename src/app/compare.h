// Compare against a pinned configuration: the pinned estimate's bytes per breakdown node
// id, so the table can show "Pinned" and "Change" beside each component.
// May include: core (no imgui).
#pragma once

#include <map>
#include <string>

#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::app {

struct Pinned {
  core::Config config;
  core::Estimate estimate;
  std::string label;                          // "Llama 3.1 8B, Full training"
  std::map<std::string, double> bytes_by_id;  // every node of the pinned tree
};

inline void CollectBytes(const core::BreakdownNode& n, std::map<std::string, double>& out) {
  out[n.id] = n.bytes;
  for (const core::BreakdownNode& c : n.children) CollectBytes(c, out);
}

inline Pinned MakePinned(const core::Config& c, const core::Estimate& e, std::string label) {
  Pinned p{c, e, std::move(label), {}};
  CollectBytes(e.tree, p.bytes_by_id);
  return p;
}

// The pinned bytes of node `id`, or nullptr when the pinned estimate has no such node.
inline const double* PinnedBytes(const Pinned& p, const std::string& id) {
  auto it = p.bytes_by_id.find(id);
  return it == p.bytes_by_id.end() ? nullptr : &it->second;
}

}  // namespace llmmem::app
