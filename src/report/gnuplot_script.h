// The text of the report's gnuplot scripts. Names that come from run
// directories (a run's name in meta.json, batch.json's config and workload
// labels) reach a script only through gnuplot_quote: gnuplot runs any line
// it reads (`!cmd`, `system("...")`), so a name must never end a string or a
// line.
//
// gnuplot's single-quoted strings (5.4, checked against the real one):
//   - nothing is special inside them but the quote: no backslash escapes,
//     no backtick command substitution, no @macro expansion;
//   - '' is documented as a literal quote, but 5.4 misreads it at the
//     string's start ('''x' is an empty string, then x) and twice in a row
//     ('a''''b' is an error), so a name's quote is written as U+2019 and
//     no quote of the user's ever reaches a script;
//   - a newline ends the command whatever the quotes, and a backslash at the
//     end of a line joins the next one, so control bytes cannot be passed;
//     they are shown as '?'. The closing quote follows every user byte, so a
//     user's backslash is never last on a line.
// Titles are drawn noenhanced, so '@', '^', '_', '{' and '}' stay literal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cgmem::report {

// `text` as one gnuplot single-quoted string, quotes included.
std::string gnuplot_quote(std::string_view text);

struct Series {
  std::string title, file;  // file relative to the plots dir
  std::string style;        // "lines", "points pointtype 7", ...
};

// "plot 'FILE' using 1:2 with STYLE title 'TITLE', ...\n": one line.
std::string plot_command(const std::vector<Series>& series);

// A figure's script without a terminal: title, the fixed `setup` lines (no
// user text), then the plot line.
std::string figure_script(std::string_view title, std::string_view setup, std::string_view plot);

// What gnuplot is handed to draw NAME.gp into NAME.EXT.
std::string draw_commands(std::string_view terminal, std::string_view name, std::string_view ext);

}  // namespace cgmem::report
