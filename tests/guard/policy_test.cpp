// Policies: what a good one reads as, and the error for each kind of bad one.
#include "guard/policy.h"

#include <gtest/gtest.h>

#include <chrono>

namespace cgmem::guard {
namespace {

Result<Policy> parse(std::string_view text) { return parse_policy(text, "p.toml"); }

std::string error_of(std::string_view text) {
  auto p = parse(text);
  EXPECT_FALSE(p.has_value()) << text;
  return p ? "" : p.error().message();
}

TEST(Policy, ReadsEveryActionAndTheLimits) {
  auto p = parse(R"(
[limits]
per_cgroup = "10s"
per_minute = 3

[[rules]]
name = "leaks"
match = "^/jobs/"
action = "kill"
throttled_for = "20s"
eta_over = "5m"
min_rise = "2M"
thrash_for = 30

[[rules]]
name = "svc"
match = "^/svc/"
action = "raise-high"
step = "10%"
ceiling = "64M"
backoff = "2s"
restore_after = "1m"

[[rules]]
name = "rfc"
match = "^/rfc/"
action = "emulate-shift"
shift = 4

[[rules]]
name = "rest"
match = "."
action = "report"
)");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->limits.per_cgroup_s, 10);
  EXPECT_EQ(p->limits.per_minute, 3u);
  ASSERT_EQ(p->rules.size(), 4u);
  const Rule& kill = p->rules[0];
  EXPECT_EQ(kill.action, Action::kill);
  EXPECT_EQ(*kill.when.throttled_for_s, 20);
  EXPECT_EQ(*kill.when.eta_over_s, 300);
  EXPECT_EQ(kill.when.min_rise, 2u << 20);
  EXPECT_EQ(*kill.when.thrash_for_s, 30);
  const Rule& raise = p->rules[1];
  EXPECT_EQ(raise.raise.step_percent, 10);
  EXPECT_EQ(*raise.raise.ceiling, 64u << 20);
  EXPECT_EQ(raise.raise.backoff_s, 2);
  EXPECT_EQ(raise.raise.restore_after_s, 60);
  EXPECT_EQ(p->rules[2].shift, 4u);
  EXPECT_EQ(p->rules[3].action, Action::report);
  EXPECT_EQ(rule_for(*p, "/jobs/a")->name, "leaks");
  EXPECT_EQ(rule_for(*p, "/svc/web")->name, "svc");
  EXPECT_EQ(rule_for(*p, "/other")->name, "rest");
}

TEST(Policy, NoRuleMatchesIsNull) {
  auto p = parse("[[rules]]\nname = \"a\"\nmatch = \"^/a$\"\naction = \"report\"\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(rule_for(*p, "/b"), nullptr);
  EXPECT_EQ(rule_for(*p, "/a/b"), nullptr);
  EXPECT_NE(rule_for(*p, "/a"), nullptr);
}

TEST(Policy, EveryBadInputSaysWhatAndWhere) {
  EXPECT_EQ(error_of("rules = ["),
            "guard policy: line 1, column 10: Error while parsing array: encountered end-of-file: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(error_of(""), "guard policy: no [[rules]]: p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(error_of("interval = 1\n[[rules]]\n"),
            "guard policy: unknown top-level key 'interval' (a policy has [limits] and [[rules]]): p.toml "
            "(see docs/guard.md for the format)");
  const char* head = "[[rules]]\nname = \"r\"\nmatch = \".\"\n";
  auto rule = [&](std::string rest) { return error_of(std::string(head) + rest); };
  EXPECT_EQ(rule("action = \"explode\"\n"),
            "guard policy: rule 'r'.action = 'explode' is not one of kill, raise-high, emulate-shift, report: "
            "p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\n"),
            "guard policy: rule 'r': a kill rule needs throttled_for, eta_over or thrash_for: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = \"soon\"\n").substr(0, 44),
            "guard policy: rule 'r'.throttled_for = 'soon");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = \"nan\"\n"),
            "guard policy: rule 'r'.throttled_for = 'nan': invalid duration 'nan': not a number: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = -20\n"),
            "guard policy: rule 'r'.throttled_for = '-20': invalid duration '-20': a duration has no sign: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = 1.5\n"),
            "guard policy: rule 'r'.throttled_for must be a duration like \"20s\" (floating-point given): p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = \"1s\"\nstep = \"1M\"\n"),
            "guard policy: rule 'r': unknown key 'step' (a kill rule takes: eta_over, min_rise, thrash_for, "
            "throttled_for): p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"kill\"\nthrottled_for = \"1s\"\nmin_rise = \"1M\"\n"),
            "guard policy: rule 'r': min_rise only means something with eta_over: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"raise-high\"\n"),
            "guard policy: rule 'r': raise-high needs step (\"2M\" or \"10%\"): p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"raise-high\"\nstep = \"0%\"\n"),
            "guard policy: rule 'r'.step = '0%': a percentage is more than 0 and at most 1000: p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"raise-high\"\nstep = \"1M\"\nceiling = \"lots\"\n").substr(0, 50),
            "guard policy: rule 'r'.ceiling = 'lots' is not a s");
  EXPECT_EQ(rule("action = \"emulate-shift\"\nshift = 33\n"),
            "guard policy: rule 'r'.shift = 33 is out of range (0 to 32): p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(rule("action = \"emulate-shift\"\n"),
            "guard policy: rule 'r': emulate-shift needs shift (0 to 32): p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(error_of("[[rules]]\nname = \"r\"\nmatch = \"(\"\naction = \"report\"\n").substr(0, 53),
            "guard policy: rule 'r'.match = '(' is not a regular e");
  EXPECT_EQ(error_of("[[rules]]\nmatch = \".\"\naction = \"report\"\n"),
            "guard policy: rules[0] has no name: p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(error_of("[[rules]]\nname = \"r\"\naction = \"report\"\n"),
            "guard policy: rule 'r' has no match (a regex on the path below --root, \".\" for all): p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(error_of("[[rules]]\nname=\"a\"\nmatch=\".\"\naction=\"report\"\n[[rules]]\nname=\"a\"\nmatch=\".\"\n"
                     "action=\"report\"\n"),
            "guard policy: two rules are named a: p.toml (see docs/guard.md for the format)");
  EXPECT_EQ(error_of(std::string("[limits]\nper_minute = 0\n") + head + "action = \"report\"\n"),
            "guard policy: limits.per_minute = 0 is out of range (1 to 10000): p.toml "
            "(see docs/guard.md for the format)");
  EXPECT_EQ(error_of(std::string("[limits]\nburst = 1\n") + head + "action = \"report\"\n"),
            "guard policy: limits: unknown key 'burst' (limits takes per_cgroup, per_minute): p.toml "
            "(see docs/guard.md for the format)");
}

// std::regex backtracked without end on '(a+)+$' against a's and a b (the
// guard's scan stopped for good), and recursed once per character of the
// path ('^/.*$' on 30,000 characters: SIGSEGV).
TEST(Policy, HostileMatchesAndPathsEndQuickly) {
  auto policy = parse_policy("[[rules]]\nname = \"bad\"\nmatch = \"(a+)+$\"\naction = \"report\"\n"
                             "[[rules]]\nname = \"all\"\nmatch = \"^/.*$\"\naction = \"report\"\n",
                             "p.toml");
  ASSERT_TRUE(policy) << policy.error().message();
  auto start = std::chrono::steady_clock::now();
  const Rule* r = rule_for(*policy, "/" + std::string(40, 'a') + "b");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, "all");
  r = rule_for(*policy, "/" + std::string(30'000, 'x'));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name, "all");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(Policy, AMatchOf100000CharactersIsAnErrorNotACrash) {
  std::string text = "[[rules]]\nname = \"r\"\nmatch = \"" + std::string(100'000, 'a') +
                     "\"\naction = \"report\"\n";
  auto policy = parse_policy(text, "p.toml");
  ASSERT_FALSE(policy);
  EXPECT_EQ(policy.error().message(),
            "guard policy: rule 'r'.match = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (100000 characters) is longer "
            "than 16384 characters: p.toml (match a shorter pattern, e.g. a common prefix ('^/kubepods') instead of "
            "every name)");
  std::string nested = "[[rules]]\nname = \"r\"\nmatch = \"" + std::string(5'000, '(') + std::string(5'000, ')') +
                       "\"\naction = \"report\"\n";
  policy = parse_policy(nested, "p.toml");  // 5,000 nested groups: RE2 takes them, without recursion
  ASSERT_TRUE(policy) << policy.error().message();
  EXPECT_NE(rule_for(*policy, "/a"), nullptr);
}

TEST(Policy, AMissingFileSaysSo) {
  auto p = load_policy("/nonexistent/guard.toml");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("read the guard policy"), std::string::npos) << p.error().message();
}

}  // namespace
}  // namespace cgmem::guard
