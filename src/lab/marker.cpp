#include "lab/marker.h"

#include <sys/xattr.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/text.h"

namespace cgmem::lab {

std::string format_mark(const Mark& mark) {
  return fmt::format("pid={} dir={}", mark.driver, mark.run_dir);
}

std::optional<Mark> parse_mark(std::string_view text) {
  if (!text.starts_with("pid=")) return std::nullopt;
  text.remove_prefix(4);
  size_t space = text.find(' ');
  auto pid = to_u64(text.substr(0, space));
  if (!pid || *pid == 0 || *pid > 0x7fffffff) return std::nullopt;
  Mark mark{.driver = static_cast<pid_t>(*pid)};
  if (space != std::string_view::npos && text.substr(space + 1).starts_with("dir="))
    mark.run_dir = std::string(text.substr(space + 5));
  return mark;
}

Result<void> set_mark(cgroup::Effects& effects, const std::string& path, const Mark& mark) {
  if (int err = effects.set_xattr(path, kMarkAttr, format_mark(mark)); err != 0)
    return std::unexpected(Error{.what = fmt::format("mark the cgroup as cgmem's ({})", kMarkAttr), .err = err,
                                 .path = path, .hint = "cgmem gc cannot find this cgroup if the driver is killed"});
  return {};
}

std::optional<Mark> read_mark(const std::string& path) {
  char value[4096];
  ssize_t n = ::getxattr(path.c_str(), kMarkAttr, value, sizeof value);
  if (n <= 0) return std::nullopt;
  return parse_mark(std::string_view(value, static_cast<size_t>(n)));
}

bool driver_alive(pid_t pid, const std::string& proc_root) {
  char exe[4096];
  std::string link = fmt::format("{}/{}/exe", proc_root, pid);
  ssize_t n = ::readlink(link.c_str(), exe, sizeof exe - 1);
  if (n <= 0) return false;
  std::string_view target(exe, static_cast<size_t>(n));
  if (target.ends_with(" (deleted)")) target.remove_suffix(10);
  std::string_view base = target.substr(target.rfind('/') + 1);
  return base == "cgmem" || base.starts_with(".cgmem-own-code-");
}

}  // namespace cgmem::lab
