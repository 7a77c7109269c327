// A figure's gnuplot script for any run names (report/gnuplot_script.h):
// the input is split at the first two 0xff bytes into the figure's title
// and two line titles. gnuplot runs every line it reads, so the script must
// be the same commands whatever the names: read with gnuplot's own rules
// for single-quoted strings ('' inside is a quote; a newline ends the
// command even inside one), its lines with every quoted string cut out must
// equal those of the script built for plain names, and each quoted string
// must read back as its name with control bytes shown as '?' and quotes as
// U+2019 (gnuplot 5.4 misreads some runs of '').
#include <string>
#include <vector>

#include "fuzz.h"
#include "report/gnuplot_script.h"

namespace {

struct Read {
  std::string skeleton;              // the script with each quoted string as Q
  std::vector<std::string> strings;  // their contents, unquoted
  bool ok = true;                    // every string closed on its own line
};

Read read_script(const std::string& script) {
  Read r;
  for (size_t i = 0; i < script.size(); ++i) {
    if (script[i] != '\'') {
      r.skeleton += script[i];
      continue;
    }
    std::string s;
    for (++i;; ++i) {
      if (i == script.size() || script[i] == '\n') return r.ok = false, r;
      if (script[i] == '\'' && i + 1 < script.size() && script[i + 1] == '\'') s += '\'', ++i;
      else if (script[i] == '\'') break;
      else s += script[i];
    }
    r.skeleton += 'Q';
    r.strings.push_back(s);
  }
  return r;
}

std::string shown(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '\'') out += "\u2019";
    else out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  return out;
}

std::string build(const std::string& title, const std::string& a, const std::string& b) {
  using namespace cgmem::report;
  return figure_script(title, "set xlabel 'x'\n", plot_command({{a, "a.dat", "lines"}, {b, "b.dat", "lines"}})) +
         draw_commands("svg", "memory-x", "svg");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using cgmem::fuzz::check;
  std::string_view in = cgmem::fuzz::text(data, size);
  std::string names[3];
  for (int i = 0; i < 3; ++i) {
    size_t at = i < 2 ? in.find('\xff') : std::string_view::npos;
    names[i] = std::string(in.substr(0, at));
    in = at == std::string_view::npos ? std::string_view() : in.substr(at + 1);
  }
  std::string script = build(names[0], names[1], names[2]);
  for (char c : script) check(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
  Read got = read_script(script), want = read_script(build("t", "a", "b"));
  check(got.ok && want.ok);
  check(got.skeleton == want.skeleton);
  check(got.strings.size() == want.strings.size());
  // In order: the title, then file and title of each line, then output and load.
  check(got.strings[0] == shown(names[0]));
  check(got.strings[3] == shown(names[1]) && got.strings[2] == "a.dat");
  check(got.strings[5] == shown(names[2]) && got.strings[4] == "b.dat");
  return 0;
}
