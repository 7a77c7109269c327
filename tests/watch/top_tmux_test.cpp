// `cgmem top` as a person uses it: in a terminal (tmux, on a private
// socket), over a snapshot taken in the VM on the real kernel
// (tests/fixtures/watch-vm-6.12: throttled, at_max, reclaiming, thrashing,
// ok cgroups). Keys are typed with send-keys and the screen read with
// capture-pane.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_cgmem.h"

namespace {

using cgmem::testing::run_shell;

const std::string kSnapshot = std::string(CGMEM_FIXTURES) + "/watch-vm-6.12";

class TopInTmux : public ::testing::Test {
 protected:
  void SetUp() override {
    if (run_shell("command -v tmux").code != 0) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh)";
    socket_ = "cgmem-top-test-" + std::to_string(getpid());
    auto started = tmux("new-session -d -x 100 -y 30 -s top 'TERM=xterm-256color " +
                        std::string(CGMEM_BINARY) + " top --from " + kSnapshot + "; sleep 30'");
    ASSERT_EQ(started.code, 0) << started.text;
  }
  void TearDown() override { tmux("kill-server"); }

  cgmem::testing::Output tmux(const std::string& args) {
    return run_shell("tmux -L " + socket_ + " " + args + " 2>&1");
  }
  // The screen once it shows `want` (or after 10 s, whatever it shows).
  std::string screen_with(const std::string& want) {
    return screen_where([&](const std::string& text) { return text.find(want) != std::string::npos; });
  }
  // The screen once its header line shows `want`: the filter prompt on the
  // last line shows the same text while the keys are still being read.
  std::string screen_with_header(const std::string& want) {
    return screen_where([&](const std::string& text) {
      return text.substr(0, text.find('\n')).find(want) != std::string::npos;
    });
  }
  template <typename Done>
  std::string screen_where(Done done) {
    std::string text;
    for (int i = 0; i < 100; ++i) {
      text = tmux("capture-pane -p -t top").text;
      if (done(text)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return text;
  }
  static std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::string socket_;
};

TEST_F(TopInTmux, ShowsTheThrottledCgroupFirst) {
  auto lines = split(screen_with("CGROUP"));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("cgmem top  sort: severity", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("snapshot "), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("CGROUP", 0), 0u) << lines[1];
  EXPECT_NE(lines[2].find("/cgmem/throttled"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("throttled"), std::string::npos);
}

TEST_F(TopInTmux, HelpFilterSortAndQuitKeys) {
  screen_with("CGROUP");
  tmux("send-keys -t top '?'");
  EXPECT_NE(screen_with("cgmem top: keys").find("cgmem top: keys"), std::string::npos);
  tmux("send-keys -t top x");  // any key closes the help
  screen_with("CGROUP");
  tmux("send-keys -t top / i d l e Enter");
  auto filtered = split(screen_with_header("filter: idle"));
  ASSERT_GE(filtered.size(), 3u);
  EXPECT_NE(filtered[0].find("filter: idle"), std::string::npos) << filtered[0];
  EXPECT_NE(filtered[2].find("/cgmem/idle"), std::string::npos) << filtered[2];
  EXPECT_EQ(filtered.size() > 3 ? filtered[3].find("/cgmem/") : std::string::npos, std::string::npos);
  tmux("send-keys -t top / Enter s");
  EXPECT_NE(screen_with("sort: current").find("sort: current"), std::string::npos);
  tmux("send-keys -t top q");
  // top exits; the pane then runs the `sleep 30` after it.
  std::string command;
  for (int i = 0; i < 50 && command != "sleep\n"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    command = tmux("display-message -p -t top '#{pane_current_command}'").text;
  }
  EXPECT_EQ(command, "sleep\n");
}

}  // namespace
