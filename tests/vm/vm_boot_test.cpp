// `cgmem vm` end to end: each test boots the VM once and checks what a user
// sees: the inner stdout and exit code, the files that come back, and that
// a timeout or a SIGINT leaves no QEMU and no temporary images behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Boot {
  fs::path out, tmp;  // --out DIR, and the TMPDIR cgmem vm used for its images
  std::string stdout_text, stderr_text;
  int code = -1;
};

// A fresh --out DIR and TMPDIR for test `name`.
Boot prepare(const std::string& name) {
  Boot boot;
  fs::path base = fs::path(CGMEM_VM_OUT) / "boot";
  boot.out = base / name;
  boot.tmp = base / (name + ".tmp");
  for (const char* suffix : {"", ".console.log", ".vm.json", ".stdout", ".stderr", ".sh", ".tmp"})
    fs::remove_all(boot.out.string() + suffix);
  fs::create_directories(boot.tmp);
  return boot;
}

std::vector<std::string> base_args(const Boot& boot) {
  std::vector<std::string> args = {CGMEM_BINARY, "vm", "--out", boot.out.string()};
  if (std::string(CGMEM_VM_STATIC).size() > 0) args.insert(args.end(), {"--cgmem", CGMEM_VM_STATIC});
  return args;
}

// Starts cgmem with TMPDIR = boot.tmp, stdout and stderr to files.
pid_t start(const Boot& boot, const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", boot.tmp.c_str(), 1);
    if (!freopen((boot.out.string() + ".stdout").c_str(), "w", stdout)) _exit(126);
    if (!freopen((boot.out.string() + ".stderr").c_str(), "w", stderr)) _exit(126);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

void finish(Boot& boot, pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  boot.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  boot.stdout_text = slurp(boot.out.string() + ".stdout");
  boot.stderr_text = slurp(boot.out.string() + ".stderr");
}

Boot run(const std::string& name, const std::vector<std::string>& extra) {
  Boot boot = prepare(name);
  auto args = base_args(boot);
  args.insert(args.end(), extra.begin(), extra.end());
  finish(boot, start(boot, args));
  return boot;
}

fs::path write_script(const Boot& boot, const std::string& text) {
  fs::path script = boot.out.string() + ".sh";
  std::ofstream(script) << text;
  return script;
}

// The QEMU pid from "cgmem vm: timeout: stopping QEMU (pid N)" (or interrupted).
pid_t stopped_pid(const std::string& stderr_text) {
  std::smatch m;
  if (!std::regex_search(stderr_text, m, std::regex("stopping QEMU \\(pid ([0-9]+)\\)"))) return -1;
  return std::stoi(m[1]);
}

bool process_exists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

TEST(VmBoot, VersionRoundTrip) {
  auto boot = run("version", {"--", "version", "--json"});
  ASSERT_EQ(boot.code, 0) << boot.stderr_text;
  auto json = nlohmann::json::parse(boot.stdout_text);
  EXPECT_EQ(json["version"], "0.1.0");
  EXPECT_TRUE(fs::is_directory(boot.out));
  EXPECT_NE(slurp(boot.out.string() + ".console.log").find("cgmem-vm: running"), std::string::npos);
  auto record = nlohmann::json::parse(slurp(boot.out.string() + ".vm.json"));
  EXPECT_EQ(record["exit_code"], 0);
  EXPECT_GT(record["boot_seconds"].get<double>(), 0.0);
  EXPECT_EQ(record["guest"]["psi"], "on");
  EXPECT_EQ(record["guest"]["cgroup_parent"], "/sys/fs/cgroup/cgmem");
  EXPECT_NE(boot.stderr_text.find("cgmem vm: booting ("), std::string::npos);
  EXPECT_TRUE(fs::is_empty(boot.tmp)) << "temporary images left in " << boot.tmp;
}

TEST(VmBoot, HostSeesAUsableMemoryControllerAndHz250) {
  auto boot = run("host", {"--", "host", "--json"});
  ASSERT_EQ(boot.code, 0) << boot.stderr_text;
  auto json = nlohmann::json::parse(boot.stdout_text);
  EXPECT_EQ(json["memory_controller_usable"], true);
  EXPECT_EQ(json["hz"], 250);
  EXPECT_EQ(json["psi"], true);
  // From cgmem.accel= on the guest's command line: the accelerator this boot used.
  EXPECT_TRUE(json["virtualized"] == "tcg" || json["virtualized"] == "kvm") << json["virtualized"];
}

TEST(VmBoot, ScriptOutputFilesAndExitCodeComeBack) {
  auto boot = prepare("script");
  auto script = write_script(boot,
                             "echo out-line\n"
                             "echo err-line >&2\n"
                             "mkdir sub && echo data > sub/file\n"
                             "cgmem version > version.txt\n"
                             "exit 7\n");
  auto args = base_args(boot);
  args.insert(args.end(), {"--script", script.string()});
  finish(boot, start(boot, args));
  EXPECT_EQ(boot.code, 7) << boot.stderr_text;
  EXPECT_EQ(boot.stdout_text, "out-line\n");
  EXPECT_NE(boot.stderr_text.find("err-line"), std::string::npos) << boot.stderr_text;
  EXPECT_EQ(slurp(boot.out / "sub/file"), "data\n");
  EXPECT_EQ(slurp(boot.out / "version.txt").rfind("cgmem 0.1.0 (commit ", 0), 0u);
  EXPECT_TRUE(fs::is_empty(boot.tmp));
}

TEST(VmBoot, TimeoutStopsQemuByPid) {
  auto boot = prepare("timeout");
  auto script = write_script(boot, "sleep 600\n");
  auto args = base_args(boot);
  args.insert(args.end(), {"--timeout", "8", "--script", script.string()});
  finish(boot, start(boot, args));
  EXPECT_EQ(boot.code, 1);
  EXPECT_NE(boot.stderr_text.find("cgmem: error: the guest did not finish within 8 s; QEMU was stopped (console: " +
                                  boot.out.string() + ".console.log)"),
            std::string::npos)
      << boot.stderr_text;
  pid_t qemu = stopped_pid(boot.stderr_text);
  ASSERT_GT(qemu, 0) << boot.stderr_text;
  EXPECT_FALSE(process_exists(qemu));
  EXPECT_TRUE(fs::is_empty(boot.tmp));
  EXPECT_EQ(nlohmann::json::parse(slurp(boot.out.string() + ".vm.json"))["timed_out"], true);
}

TEST(VmBoot, SigintStopsQemuAndExits130) {
  auto boot = prepare("sigint");
  auto script = write_script(boot, "sleep 600\n");
  auto args = base_args(boot);
  args.insert(args.end(), {"--script", script.string()});
  pid_t pid = start(boot, args);
  // Wait until the guest runs the script, then interrupt.
  for (int i = 0; i < 1200; ++i) {
    if (slurp(boot.out.string() + ".stderr").find("cgmem vm: running") != std::string::npos) break;
    usleep(100 * 1000);
  }
  kill(pid, SIGINT);
  finish(boot, pid);
  EXPECT_EQ(boot.code, 130) << boot.stderr_text;
  pid_t qemu = stopped_pid(boot.stderr_text);
  ASSERT_GT(qemu, 0) << boot.stderr_text;
  EXPECT_FALSE(process_exists(qemu));
  EXPECT_TRUE(fs::is_empty(boot.tmp));
  EXPECT_EQ(nlohmann::json::parse(slurp(boot.out.string() + ".vm.json"))["interrupted"], true);
}

// The pinned Debian kernel in the cache, fetched by a first boot if needed.
std::string debian_kernel_image() {
  const char* xdg = getenv("XDG_CACHE_HOME");
  std::string cache = xdg && xdg[0] == '/' ? std::string(xdg) + "/cgmem" : std::string(getenv("HOME")) + "/.cache/cgmem";
  std::string release = "6.12.117+deb12-cloud-amd64";
  std::string image = cache + "/kernels/" + release + "/boot/vmlinuz-" + release;
  if (!fs::exists(image)) run("fetch", {"--", "version"});
  return image;
}

TEST(VmBoot, KernelWithoutVirtioBlkIsReportedFromTheGuest) {
  // The Debian bzImage alone, without its modules: virtio_blk is a module
  // there, so the guest finds no disk and says so on its console.
  std::string image = debian_kernel_image();
  ASSERT_TRUE(fs::exists(image)) << image;
  auto boot = run("no-virtio", {"--kernel", image, "--", "version"});
  EXPECT_EQ(boot.code, 1);
  EXPECT_NE(boot.stderr_text.find("cgmem vm: kernel without modules or .config: virtio_blk must be built in "
                                  "(checked at boot)\n"),
            std::string::npos)
      << boot.stderr_text;
  EXPECT_NE(boot.stderr_text.find("cgmem: error: the guest stopped before the command finished: cgmem-vm: error: "
                                  "no /dev/vda: this kernel has no virtio_blk (build it in: CONFIG_VIRTIO_BLK=y, "
                                  "CONFIG_VIRTIO_PCI=y) (console: " + boot.out.string() + ".console.log)\n"),
            std::string::npos)
      << boot.stderr_text;
  EXPECT_TRUE(fs::is_empty(boot.tmp));
}

TEST(VmBoot, SwapIsZramOfTheAskedSize) {
  auto boot = prepare("swap");
  auto script = write_script(boot, "cat /proc/swaps\n");
  auto args = base_args(boot);
  args.insert(args.end(), {"--swap", "64M", "--json", "--script", script.string()});
  finish(boot, start(boot, args));
  ASSERT_EQ(boot.code, 0) << boot.stderr_text;
  // "/dev/zram0  partition  65532  0  -2": 64 MiB less the swap header page.
  EXPECT_NE(boot.stdout_text.find("/dev/zram0"), std::string::npos) << boot.stdout_text;
  EXPECT_NE(boot.stdout_text.find("65532"), std::string::npos) << boot.stdout_text;
  auto record = nlohmann::json::parse(slurp(boot.out.string() + ".vm.json"));
  EXPECT_EQ(record["guest"]["swap_total_kib"], "65532");
  EXPECT_EQ(record["swap_kind"], "zram");
  EXPECT_EQ(record["guest"]["swap_kind"], "zram");
  EXPECT_EQ(record["zswap"], false);
  // --json: the record on stderr, in place of the progress lines.
  EXPECT_EQ(boot.stderr_text.find("cgmem vm: booting"), std::string::npos) << boot.stderr_text;
  EXPECT_NE(boot.stderr_text.find("\"swap_bytes\":67108864"), std::string::npos) << boot.stderr_text;
}

// Debian's cloud kernels have no zswap: refused before anything boots.
TEST(VmBoot, ZswapOnDebiansKernelIsRefusedBeforeBoot) {
  auto boot = prepare("zswap-debian");
  auto args = base_args(boot);
  args.insert(args.end(), {"--swap", "64M", "--zswap", "--", "version"});
  finish(boot, start(boot, args));
  EXPECT_NE(boot.code, 0);
  EXPECT_NE(boot.stderr_text.find("is built without zswap (CONFIG_ZSWAP)"), std::string::npos) << boot.stderr_text;
  EXPECT_EQ(boot.stderr_text.find("booting"), std::string::npos) << boot.stderr_text;
}

TEST(VmBoot, InnerFlagsNeedNoDoubleDash) {
  auto boot = run("no-dashes", {"version", "--json"});
  ASSERT_EQ(boot.code, 0) << boot.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(boot.stdout_text)["version"], "0.1.0");
}

}  // namespace
