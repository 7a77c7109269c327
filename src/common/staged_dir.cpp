#include "common/staged_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "common/fd.h"
#include "common/file.h"

namespace cgmem {

namespace fs = std::filesystem;

namespace {

// ".NAME.tmp-" : the staging directories of target NAME start so.
// Built with append: g++ 12 -O3 gives a false -Wrestrict on "." + std::string.
std::string staging_prefix(const fs::path& target) {
  std::string prefix = ".";
  return prefix.append(target.filename().string()).append(".tmp-");
}

// True when `dir` is absent, empty, marked, or holds only known entries.
bool replaceable(const fs::path& dir, const std::string& marker, const std::vector<std::string>& known) {
  std::error_code ec;
  auto status = fs::symlink_status(dir, ec);
  if (!fs::exists(status)) return true;
  if (!fs::is_directory(status)) return false;
  if (fs::exists(dir / marker, ec)) return true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (std::find(known.begin(), known.end(), name) == known.end()) return false;
  }
  return !ec;
}

// Removes staging directories beside `target` left by writers that died
// (SIGKILL, a crash): only those that hold the marker, which begin() writes
// first, so a directory of the user's that happens to match is kept.
void remove_stale(const fs::path& target, const std::string& marker) {
  std::error_code ec;
  std::string prefix = staging_prefix(target);
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    pid_t pid = 0;
    auto [end, err] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), pid);
    bool dead = err == std::errc() && end == name.data() + name.size() && ::kill(pid, 0) != 0 && errno == ESRCH;
    if (dead && entry.is_directory(ec) && !entry.is_symlink(ec) && fs::is_regular_file(fs::symlink_status(entry.path() / marker, ec)))
      fs::remove_all(entry.path(), ec);
  }
}

constexpr char kMarkerText[] = "written by cgmem; replaced whole on the next write\n";

std::unexpected<Error> not_ours(const fs::path& target) {
  return fail("the output directory holds files that cgmem did not write", target.string(),
              "give a new or empty directory; cgmem replaces only its own output");
}

}  // namespace

Result<StagedDir> StagedDir::begin(const std::string& target, std::string marker, std::vector<std::string> known) {
  fs::path t = fs::absolute(target).lexically_normal();
  if (t.filename().empty()) t = t.parent_path();
  if (!replaceable(t, marker, known)) return not_ours(t);
  std::error_code ec;
  fs::create_directories(t.parent_path(), ec);
  if (ec) return fail("create the output's parent directory: " + ec.message(), t.parent_path().string());
  remove_stale(t, marker);
  fs::path staging = t.parent_path() / (staging_prefix(t) + std::to_string(::getpid()));
  fs::remove_all(staging, ec);  // our own pid's: a leftover of this very process id
  if (!fs::create_directory(staging, ec))
    return fail("create a staging directory: " + ec.message(), staging.string(), "check that the place is writable");
  StagedDir staged(t.string(), staging.string(), std::move(marker), std::move(known));
  if (auto marked = write_file((staging / staged.marker_).string(), kMarkerText); !marked) return std::unexpected(marked.error());
  return staged;
}

StagedDir::StagedDir(StagedDir&& other) noexcept
    : target_(std::move(other.target_)), staging_(std::move(other.staging_)), marker_(std::move(other.marker_)),
      known_(std::move(other.known_)), done_(std::exchange(other.done_, true)) {}

StagedDir::~StagedDir() {
  if (done_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

Result<void> StagedDir::commit() {
  if (auto marked = write_file_atomic(staging_ + "/" + marker_, kMarkerText); !marked) return marked;
  fs::path target(target_);
  Fd parent(::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent.valid()) return sys_error("open the output's parent directory", target.parent_path().string());
  if (::flock(parent.get(), LOCK_EX) != 0) return sys_error("lock", target.parent_path().string());
  // Checked again under the lock: the directory may have changed since begin().
  if (!replaceable(target, marker_, known_)) return not_ours(target);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(target, ec))) {
    if (::rename(staging_.c_str(), target_.c_str()) != 0) return sys_error("rename into place", target_);
    done_ = true;
    return {};
  }
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0)
    return sys_error("swap the new output into place", target_);
  fs::remove_all(staging_, ec);  // now the old output
  done_ = true;
  return {};
}

}  // namespace cgmem
