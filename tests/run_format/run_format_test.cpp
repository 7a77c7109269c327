#include "run_format/run_format.h"

#include <gtest/gtest.h>

namespace cgmem::run_format {
namespace {

TEST(RunFormat, EveryPhaseNameParsesBack) {
  for (Phase p : {Phase::grow, Phase::churn, Phase::own_high}) EXPECT_EQ(parse_phase(to_string(p)), p);
  EXPECT_EQ(to_string(Phase::own_high), "own_high");
}

TEST(RunFormat, AnUnknownPhaseIsOther) {
  EXPECT_EQ(parse_phase("shrink"), Phase::other);
  EXPECT_EQ(parse_phase(""), Phase::other);
}

TEST(RunFormat, EveryStatusNameParsesBack) {
  for (Status s : {Status::oom_killed, Status::exited, Status::cap, Status::interrupted, Status::failed,
                   Status::load_done})
    EXPECT_EQ(parse_status(to_string(s)), s);
  EXPECT_EQ(to_string(Status::oom_killed), "oom_killed");
}

TEST(RunFormat, AnUnknownStatusIsNotParsed) {
  EXPECT_EQ(parse_status("killed"), std::nullopt);
  EXPECT_EQ(parse_status(""), std::nullopt);
}

TEST(RunFormat, JsonKeysAreTheBytesOfACompactLine) {
  constexpr auto bare = json_key(op_key::kLatNs);
  EXPECT_EQ(std::string_view(bare.data(), bare.size()), "\"lat_ns\":");
  constexpr auto after = json_key_after(',', op_key::kOp);
  EXPECT_EQ(std::string_view(after.data(), after.size()), ",\"op\":");
}

}  // namespace
}  // namespace cgmem::run_format
