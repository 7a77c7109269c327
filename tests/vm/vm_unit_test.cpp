// The pieces of src/vm that need no VM: the cpio writer (checked with the
// system's cpio), shell quoting, bzImage and ELF headers, kernel choice,
// module dependencies, the guest command, the QEMU command line.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "vm/bzimage.h"
#include "vm/cpio.h"
#include "vm/elf.h"
#include "vm/initramfs.h"
#include "vm/kernel.h"
#include "vm/kvm_memory.h"
#include "vm/locate.h"
#include "vm/modules.h"
#include "common/process.h"
#include "vm/qemu.h"
#include "vm/session.h"

namespace fs = std::filesystem;
using namespace cgmem;
using namespace cgmem::vm;

namespace {

// A fresh directory, removed when the test ends (passed or not).
struct TempDir {
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("cgmem-vm-unit-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path operator/(const std::string& name) const { return path / name; }
  std::string string() const { return path.string(); }
  fs::path path;
};

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(Cpio, EntryLayoutIsNewc) {
  CpioWriter cpio;
  cpio.file("a", "xyz", 0644);
  std::string archive = cpio.finish();
  // header 110 + "a\0" = 112 (aligned), data 3 -> 4, then the trailer.
  EXPECT_EQ(archive.substr(0, 6), "070701");
  EXPECT_EQ(archive.substr(6, 8), "00000001");    // ino
  EXPECT_EQ(archive.substr(14, 8), "000081a4");   // regular file, 0644
  EXPECT_EQ(archive.substr(54, 8), "00000003");   // filesize
  EXPECT_EQ(archive.substr(94, 8), "00000002");   // namesize with NUL
  EXPECT_EQ(archive.substr(110, 2), std::string("a\0", 2));
  EXPECT_EQ(archive.substr(112, 3), "xyz");
  EXPECT_EQ(archive.substr(116, 6), "070701");
  EXPECT_NE(archive.find("TRAILER!!!"), std::string::npos);
  EXPECT_EQ(archive.size() % 4, 0u);
}

TEST(Cpio, SystemCpioReadsItBack) {
  TempDir dir("cpio");
  CpioWriter cpio;
  cpio.directory("bin");
  cpio.file("bin/tool", "#!/bin/sh\necho hi\n", 0755);
  cpio.symlink("bin/sh", "busybox");
  write(dir / "a.cpio", cpio.finish());
  auto listed = run_program({"sh", "-c", "cpio -it --quiet < a.cpio && cpio -i --quiet --to-stdout bin/tool < a.cpio"},
                            dir.string());
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->exit_code, 0);
  EXPECT_EQ(listed->output, "bin\nbin/tool\nbin/sh\n#!/bin/sh\necho hi\n");
}

TEST(Initramfs, SameInputsSameBytesAndTheExpectedFiles) {
  GuestFiles files{.busybox = "BB", .cgmem = "CG", .modules = {{"virtio_blk", "KO"}}, .config = "CONFIG_HZ=250\n"};
  std::string one = initramfs_archive(files), two = initramfs_archive(files);
  EXPECT_EQ(one, two);
  TempDir dir("initramfs");
  write(dir / "i.cpio", one);
  auto listed = run_program({"sh", "-c", "cpio -it --quiet < i.cpio"}, dir.string());
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->output,
            "bin\nboot\ndev\nlib\nlib/modules\nproc\nsys\ntmp\nvm\ninit\nbin/busybox\nbin/sh\nbin/cgmem\n"
            "lib/modules/virtio_blk.ko\nlib/modules/order\nboot/config\n");
  EXPECT_EQ(guest_init_script().substr(0, 18), "#!/bin/busybox sh\n");
}

std::string fake_bzimage(const std::string& version) {
  std::string bytes(0x400, '\0');
  bytes.replace(0x202, 4, "HdrS");
  uint16_t offset = 0x300 - 0x200;
  bytes[0x20E] = static_cast<char>(offset & 0xff);
  bytes[0x20F] = static_cast<char>(offset >> 8);
  bytes.replace(0x300, version.size(), version);
  return bytes;
}

TEST(BzImage, ReadsTheRelease) {
  auto release = bzimage_release(fake_bzimage("6.12.117+deb12-cloud-amd64 (debian-kernel@lists.debian.org) #1 SMP"), "k");
  ASSERT_TRUE(release.has_value());
  EXPECT_EQ(*release, "6.12.117+deb12-cloud-amd64");
}

TEST(BzImage, RejectsOtherFiles) {
  auto release = bzimage_release("hello", "/etc/hostname");
  ASSERT_FALSE(release.has_value());
  EXPECT_EQ(release.error().message(),
            "not an x86 bzImage (no HdrS boot header): /etc/hostname (--kernel takes a bzImage, e.g. arch/x86/boot/bzImage)");
  std::string bad = fake_bzimage("x");
  bad[0x20F] = '\x7f';
  EXPECT_EQ(bzimage_release(bad, "k").error().message(),
            "bzImage version string lies outside the file: k (--kernel takes a bzImage, e.g. arch/x86/boot/bzImage)");
}

TEST(BzImage, PayloadWithoutItsSizeTrailer) {
  std::string bytes = fake_bzimage("6.12");
  bytes.resize(0x2000, '\0');
  bytes[0x1F1] = 3;                           // setup_sects: code at (3 + 1) * 512 = 0x800
  bytes[0x248] = 0x10;                        // payload_offset 0x10
  bytes[0x24C] = 0x20;                        // payload_length 0x20, 4 of them the size
  bytes.replace(0x810, 4, "\x28\xb5\x2f\xfd");  // zstd magic
  auto payload = bzimage_payload(bytes, "k");
  ASSERT_TRUE(payload.has_value()) << payload.error().message();
  EXPECT_EQ(payload->offset, 0x810u);
  EXPECT_EQ(payload->length, 0x1Cu);
  EXPECT_STREQ(payload->tool, "zstd");
  bytes.replace(0x810, 4, "ABCD");
  EXPECT_EQ(bzimage_payload(bytes, "k").error().message(), "bzImage payload has an unknown compression: k");
}

// A minimal ELF64 with one PT_NOTE segment holding one note.
std::string elf_with_note(const std::string& name, uint32_t type) {
  std::string notes(12, '\0');
  uint32_t header[3] = {static_cast<uint32_t>(name.size() + 1), 4, type};
  std::memcpy(notes.data(), header, 12);
  notes += name;
  notes.resize(12 + (name.size() + 1 + 3) / 4 * 4 + 4, '\0');
  Elf64_Ehdr ehdr{};
  std::memcpy(ehdr.e_ident, ELFMAG, SELFMAG);
  ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  ehdr.e_machine = EM_X86_64;
  ehdr.e_phoff = sizeof ehdr;
  ehdr.e_phentsize = sizeof(Elf64_Phdr);
  ehdr.e_phnum = 1;
  Elf64_Phdr phdr{};
  phdr.p_type = PT_NOTE;
  phdr.p_offset = sizeof ehdr + sizeof phdr;
  phdr.p_filesz = notes.size();
  return std::string(reinterpret_cast<char*>(&ehdr), sizeof ehdr) +
         std::string(reinterpret_cast<char*>(&phdr), sizeof phdr) + notes;
}

TEST(Elf, FindsThePvhNote) {
  TempDir dir("pvh");
  write(dir / "pvh", elf_with_note("Xen", 18));
  write(dir / "other", elf_with_note("GNU", 3));
  EXPECT_TRUE(has_pvh_note((dir / "pvh").string()).value());
  EXPECT_FALSE(has_pvh_note((dir / "other").string()).value());
  EXPECT_FALSE(has_pvh_note("/bin/busybox").value());
  EXPECT_EQ(has_pvh_note("/etc/passwd").error().message(), "not an ELF file: /etc/passwd");
}

TEST(Elf, TellsStaticFromDynamic) {
  auto busybox = is_static_executable("/bin/busybox");  // busybox-static
  ASSERT_TRUE(busybox.has_value());
  EXPECT_TRUE(*busybox);
  auto sh = is_static_executable("/bin/sh");  // dash, dynamically linked
  ASSERT_TRUE(sh.has_value());
  EXPECT_FALSE(*sh);
  EXPECT_EQ(is_static_elf("#!/bin/sh\n", "x").error().message(), "not an ELF executable: x");
}

TEST(Kernel, PinnedPackageName) {
  EXPECT_EQ(kernel_package(kPinnedKernel), "linux-image-6.12.117+deb12-cloud-amd64");
}

TEST(Kernel, NewestCloudReleaseFromAptCacheSearch) {
  std::string listing =
      "linux-image-6.12-cloud-amd64 - Linux for x86-64 cloud (meta-package)\n"
      "linux-image-6.12.9+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)\n"
      "linux-image-6.12.117+deb12-cloud-amd64-dbg - Debug symbols\n"
      "linux-image-6.12.111+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)\n"
      "linux-image-6.12.120+deb12-cloud-amd64-unsigned - Linux 6.12 for x86-64 cloud\n"
      "linux-image-6.12.117+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)\n";
  EXPECT_EQ(newest_cloud_release(listing, "6.12"), "6.12.117+deb12-cloud-amd64");
  EXPECT_EQ(newest_cloud_release("nothing here\n", "6.12"), std::nullopt);
  EXPECT_EQ(newest_cloud_release(listing, "6.1"), std::nullopt);
}

TEST(Kernel, NewestDebian61CloudReleaseByAbi) {
  std::string listing =
      "linux-image-6.1.0-9-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)\n"
      "linux-image-6.1.0-57-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)\n"
      "linux-image-6.1.0-57-cloud-amd64-dbg - Debug symbols\n"
      "linux-image-6.1.0-50-cloud-amd64 - Linux 6.1 for x86-64 cloud (signed)\n"
      "linux-image-6.12.117+deb12-cloud-amd64 - Linux 6.12 for x86-64 cloud (signed)\n"
      "linux-image-6.1.0-x-cloud-amd64 - not a release\n";
  EXPECT_EQ(newest_cloud_release(listing, "6.1"), "6.1.0-57-cloud-amd64");
  EXPECT_EQ(newest_cloud_release(listing, "6.12"), "6.12.117+deb12-cloud-amd64");
}

TEST(Kernel, DebianKernelsByName) {
  ASSERT_NE(find_debian_kernel("debian-6.1"), nullptr);
  EXPECT_STREQ(find_debian_kernel("debian-6.1")->series, "6.1");
  EXPECT_STREQ(find_debian_kernel("debian-6.12")->pinned, kPinnedKernel);
  EXPECT_EQ(find_debian_kernel("debian"), nullptr);
  EXPECT_EQ(find_debian_kernel("debian-6.16"), nullptr);
  EXPECT_EQ(kernel_package(find_debian_kernel("debian-6.1")->pinned), "linux-image-6.1.0-57-cloud-amd64");
}

TEST(Kernel, CacheDirFollowsXdg) {
  std::string saved = getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "";
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(cache_dir().value(), "/x/cache/cgmem");
  setenv("XDG_CACHE_HOME", "relative", 1);  // the XDG spec ignores relative paths
  setenv("HOME", getenv("HOME") ? getenv("HOME") : "/root", 1);
  EXPECT_EQ(cache_dir().value(), std::string(getenv("HOME")) + "/.cache/cgmem");
  if (saved.empty()) unsetenv("XDG_CACHE_HOME"); else setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

std::string fake_module(const std::string& depends) {
  using namespace std::string_literals;
  return "\x7f" "ELF....license=GPL\0depends="s + depends + "\0vermagic=6.12\0"s;
}

TEST(Modules, DependsFromModinfo) {
  EXPECT_EQ(module_depends(fake_module("zsmalloc,lz4hc_compress,lz4_compress")),
            (std::vector<std::string>{"zsmalloc", "lz4hc_compress", "lz4_compress"}));
  EXPECT_TRUE(module_depends(fake_module("")).empty());
  EXPECT_TRUE(module_depends("no modinfo").empty());
}

TEST(Modules, ResolvedDependenciesFirstAndDecompressed) {
  TempDir dir("modules");
  fs::create_directories(dir / "kernel/drivers/block/zram");
  fs::create_directories(dir / "kernel/mm");
  write(dir / "kernel/drivers/block/virtio_blk.ko", fake_module(""));
  write(dir / "kernel/drivers/block/zram/zram.ko", fake_module("zsmalloc,lz4-compress"));
  write(dir / "kernel/mm/zsmalloc.ko", fake_module(""));
  write(dir / "kernel/mm/lz4_compress.ko", fake_module(""));
  ASSERT_EQ(run_program({"xz", "-f", (dir / "kernel/mm/zsmalloc.ko").string()})->exit_code, 0);
  auto index = index_modules(dir.string());
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->size(), 4u);
  auto modules = resolve_modules(*index, {"virtio-blk", "zram"});
  ASSERT_TRUE(modules.has_value()) << modules.error().message();
  std::vector<std::string> names;
  for (const auto& m : *modules) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"virtio_blk", "zsmalloc", "lz4_compress", "zram"}));
  EXPECT_EQ((*modules)[1].bytes, fake_module(""));  // decompressed from .ko.xz
  fs::remove(dir / "kernel/mm/lz4_compress.ko");
  auto missing = resolve_modules(*index_modules(dir.string()), {"zram"});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message(), "the kernel has no module lz4_compress (needed by zram)");
}

TEST(Session, CommandScriptQuotesTheInnerCommand) {
  VmOptions options;
  options.command = {"host", "--json"};
  EXPECT_EQ(command_script(options), "exec cgmem host --json\n");
  options.command = {"run", "--name", "a b"};
  EXPECT_EQ(command_script(options), "exec cgmem run --name 'a b'\n");
  options.script = "/home/u/tests/batch.sh";
  options.command = {"oom"};
  EXPECT_EQ(command_script(options), "exec sh /vm/in/batch.sh oom\n");
}

TEST(Session, ParentCapIsThreeQuartersOfRamPageAligned) {
  EXPECT_EQ(parent_cap(512ull << 20), 384ull << 20);
  EXPECT_EQ(parent_cap(1000000000), 749998080u);
}

TEST(Session, GuestEnvAndConsoleErrors) {
  auto env = parse_env("kernel_release=6.12.117+deb12-cloud-amd64\nthp_enabled=always madvise [never]\nnoise\n");
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(env["thp_enabled"], "always madvise [never]");
  EXPECT_EQ(guest_error_from_console("boot\ncgmem-vm: error: no /dev/vda: this kernel has no virtio_blk\r\nmore"),
            "cgmem-vm: error: no /dev/vda: this kernel has no virtio_blk");
  EXPECT_EQ(guest_error_from_console("[ 1.5] Kernel panic - not syncing: No working init found.\n"),
            "Kernel panic - not syncing: No working init found.");
  EXPECT_EQ(guest_error_from_console("all fine\n"), "");
}

// The first lines of the console of the boot that died in CI on 2026-12-01
// (Debian's 6.12.117 under TCG), and the same death after the command began.
const char* const kOopsInStartKernel =
    "[    1.433724] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
    "[    1.434201] CPU: 0 UID: 0 PID: 0 Comm: swapper/0 Not tainted 6.12.117+deb12-cloud-amd64 #1\n"
    "[    1.434413] RIP: 0010:sched_clock_cpu+0x9/0x190\n"
    "[    1.445321] Kernel panic - not syncing: Fatal exception in interrupt\n";

TEST(Session, AnOopsBeforeTheCommandStartedIsBootedAgain) {
  EXPECT_EQ(guest_error_from_console(kOopsInStartKernel), "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI");
  EXPECT_EQ(oops_before_command(kOopsInStartKernel), "Oops: int3: 0000 [#1] PREEMPT SMP NOPTI");
  EXPECT_EQ(oops_before_command(std::string("cgmem-vm: running\n") + kOopsInStartKernel), "");
  // A panic without an Oops (no init, no root) is the kernel's setup, the same on every boot.
  EXPECT_EQ(oops_before_command("[ 1.5] Kernel panic - not syncing: No working init found.\n"), "");
  EXPECT_EQ(oops_before_command("cgmem-vm: error: no /dev/vda\n"), "");
  EXPECT_EQ(oops_before_command(""), "");
}

// What QEMU 7.2 printed on stderr when KVM, which had passed the probe,
// could not run Debian's 6.12 kernel on a nested host (2026-12-01); the
// guest then stayed paused until the timeout.
TEST(Session, AKvmEmulationFailureIsNamedSoTcgBootsAgain) {
  const std::string qemu =
      "KVM internal error. Suberror: 1\n"
      "extra data[0]: 0x0000000000000001\n"
      "extra data[1]: 0x894cc0f76942c40f\n"
      "emulation failure\n"
      "RAX=0000000001ad29a0 RBX=0000000004782b64 RCX=0000000000000000 RDX=0000000000000005\n";
  EXPECT_EQ(kvm_failure(qemu), "KVM internal error. Suberror: 1 (emulation failure)");
  EXPECT_EQ(kvm_failure("KVM internal error. Suberror: 3\n"), "KVM internal error. Suberror: 3");
  EXPECT_EQ(kvm_failure("qemu-system-x86_64: warning: host doesn't support requested feature\n"), "");
  EXPECT_EQ(kvm_failure(""), "");
}

TEST(Qemu, TcgCommandLine) {
  QemuSpec spec{.accel = Accel::tcg, .kernel = "/k/vmlinuz", .initrd = "/w/initramfs.gz", .disk = "/w/disk.img",
                .console_log = "/o/r.console.log", .mem_bytes = 512ull << 20, .cpus = 2};
  EXPECT_EQ(command_line(qemu_argv(spec)),
            "qemu-system-x86_64 -accel tcg -cpu max -m 512M -smp 2 -nodefaults -display none -no-reboot "
            "-kernel /k/vmlinuz -initrd /w/initramfs.gz -append 'console=ttyS0 quiet psi=1 panic=-1 cgmem.accel=tcg' "
            "-serial file:/o/r.console.log -chardev stdio,id=stderr,signal=off -serial chardev:stderr "
            "-drive file=/w/disk.img,format=raw,if=virtio");
  spec.accel = Accel::kvm;
  EXPECT_EQ(qemu_argv(spec)[1] + " " + qemu_argv(spec)[2] + " " + qemu_argv(spec)[3] + " " + qemu_argv(spec)[4],
            "-accel kvm -cpu host");
  // The guest's host probe reads the accelerator back from the command line.
  EXPECT_NE(command_line(qemu_argv(spec)).find("panic=-1 cgmem.accel=kvm'"), std::string::npos);
}

TEST(Qemu, ForwardsAddARestrictedUserNetworkWithHostForwardsOnLoopback) {
  QemuSpec spec{.kernel = "/k", .initrd = "/i", .disk = "/d", .console_log = "/c"};
  EXPECT_EQ(command_line(qemu_argv(spec)).find("-netdev"), std::string::npos);  // no NIC without --forward
  spec.forwards = {{.host_port = 19262, .guest_port = 9262}, {.host_port = 2222, .guest_port = 22}};
  EXPECT_TRUE(command_line(qemu_argv(spec)).ends_with(
      "-netdev user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:19262-:9262,hostfwd=tcp:127.0.0.1:2222-:22 "
      "-device virtio-net-pci,netdev=net0"))
      << command_line(qemu_argv(spec));
}

TEST(Locate, ExplicitDynamicCgmemIsRefused) {
  auto found = find_static_cgmem("/bin/sh", "/nonexistent/cgmem");
  ASSERT_FALSE(found.has_value());
  EXPECT_EQ(found.error().message(), "--cgmem /bin/sh is dynamically linked; the guest needs a static cgmem");
}

TEST(Locate, CgmemStaticBesideThisCgmem) {
  TempDir dir("locate");
  fs::create_directories(dir / "build/release/src/cli");
  write(dir / "build/release/CMakeCache.txt", "CMAKE_HOME_DIRECTORY:INTERNAL=/src/cgmem\n");
  fs::copy_file("/bin/sh", dir / "build/release/src/cli/cgmem");
  std::string self = (dir / "build/release/src/cli/cgmem").string();
  std::string sibling = (dir / "build/release/src/cli/cgmem-static").string();
  auto none = find_static_cgmem("", self);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().message(),
            "no statically linked cgmem to run in the guest: this cgmem (" + self + ") is dynamically linked and " +
                sibling + " is not a static cgmem (build it with 'cmake --build " + (dir / "build/release").string() +
                " --target cgmem-static', or pass --cgmem PATH)");
  fs::copy_file("/bin/busybox", sibling);  // any static ELF
  EXPECT_EQ(find_static_cgmem("", self).value(), sibling);
}

}  // namespace

TEST(KvmMemory, AFailureIsRememberedForThisHostBootOnly) {
  TempDir cache("kvm-memory");
  EXPECT_EQ(remembered_kvm_failure(cache.string()), std::nullopt);
  remember_kvm_failure(cache.string(), "KVM internal error. Suberror: 1 (emulation failure)");
  EXPECT_EQ(remembered_kvm_failure(cache.string()), "KVM internal error. Suberror: 1 (emulation failure)");
  // Written on another boot of the host: forgotten, KVM is probed again.
  std::ofstream(cache.string() + "/kvm-failed") << "00000000-0000-0000-0000-000000000000\nKVM internal error\n";
  EXPECT_EQ(remembered_kvm_failure(cache.string()), std::nullopt);
}
