#include "lab/run_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fmt/format.h>

#include "common/file.h"

namespace cgmem::lab {
namespace {

bool is_empty_dir(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return false;
  bool empty = true;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") empty = false;
  }
  ::closedir(dir);
  return empty;
}

std::string format_time(time_t when, const char* pattern) {
  tm utc{};
  ::gmtime_r(&when, &utc);
  char text[32];
  size_t n = std::strftime(text, sizeof text, pattern, &utc);
  return std::string(text, n);
}

}  // namespace

Result<RunDir> RunDir::create(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // The directories this call makes, deepest first: remove_if_empty takes
  // back these and never one that was there before.
  std::vector<std::string> made_dirs;
  for (fs::path p = fs::absolute(path).lexically_normal(); !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    made_dirs.push_back(p.string());
    if (p == p.parent_path()) break;
  }
  bool made = fs::create_directories(path, ec);
  if (ec) {
    errno = ec.value();
    return sys_error("create the run directory", path, "give --out a writable place");
  }
  if (!made && !is_empty_dir(path))
    return fail("the run directory exists and is not empty", path,
                "give --out a new directory, or remove the old run");
  RunDir dir(path);
  dir.made_ = std::move(made_dirs);
  return dir;
}

void RunDir::remove_if_empty() const {
  // rmdir fails, as it should, on a directory with anything in it.
  if (made_.empty()) ::rmdir(path_.c_str());  // an empty one that was there: it was given, so taken back
  for (const auto& d : made_)
    if (::rmdir(d.c_str()) != 0) break;
}

Result<void> RunDir::write_text(const char* name, const std::string& text) const {
  return write_file_atomic(file(name), text);
}

Result<void> RunDir::write_json(const char* name, const nlohmann::json& value) const {
  return write_text(name, value.dump(2) + "\n");
}

Result<Fd> RunDir::open_append(const char* name) const {
  std::string path = file(name);
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid()) return sys_error("open for appending", path);
  return fd;
}

std::string default_run_path(const std::string& base, const std::string& name, time_t when) {
  return fmt::format("{}/runs/{}-{}", base, name, format_time(when, "%Y%m%dT%H%M%SZ"));
}

}  // namespace cgmem::lab
