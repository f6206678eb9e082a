// The one std::stable_sort the core's sorts share (stable_order.h).
#include "core/base/stable_order.h"

#include <algorithm>

namespace llmmem::core {

std::vector<size_t> StableOrder(size_t n, bool (*before)(const void* context, size_t a, size_t b),
                                const void* context) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return before(context, a, b); });
  return order;
}

}  // namespace llmmem::core
