#include "lab/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

namespace cgmem::lab {

KernelLog::KernelLog(const std::string& path) {
  fd_.reset(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd_.valid()) ::lseek(fd_.get(), 0, SEEK_END);
}

std::vector<std::string> oom_lines_for(const std::vector<std::string>& messages,
                                       std::string_view cgroup) {
  std::vector<std::string> kept;
  // A path is named followed by ',' or at the end ("oom_memcg=/cgmem/over,").
  auto names_cgroup = [&](std::string_view message) {
    for (size_t at = message.find(cgroup); at != std::string_view::npos;
         at = message.find(cgroup, at + 1)) {
      size_t end = at + cgroup.size();
      bool starts = at > 0 && message[at - 1] == '=';
      if (starts && (end == message.size() || message[end] == ',' || message[end] == ' '))
        return true;
    }
    return false;
  };
  bool ours = false;
  for (std::string_view message : messages) {
    if (message.starts_with("oom-kill:")) ours = names_cgroup(message);
    bool follows = message.find("Killed process") != std::string_view::npos ||
                   message.starts_with("oom_reaper:");
    if (names_cgroup(message) || (ours && follows)) kept.emplace_back(message);
  }
  return kept;
}

std::vector<std::string> KernelLog::collect(std::string_view cgroup) {
  std::vector<std::string> messages;
  if (!fd_.valid()) return messages;
  char record[8192];
  for (;;) {
    ssize_t n = ::read(fd_.get(), record, sizeof record);
    if (n < 0 && errno == EPIPE) continue;  // overwritten records: go on
    if (n <= 0) break;
    std::string_view text(record, static_cast<size_t>(n));
    // "6,1234,5678901,-;message\n KEY=value\n..."
    size_t semi = text.find(';');
    if (semi == std::string_view::npos) continue;
    text.remove_prefix(semi + 1);
    messages.emplace_back(text.substr(0, text.find('\n')));
  }
  return oom_lines_for(messages, cgroup);
}

}  // namespace cgmem::lab
