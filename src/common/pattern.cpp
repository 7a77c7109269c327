#include "common/pattern.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace cgmem {

Result<Pattern> Pattern::compile(std::string_view text, std::string_view what) {
  Pattern p;
  if (text.empty()) return p;
  auto quoted = [&] {
    return text.size() <= 80 ? fmt::format("{} '{}'", what, text)
                             : fmt::format("{} '{}...' ({} characters)", what, text.substr(0, 40), text.size());
  };
  if (text.size() > kMaxPatternBytes)
    return fail(fmt::format("{} is longer than {} characters", quoted(), kMaxPatternBytes), "",
                "match a shorter pattern, e.g. a common prefix ('^/kubepods') instead of every name");
  RE2::Options options;
  options.set_log_errors(false);  // RE2 logs to stderr otherwise; the error is ours to print
  options.set_never_capture(true);
  options.set_max_mem(kPatternMaxMem);
  auto re = std::make_shared<const RE2>(re2::StringPiece(text.data(), text.size()), options);
  if (!re->ok())
    return fail(fmt::format("{} is not a regular expression: {}", quoted(), re->error()), "",
                "RE2 syntax (POSIX extended and Perl's \\d \\w \\s), e.g. 'kubepods|system\\.slice'");
  p.re_ = std::move(re);
  p.text_ = std::string(text);
  return p;
}

bool Pattern::search(std::string_view text) const {
  return !re_ || RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace cgmem
