// The Cgroup handle: opening, children, controllers, limits and reads.
// Lifecycle (kill, wait, remove) is in cgroup_lifecycle.cpp, spawn in spawn.cpp.
#include "cgroup/cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/files.h"
#include "cgroup/lists.h"
#include "cgroup/single_value.h"

namespace cgmem::cgroup {

Result<Cgroup> Cgroup::open(const std::string& path, Effects& effects) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return sys_error("open cgroup", path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return sys_error("stat cgroup", path);
  std::string clean = path;
  while (clean.size() > 1 && clean.back() == '/') clean.pop_back();
  return Cgroup(std::move(fd), std::move(clean), st.st_ino, st.st_dev, effects);
}

Result<void> Cgroup::check_name(std::string_view name) {
  // Built with append: g++ 12 -O3 gives a false -Wrestrict on "'" + std::string(...).
  std::string shown = "'";
  shown.append(name.substr(0, name.find('\0'))).append("'");
  if (name.empty()) return fail("bad cgroup name ''", {}, "a name is one non-empty path component");
  if (name == "." || name == "..") {
    return fail("bad cgroup name " + shown, {}, "'.' and '..' are not cgroup names");
  }
  if (name.find('/') != std::string_view::npos) {
    return fail("bad cgroup name " + shown, {}, "a name is one path component, without '/'");
  }
  if (name.find('\0') != std::string_view::npos) {
    return fail("bad cgroup name " + shown, {}, "a name cannot contain a NUL byte");
  }
  return {};
}

Result<void> Cgroup::require_cgroupfs(std::string_view action) const {
  if (effects_->on_cgroupfs(fd_.get())) return {};
  return fail(std::string(action) + ": not a cgroup (not on a cgroup2 file system)", path_,
              "give a directory under the cgroup2 mount; `cgmem host` shows where it is");
}

Result<Cgroup> Cgroup::create_child(std::string_view name) const {
  if (auto ok = require_cgroupfs("create a child cgroup"); !ok) return std::unexpected(ok.error());
  if (auto ok = check_name(name); !ok) return std::unexpected(ok.error());
  std::string child(name);
  if (int err = effects_->make_dir(fd_.get(), child); err != 0) {
    std::string hint = err == EEXIST   ? "it exists already: remove it or choose another name"
                       : err == EACCES || err == EPERM
                           ? "run as root, or under a cgroup delegated to you"
                           : "";
    return std::unexpected(Error{"create cgroup", err, path_ + "/" + child, hint});
  }
  return Cgroup::open(path_ + "/" + child, *effects_);
}

Result<std::string> Cgroup::read(const char* file) const {
  return read_text_at(fd_.get(), file, file_path(file));
}

Result<FileReader> Cgroup::reader(const char* file) const {
  return FileReader::open(fd_.get(), file, file_path(file));
}

Error Cgroup::write_error(const char* file, std::string_view text, int err) const {
  std::string_view name = file;
  std::string controller(name.substr(0, name.find('.')));
  std::string parent = path_.substr(0, path_.rfind('/'));
  std::string hint;
  if (err == ENOENT && controller != "cgroup") {
    hint = "the " + controller + " controller is not enabled in " + parent +
           "/cgroup.subtree_control: enable it, or run under a delegated cgroup";
  } else if (err == EACCES || err == EPERM) {
    hint = "run as root, or under a cgroup delegated to you";
  } else if ((err == ENODEV || err == EINVAL) && name == files::kIoMax) {
    hint = "io.max takes the MAJ:MIN of a whole disk the kernel knows (io_device_for(path) "
           "finds it), and byte or I/O rates as numbers or max";
  } else if (err == EBUSY && name == files::kCgroupSubtreeControl) {
    hint = "a cgroup with processes cannot enable controllers for its children: move them to a "
           "leaf cgroup first";
  }
  std::string shown(trim_end(text));
  return Error{"write '" + shown + "'", err, file_path(file), hint};
}

Result<void> Cgroup::write(const char* file, std::string_view text, bool nonblocking) const {
  if (auto ok = require_cgroupfs(std::string("write ") + file); !ok) return ok;
  int err = nonblocking ? effects_->write_file_nonblocking(fd_.get(), file, text)
                        : effects_->write_file(fd_.get(), file, text);
  if (err != 0) {
    return std::unexpected(write_error(file, text, err));
  }
  return {};
}

Result<std::vector<std::string>> Cgroup::controllers() const {
  auto text = read(files::kCgroupControllers);
  if (!text) return std::unexpected(text.error());
  return parse_controllers(*text);
}

Result<std::vector<std::string>> Cgroup::subtree_control() const {
  auto text = read(files::kCgroupSubtreeControl);
  if (!text) return std::unexpected(text.error());
  return parse_controllers(*text);
}

Result<void> Cgroup::enable_controllers(std::initializer_list<std::string_view> names) const {
  auto available = read(files::kCgroupControllers);
  if (!available) return std::unexpected(available.error());
  auto enabled = read(files::kCgroupSubtreeControl);
  if (!enabled) return std::unexpected(enabled.error());
  std::string request;
  for (std::string_view name : names) {
    if (!has_controller(*available, name)) {
      return fail("enable the " + std::string(name) + " controller",
                  file_path(files::kCgroupControllers),
                  "it is not available here: enable it in the parent's cgroup.subtree_control, "
                  "or run under a delegated cgroup");
    }
    if (has_controller(*enabled, name)) continue;
    request += (request.empty() ? "+" : " +") + std::string(name);
  }
  if (request.empty()) return {};
  return write(files::kCgroupSubtreeControl, request);
}

Result<Limit> Cgroup::read_limit(const char* file) const {
  auto text = read(file);
  if (!text) return std::unexpected(text.error());
  return parse_limit_file(*text, file_path(file));
}

Result<Limit> Cgroup::set_limit(const char* file, Limit value, bool nonblocking) const {
  std::string text = value.is_max() ? "max" : std::to_string(value.bytes());
  if (auto ok = write(file, text, nonblocking); !ok) return std::unexpected(ok.error());
  return read_limit(file);
}

Result<std::vector<IoMax>> Cgroup::read_io_max() const {
  auto text = read(files::kIoMax);
  if (!text) return std::unexpected(text.error());
  return parse_io_max(*text, file_path(files::kIoMax));
}

Result<IoMax> Cgroup::set_io_max(const IoMax& entry) const {
  if (auto ok = write(files::kIoMax, format_io_max(entry)); !ok) return std::unexpected(ok.error());
  auto entries = read_io_max();
  if (!entries) return std::unexpected(entries.error());
  for (const auto& e : *entries) {
    if (e.device == entry.device) return e;
  }
  // The kernel drops a line whose every field is max: no entry means no limit.
  return IoMax{entry.device, Limit::max(), Limit::max(), Limit::max(), Limit::max()};
}

Result<uint64_t> Cgroup::read_counter(const char* file) const {
  auto text = read(file);
  if (!text) return std::unexpected(text.error());
  return parse_counter_file(*text, file_path(file));
}

Result<MemoryEvents> Cgroup::memory_events() const {
  auto text = read(files::kMemoryEvents);
  if (!text) return std::unexpected(text.error());
  return parse_memory_events(*text, file_path(files::kMemoryEvents));
}

Result<MemoryStat> Cgroup::memory_stat() const {
  auto text = read(files::kMemoryStat);
  if (!text) return std::unexpected(text.error());
  return parse_memory_stat(*text, file_path(files::kMemoryStat));
}

Result<CgroupEvents> Cgroup::cgroup_events() const {
  auto text = read(files::kCgroupEvents);
  if (!text) return std::unexpected(text.error());
  return parse_cgroup_events(*text, file_path(files::kCgroupEvents));
}

Result<Pressure> Cgroup::pressure(const char* file) const {
  auto text = read(file);
  if (!text) return std::unexpected(text.error());
  return parse_pressure(*text, file_path(file));
}

Result<std::vector<pid_t>> Cgroup::procs() const {
  auto text = read(files::kCgroupProcs);
  if (!text) return std::unexpected(text.error());
  return parse_procs(*text, file_path(files::kCgroupProcs));
}

Result<bool> Cgroup::populated() const {
  auto events = cgroup_events();
  if (!events) return std::unexpected(events.error());
  if (!events->populated) {
    return fail("read populated", file_path(files::kCgroupEvents),
                "the file has no 'populated' key: is this a cgroup v2 directory?");
  }
  return *events->populated != 0;
}

Result<void> Cgroup::move(pid_t pid) const { return write(files::kCgroupProcs, std::to_string(pid)); }

bool Cgroup::is_same() const {
  struct stat st {};
  return ::stat(path_.c_str(), &st) == 0 && st.st_ino == inode_ && st.st_dev == dev_;
}

}  // namespace cgmem::cgroup
