// A test double for Effects on a fixture tree: directories and writes go to
// the temp tree (a new child gets a copy of a template cgroup's files, as the
// kernel would give it control files), signals are only recorded (a fixture's
// cgroup.procs names pids of another machine), and every call is logged.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cgroup/effects.h"
#include "cgroup/reader.h"

namespace cgmem::testing {

// mkdirat(parent_fd, name) with the control files of `template_dir`, as
// the kernel gives a new cgroup its files: no pids, not populated. 0 or the errno.
inline int make_fixture_cgroup(int parent_fd, const std::string& name, const std::string& template_dir) {
  if (::mkdirat(parent_fd, name.c_str(), 0755) != 0) return errno;
  int child = ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY);
  for (const auto& entry : std::filesystem::directory_iterator(template_dir)) {
    std::string file = entry.path().filename();
    int fd = ::openat(child, file.c_str(), O_WRONLY | O_CREAT, 0644);
    auto read = cgroup::read_text(entry.path().string());
    std::string text = read ? *read : std::string();
    if (file == "cgroup.procs" || file == "cgroup.threads") text.clear();  // a new cgroup is empty
    if (file == "cgroup.events") text = "populated 0\nfrozen 0\n";
    (void)!::write(fd, text.data(), text.size());
    ::close(fd);
  }
  ::close(child);
  return 0;
}

class RecordingEffects final : public cgroup::Effects {
 public:
  explicit RecordingEffects(std::string child_template) : template_(std::move(child_template)) {}

  int make_dir(int parent_fd, const std::string& name) override {
    calls.push_back("mkdir " + name);
    return make_fixture_cgroup(parent_fd, name, template_);
  }
  int set_xattr(const std::string& path, const char* name, std::string_view) override {
    calls.push_back("setxattr " + std::filesystem::path(path).filename().string() + " " + name);
    return 0;
  }
  // A fixture tree stands for cgroupfs unless a test says otherwise.
  bool on_cgroupfs(int) override { return cgroupfs; }
  int remove_dir(const std::string& path) override {
    calls.push_back("rmdir " + std::filesystem::path(path).filename().string());
    if (remove_errno != 0) return remove_errno;
    std::filesystem::remove_all(path);  // cgroupfs removes the control files with the directory
    return 0;
  }
  int write_file(int dir_fd, const char* name, std::string_view text) override {
    calls.push_back("write " + std::string(name) + " " + std::string(text));
    for (const auto& [file, err] : refusals) {
      if (file == name) return err;
    }
    // A regular file keeps what was written: truncate first, as the kernel's
    // value replaces the old one.
    int fd = ::openat(dir_fd, name, O_WRONLY | O_TRUNC);
    if (fd < 0) return errno;
    std::string written(text);
    if (auto kept = kernel_keeps.find(name); kept != kernel_keeps.end()) written = kept->second;
    if (round_to_pages && std::string_view(name).starts_with("memory.") && written != "max") {
      written = std::to_string(std::stoull(written) / 4096 * 4096);
    }
    (void)!::write(fd, written.data(), written.size());
    ::close(fd);
    return 0;
  }
  int send_signal(pid_t pid, int signal) override {
    calls.push_back("kill " + std::to_string(pid) + " " + std::to_string(signal));
    return 0;
  }

  std::vector<std::string> calls;
  std::vector<std::pair<std::string, int>> refusals;  // file -> errno to return
  int remove_errno = 0;
  bool cgroupfs = true;
  bool round_to_pages = false;
  // What the file holds after a write, instead of the text written.
  std::map<std::string, std::string> kernel_keeps;  // imitate the kernel's page rounding of memory.* limits

 private:
  std::string template_;
};

}  // namespace cgmem::testing
