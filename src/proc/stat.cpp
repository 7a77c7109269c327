#include "proc/stat.h"

#include <limits>
#include <string>

#include "common/text.h"

namespace cgmem::proc {


namespace {

std::unexpected<Error> bad(std::string_view source, std::string_view why, std::string_view text) {
  return fail("parse " + std::string(source) + ": " + std::string(why) + " in " + quote(text));
}

}  // namespace

Result<ProcStat> parse_proc_stat(std::string_view text, std::string_view source) {
  size_t open = text.find(" (");
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open + 1) {
    return bad(source, "no '(comm)'", text);
  }
  ProcStat out;
  auto pid = to_u64(text.substr(0, open));
  if (!pid || *pid == 0 || *pid > static_cast<uint64_t>(std::numeric_limits<pid_t>::max())) {
    return bad(source, "no pid", text);
  }
  out.pid = static_cast<pid_t>(*pid);
  out.comm = text.substr(open + 2, close - open - 2);
  std::string_view rest = text.substr(close + 1);
  // Field 3 is the first token after ')'.
  bool have_utime = false, have_stime = false, have_cpu = false;
  for (int field = 3; field <= 39 && !rest.empty(); ++field) {
    std::string_view token = next_token(rest);
    if (token.empty()) break;
    if (field == 3) out.state = token.size() == 1 ? token[0] : '?';
    auto value = field == 14 || field == 15 || field == 39 ? to_u64(trim(token)) : std::nullopt;
    if (field == 14 && value) out.utime_ticks = *value, have_utime = true;
    if (field == 15 && value) out.stime_ticks = *value, have_stime = true;
    if (field == 39 && value && *value < 1u << 20) out.processor = static_cast<int>(*value), have_cpu = true;
  }
  if (out.state == '?' || !have_utime || !have_stime) {
    return bad(source, "fewer than 15 fields or a bad state/utime/stime", text);
  }
  (void)have_cpu;  // absent on truncated lines; processor stays -1
  return out;
}

}  // namespace cgmem::proc
