// StableSort (core/base/stable_order.h) orders as std::stable_sort does: ties keep their order.
#include <doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/base/stable_order.h"

TEST_CASE("StableSort equals std::stable_sort, ties in their first order") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::pair<int, std::string>> items;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) items.push_back({static_cast<int>(rng() % 5), std::to_string(i)});
    auto by_key = [](const std::pair<int, std::string>& a, const std::pair<int, std::string>& b) {
      return a.first < b.first;
    };
    std::vector<std::pair<int, std::string>> expected = items;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    llmmem::core::StableSort(items, by_key);
    CHECK(items == expected);
  }
  std::vector<int> none;
  llmmem::core::StableSort(none, [](int a, int b) { return a < b; });
  CHECK(none.empty());
}
