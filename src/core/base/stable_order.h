// Stable sorting compiled once: std::stable_sort over indices in stable_order.cpp, reached
// through a function pointer. Each std::stable_sort of its own element type and comparator
// cost the page 1.6-2.5 KB of wasm (its merge and buffer routines), 26 KB over the page's
// nine; these keep only a comparator thunk and a move per element type.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace llmmem::core {

// The order of n items sorted stably: before(context, a, b) says item a goes before item b.
std::vector<size_t> StableOrder(size_t n, bool (*before)(const void* context, size_t a, size_t b),
                                const void* context);

// What std::stable_sort(v.begin(), v.end(), before) does, through StableOrder.
template <class T, class Before>
void StableSort(std::vector<T>& v, const Before& before) {
  struct Context {
    const std::vector<T>* items;
    const Before* before;
  } context{&v, &before};
  const std::vector<size_t> order = StableOrder(
      v.size(),
      [](const void* c, size_t a, size_t b) {
        const Context& x = *static_cast<const Context*>(c);
        return static_cast<bool>((*x.before)((*x.items)[a], (*x.items)[b]));
      },
      &context);
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (size_t i : order) sorted.push_back(std::move(v[i]));
  v.swap(sorted);
}

}  // namespace llmmem::core
