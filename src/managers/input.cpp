#include "managers/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fmt/format.h>

#include "common/fd.h"

namespace cgmem::managers {
namespace {

// Columns of a block-structure prefix: indentation plus "- " / "? " / ": "
// markers that open a nested collection on the same line.
size_t block_prefix(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') ++i;
    else if ((line[i] == '-' || line[i] == '?' || line[i] == ':') && i + 1 < line.size() && line[i + 1] == ' ')
      i += 2;
    else break;
  }
  return i;
}

std::unexpected<Error> too_big(const std::string& path, uint64_t max_bytes) {
  return std::unexpected(Error{.what = "read", .err = EFBIG, .path = path,
                               .hint = fmt::format("cgmem reads at most {} bytes of a manager's file", max_bytes)});
}

}  // namespace

Result<std::string> read_input_file(const std::string& path, uint64_t max_bytes) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!f.valid()) return sys_error("read", path);
  struct stat st{};
  if (::fstat(f.get(), &st) != 0) return sys_error("stat", path);
  if (S_ISDIR(st.st_mode))
    return std::unexpected(Error{.what = "read", .err = EISDIR, .path = path, .hint = "give the file itself"});
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes)
    return too_big(path, max_bytes);
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("read", path);
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes) return too_big(path, max_bytes);
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

Result<void> check_yaml_shape(std::string_view text, std::string_view name) {
  if (text.size() > kMaxInputBytes)
    return fail(fmt::format("{}: {} bytes of YAML, more than the {} cgmem reads", name, text.size(), kMaxInputBytes));
  int depth = 0, aliases = 0, line_no = 1;
  char quote = 0;
  bool comment = false, line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line_start) {
      line_start = false;
      size_t end = std::min(text.find('\n', i), text.size());
      if (quote == 0 && depth == 0 && block_prefix(text.substr(i, end - i)) > 2 * kMaxYamlDepth)
        return fail(fmt::format("{}:{}: YAML nested deeper than {} levels", name, line_no, kMaxYamlDepth), {},
                    "cgmem refuses such a document before parsing it");
    }
    if (c == '\n') {
      ++line_no, line_start = true, comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) comment = true;
    else if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxYamlDepth)
        return fail(fmt::format("{}:{}: YAML nested deeper than {} levels", name, line_no, kMaxYamlDepth), {},
                    "cgmem refuses such a document before parsing it");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '*' && (i == 0 || std::string_view(" \t[{,:-").find(text[i - 1]) != std::string_view::npos)) {
      if (++aliases > kMaxYamlAliases)
        return fail(fmt::format("{}: more than {} YAML aliases", name, kMaxYamlAliases), {},
                    "cgmem refuses such a document before parsing it");
    }
  }
  return {};
}

Result<std::pair<std::string, std::string>> key_value(std::string_view text, const char* flag) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return fail(fmt::format("{} '{}': not KEY=VALUE", flag, text));
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

}  // namespace cgmem::managers
