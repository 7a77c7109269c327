// The decision tests' two steps: a policy from TOML text, and the newest row
// of a Series (rows.h) fed to a Guard.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "guard/decide.h"
#include "rows.h"

namespace cgmem::guard::testing {

inline Policy policy(std::string_view text) {
  auto p = parse_policy(text, "test.toml");
  EXPECT_TRUE(p) << p.error().message();
  return p ? std::move(*p) : Policy{};
}

// Feeds the newest row of s; returns the decisions (and marks them logged,
// acted or not).
inline std::vector<Decision> feed(Guard& g, Series& s, bool acted = false) {
  auto out = g.observe(std::span(&s.rows.back(), 1));
  for (const auto& d : out) g.done(d, double(d.row->sample.t_ns) / 1e9, acted);
  return out;
}

}  // namespace cgmem::guard::testing
