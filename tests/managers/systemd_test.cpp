// systemd properties to cgroup files, against the study's table
// (results/10-systemd-map.txt, systemd 255).
#include <gtest/gtest.h>

#include "managers/systemd.h"

namespace cgmem::managers {
namespace {

// The study's host had "7.75 GiB" of RAM as free -h rounds it. 7.75 GiB
// exactly (8321499136 bytes) gives 249643008 for 3%; 249806848 needs
// floor(pages x 3 / 100) = 60988 pages, so 2032934 to 2032966 pages of RAM.
// 8326963200 bytes (2032950 pages, 7.755 GiB) is in that range.
constexpr uint64_t kStudyRam = 8326963200;

SystemdInput with(std::initializer_list<std::pair<const char*, const char*>> props,
                  std::optional<uint64_t> ram = kStudyRam) {
  SystemdInput in{.ram = ram};
  for (auto [name, value] : props) in.unit.properties.push_back({name, value, "-p"});
  return in;
}

Translation ok(const SystemdInput& in) {
  auto t = translate_systemd(in);
  EXPECT_TRUE(t) << (t ? "" : t.error().message());
  return t.value_or(Translation{});
}

const Assignment& file(const Translation& t, std::string_view name) {
  static const Assignment none;
  const Assignment* a = find(t, "unit", name);
  EXPECT_NE(a, nullptr) << name;
  return a ? *a : none;
}

TEST(Systemd, StudyTable) {
  auto t = ok(with({{"MemoryMin", "16M"}, {"MemoryLow", "64M"}, {"MemoryHigh", "241590272"},
                    {"MemoryMax", "256M"}}));
  EXPECT_EQ(file(t, "memory.min").value, Limit::of(16777216));
  EXPECT_EQ(file(t, "memory.low").value, Limit::of(67108864));
  EXPECT_EQ(file(t, "memory.high").value, Limit::of(241590272));
  EXPECT_EQ(file(t, "memory.max").value, Limit::of(268435456));
  EXPECT_EQ(file(t, "memory.high").rule, "MemoryHigh=241590272: 241590272 bytes (parse_size, base 1024)");
  EXPECT_EQ(file(t, "memory.oom.group").value, Limit::of(0));
}

TEST(Systemd, PercentOfRamAsTheStudyMeasured) {
  auto t = ok(with({{"MemoryHigh", "3%"}}));
  EXPECT_EQ(file(t, "memory.high").value, Limit::of(249806848));
  EXPECT_EQ(file(t, "memory.high").rule,
            "MemoryHigh=3%: floor(2032950 pages x 300 / 10000) x 4096 of 8326963200 bytes of RAM");
  // 7.75 GiB exactly does not reproduce the study's number.
  auto exact = ok(with({{"MemoryHigh", "3%"}}, uint64_t{31} << 28));
  EXPECT_EQ(file(exact, "memory.high").value, Limit::of(249643008));
}

TEST(Systemd, PercentForms) {
  EXPECT_EQ(parse_permyriad("3%"), 300);
  EXPECT_EQ(parse_permyriad("2.55%"), 255);
  EXPECT_EQ(parse_permyriad("2.5%"), 250);
  EXPECT_EQ(parse_permyriad("25\u2030"), 250);
  EXPECT_EQ(parse_permyriad("2.5\u2030"), 25);
  EXPECT_EQ(parse_permyriad("300\u2031"), 300);
  EXPECT_EQ(parse_permyriad("101%"), -1);
  EXPECT_EQ(parse_permyriad("2.555%"), -1);
  EXPECT_EQ(parse_permyriad("256M"), std::nullopt);
  auto all = ok(with({{"MemoryMax", "100%"}}));
  EXPECT_EQ(file(all, "memory.max").value, Limit::of(8326963200));
}

TEST(Systemd, Sizes) {
  EXPECT_EQ(parse_systemd_size("256M").value(), 268435456u);
  EXPECT_EQ(parse_systemd_size("1.5G").value(), 1610612736u);
  EXPECT_EQ(parse_systemd_size("1G 512M").value(), 1610612736u);
  EXPECT_EQ(parse_systemd_size("4096B").value(), 4096u);
  EXPECT_EQ(parse_systemd_size("1T").value(), uint64_t{1} << 40);
  EXPECT_FALSE(parse_systemd_size("1GB"));
  EXPECT_FALSE(parse_systemd_size("256m"));
  EXPECT_FALSE(parse_systemd_size("256Mi"));
  EXPECT_FALSE(parse_systemd_size("512M 1G"));  // suffixes must get smaller
  EXPECT_FALSE(parse_systemd_size(""));
  EXPECT_FALSE(parse_systemd_size("99999999999999999999"));
}

TEST(Systemd, EmptyInfinityAndZero) {
  auto t = ok(with({{"MemoryMax", "256M"}, {"MemoryMax", ""}, {"MemoryLow", "64M"},
                    {"MemoryLow", ""}, {"MemoryHigh", "infinity"}, {"MemorySwapMax", "0"}}));
  EXPECT_EQ(file(t, "memory.max").value, Limit::max());
  EXPECT_EQ(file(t, "memory.max").rule, "MemoryMax= (empty) resets to infinity");
  EXPECT_EQ(file(t, "memory.low").value, Limit::of(0));
  EXPECT_EQ(file(t, "memory.high").value, Limit::max());
  EXPECT_EQ(file(t, "memory.swap.max").value, Limit::of(0));
  EXPECT_TRUE(file(t, "memory.swap.max").set);
  EXPECT_FALSE(file(t, "memory.zswap.max").set);
  EXPECT_EQ(file(t, "memory.zswap.max").value, Limit::max());
}

// In a unit file systemd logs the line and ignores it; over systemd-run -p
// the manager refuses the unit (Debian's systemd 252 in the VM,
// tests/own_program/systemd_vm_test.cpp).
TEST(Systemd, ZeroForMemoryHighIsIgnoredInAUnitFileAndRefusedBySystemdRun) {
  SystemdInput in;
  in.unit.properties = {{"MemoryHigh", "200M", "app.service:3"}, {"MemoryHigh", "0", "app.service:4"}};
  auto t = ok(in);
  EXPECT_EQ(file(t, "memory.high").value, Limit::of(209715200));
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_EQ(t.notes[0],
            "app.service:4: MemoryHigh=0 is out of range (0 is only for MemoryMin/Low/SwapMax/ZSwapMax): "
            "systemd ignores this line");
  auto run = translate_systemd(with({{"MemoryHigh", "200M"}, {"MemoryMax", "0"}}));
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().message(),
            "Value specified in MemoryMax is out of range (systemd-run -p is refused by the manager; 0 is only "
            "for MemoryMin/Low/SwapMax/ZSwapMax)");
  EXPECT_TRUE(translate_systemd(with({{"MemoryMin", "0"}, {"MemorySwapMax", "0"}})));
}

TEST(Systemd, MemoryZSwapMaxCameIn253) {
  auto newest = ok(with({{"MemoryZSwapMax", "64M"}}));
  EXPECT_EQ(file(newest, "memory.zswap.max").value, Limit::of(67108864));
  auto in = with({{"MemoryZSwapMax", "64M"}});
  in.version = 253;
  EXPECT_EQ(file(ok(in), "memory.zswap.max").value, Limit::of(67108864));
  in.version = 252;
  auto refused = translate_systemd(in);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message(),
            "Unknown assignment: MemoryZSwapMax=64M (systemd 252 does not know MemoryZSwapMax= (it came in 253))");
  SystemdInput unit{.version = 252};
  unit.unit.properties = {{"MemoryZSwapMax", "64M", "app.service:5"}};
  auto ignored = ok(unit);
  EXPECT_FALSE(file(ignored, "memory.zswap.max").set);
  ASSERT_EQ(ignored.notes.size(), 1u);
  EXPECT_EQ(ignored.notes[0],
            "app.service:5: Unknown key name 'MemoryZSwapMax' in section 'Service', ignoring (systemd 252 does "
            "not know MemoryZSwapMax= (it came in 253))");
}

TEST(Systemd, Version) {
  EXPECT_EQ(parse_systemd_version("252").value(), 252u);
  EXPECT_EQ(parse_systemd_version("252.38").value(), 252u);
  EXPECT_EQ(parse_systemd_version("systemd 252 (252.38-1~deb12u1)").value(), 252u);
  EXPECT_EQ(parse_systemd_version("systemd 257~rc1").value(), 257u);
  EXPECT_FALSE(parse_systemd_version(""));
  EXPECT_FALSE(parse_systemd_version("v252"));
  EXPECT_FALSE(parse_systemd_version("252x"));
  EXPECT_FALSE(parse_systemd_version("99999"));
  EXPECT_EQ(parse_systemd_version("systemd").error().message(),
            "systemd version \"systemd\": not a release number (e.g. 252, or the first line of `systemd --version`)");
}

TEST(Systemd, PageRoundingIsShown) {
  auto t = ok(with({{"MemoryHigh", "1000000"}}));
  EXPECT_EQ(file(t, "memory.high").value, Limit::of(999424));
  ASSERT_EQ(file(t, "memory.high").caveats.size(), 1u);
  EXPECT_EQ(file(t, "memory.high").caveats[0], "systemd writes 1000000; the kernel keeps whole pages");
}

TEST(Systemd, BadValuesAreErrors) {
  auto gb = translate_systemd(with({{"MemoryMax", "1GB"}}));
  ASSERT_FALSE(gb);
  EXPECT_EQ(gb.error().message(),
            "MemoryMax=1GB: not a size systemd accepts (systemd takes bytes or K, M, G, T, P, E "
            "(base 1024, upper case, no trailing B), a percentage of RAM, or infinity; systemd "
            "itself would log the error and ignore the line)");
  auto negative = translate_systemd(with({{"MemoryHigh", "-1"}}));
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().what, "MemoryHigh=-1: a size cannot be negative");
  auto no_ram = translate_systemd(with({{"MemoryHigh", "3%"}}, std::nullopt));
  ASSERT_FALSE(no_ram);
  EXPECT_EQ(no_ram.error().message(),
            "MemoryHigh=3% is a share of physical RAM (say whose RAM with --ram BYTES)");
  auto over = translate_systemd(with({{"MemoryMax", "150%"}}));
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().what, "MemoryMax=150% is not a percentage systemd accepts");
}

TEST(Systemd, UnitFile) {
  auto unit = parse_unit_file(
      "[Unit]\nDescription=demo\nMemoryMax=1G\n\n[Service]\n# a comment\nExecStart=/bin/true\n"
      "MemoryHigh=241590272\nMemoryMax=\\\n  256M\nOOMPolicy=kill\n",
      "demo.service");
  ASSERT_TRUE(unit) << unit.error().message();
  EXPECT_EQ(unit->type, "service");
  ASSERT_EQ(unit->notes.size(), 1u);
  EXPECT_EQ(unit->notes[0], "demo.service:3: MemoryMax= in section [Unit] is ignored by systemd");
  auto t = ok(SystemdInput{.unit = *unit});
  EXPECT_EQ(file(t, "memory.high").value, Limit::of(241590272));
  EXPECT_EQ(file(t, "memory.max").value, Limit::of(268435456));
  EXPECT_EQ(file(t, "memory.oom.group").value, Limit::of(1));
  EXPECT_EQ(file(t, "memory.oom.group").rule, "OOMPolicy=kill: the kernel kills the whole unit on an OOM kill");
}

TEST(Systemd, UnitFileErrorsNameTheLine) {
  auto bad = parse_unit_file("[Service]\nMemoryMax 256M\n", "x.service");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what, "x.service:2: 'MemoryMax 256M' is not a Name=Value line");
  auto unit = parse_unit_file("[Slice]\nMemoryMax=1GB\n", "x.slice");
  ASSERT_TRUE(unit);
  auto t = translate_systemd(SystemdInput{.unit = *unit});
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().what, "x.slice:2: MemoryMax=1GB: not a size systemd accepts");
}

TEST(Systemd, SlicesNeverSetTheGroupFlag) {
  auto unit = parse_unit_file("[Slice]\nMemoryMax=1G\nOOMPolicy=kill\n", "x.slice");
  ASSERT_TRUE(unit);
  auto t = ok(SystemdInput{.unit = *unit});
  EXPECT_EQ(file(t, "memory.oom.group").value, Limit::of(0));
}

TEST(Systemd, PropertyAssignment) {
  auto p = parse_property_assignment("MemoryMax = 256M");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "MemoryMax");
  EXPECT_EQ(p->value, "256M");
  auto bad = parse_property_assignment("MemoryMax");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "-p 'MemoryMax': not a Name=Value assignment (e.g. -p MemoryMax=256M)");
}

TEST(Systemd, OnlySharesNeedTheRam) {
  SystemdUnit unit{.properties = {{.name = "MemoryMax", .value = "256M"}}};
  EXPECT_FALSE(needs_ram(unit));
  unit.properties.push_back({.name = "MemoryHigh", .value = "3%"});
  EXPECT_TRUE(needs_ram(unit));
}

}  // namespace
}  // namespace cgmem::managers
