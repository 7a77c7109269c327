#include "report/claims_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace cgmem::report {

Section claims_section(const std::vector<Claim>& claims) {
  auto n = [&](ClaimVerdict v) { return std::count_if(claims.begin(), claims.end(), [&](const Claim& c) { return c.verdict == v; }); };
  Section s{.title = "The study's claims, checked"};
  s.paragraphs.push_back(fmt::format(
      "Each claim of the study \"memory.high vs memory.max, measured\", its figure there and in this batch: {} "
      "reproduced, {} not reproduced, {} not tested by this batch. Where a row says how this kernel differs by "
      "design (HZ, 6.12's extra high event, software emulation), the verdict is on the corrected comparison.",
      n(ClaimVerdict::reproduced), n(ClaimVerdict::not_reproduced), n(ClaimVerdict::not_tested)));
  Table t{.head = {"claim", "the study", "this batch", "verdict", "note"}, .prose = true};
  for (const auto& c : claims) t.rows.push_back({c.claim, c.study, c.batch, verdict_text(c.verdict), c.note});
  s.tables.push_back(std::move(t));
  return s;
}

nlohmann::json claims_json(const std::vector<Claim>& claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : claims)
    out.push_back({{"id", c.id}, {"claim", c.claim}, {"study", c.study}, {"batch", c.batch},
                   {"verdict", verdict_text(c.verdict)}, {"note", c.note}});
  return out;
}

}  // namespace cgmem::report
