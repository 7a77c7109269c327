#include "report/gnuplot_script.h"

#include <fmt/format.h>

namespace cgmem::report {

std::string gnuplot_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\'') out += "\u2019";  // see the header: gnuplot 5.4 misreads '' at a string's start or twice in a row
    else if (byte < 0x20 || byte == 0x7f) out += '?';
    else out += c;
  }
  return out + "'";
}

std::string plot_command(const std::vector<Series>& series) {
  std::string cmd = "plot ";
  for (size_t i = 0; i < series.size(); ++i)
    cmd += fmt::format("{}{} using 1:2 with {} title {}", i ? ", " : "", gnuplot_quote(series[i].file),
                       series[i].style, gnuplot_quote(series[i].title));
  return cmd + "\n";
}

std::string figure_script(std::string_view title, std::string_view setup, std::string_view plot) {
  return fmt::format("reset\nset title {} noenhanced\nset key noenhanced\nset grid\n{}{}", gnuplot_quote(title), setup,
                     plot);
}

std::string draw_commands(std::string_view terminal, std::string_view name, std::string_view ext) {
  return fmt::format("set terminal {}\nset output {}\nload {}\nunset output\n", terminal,
                     gnuplot_quote(fmt::format("{}.{}", name, ext)), gnuplot_quote(fmt::format("{}.gp", name)));
}

}  // namespace cgmem::report
