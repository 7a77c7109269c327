// A regular expression on text cgmem did not write (cgroup paths, which any
// user with a delegated subtree names): --match of watch, top, exporter and
// guard, and a guard policy's `match`.
//
// RE2, not std::regex: libstdc++'s std::regex matches by recursion (a path
// of 30,000 characters against '^/.*$', or a pattern of 100,000 characters,
// overflowed the stack) and by backtracking ('(a+)+$' against 40 a's and a
// b never ended). RE2 matches in time linear in the text, with memory
// bounded by max_mem at compile time, and without recursion. Its syntax is
// POSIX extended plus Perl's classes (\d, \w, \s), non-greedy repeats and
// (?i); it has no backreferences (docs/watch.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/error.h"

namespace re2 {
class RE2;
}

namespace cgmem {

// Patterns longer than this are refused before RE2 sees them: a cgroup
// path regex, even an alternation of a few hundred names, is far shorter.
inline constexpr size_t kMaxPatternBytes = 16 * 1024;
// RE2's budget for one compiled pattern and its DFA cache (RE2's default).
inline constexpr int64_t kPatternMaxMem = 8 << 20;

class Pattern {
 public:
  // The empty pattern: matches every text.
  Pattern() = default;
  // `what` names the flag or key in the message ("--match", "rule 'a'.match").
  // An empty text gives the empty pattern.
  static Result<Pattern> compile(std::string_view text, std::string_view what);

  // A match anywhere in text (not anchored unless the pattern says ^ or $).
  bool search(std::string_view text) const;
  bool empty() const { return !re_; }
  const std::string& text() const { return text_; }

 private:
  std::shared_ptr<const re2::RE2> re_;  // immutable, so copies share it (RE2 is thread-safe)
  std::string text_;
};

}  // namespace cgmem
