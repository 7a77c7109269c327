// `cgmem top`: the live view. A terminal table refreshed every interval,
// sorted by severity and then by how far each cgroup is over memory.high,
// drawn with ncurses. `--once` prints the table once as plain text (colour
// from the terminal's terminfo entry, only when stdout is a terminal).
#include <curses.h>
#include <term.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/cmd_top_table.h"
#include "cli/cmd_watch_scan.h"
#include "cli/signals.h"
#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/text.h"
#include "cli/handlers.h"
#include "watch/render.h"

namespace cgmem::cli {
namespace {

using watch::Row;
using watch::State;

// Colour per state: red where the program suffers now, yellow where it is
// close, nothing for ok and gone. COLOR_* numbers are terminfo's.
short state_colour(State s) {
  switch (s) {
    case State::oom_killed:
    case State::thrashing:
    case State::swapping:  // its tasks wait for their own pages to come back from swap
    case State::throttled: return COLOR_RED;
    case State::at_max:
    case State::reclaiming:
    case State::near_high:
    case State::unknown: return COLOR_YELLOW;
    default: return -1;
  }
}

// Plain text, coloured through terminfo's setaf/sgr0 when stdout is a terminal.
void print_once(std::span<const Row> rows, const std::string& filter) {
  auto sorted = sorted_rows(rows, TopSort::severity, filter);
  int err = 0;
  bool colour = isatty(STDOUT_FILENO) && setupterm(nullptr, STDOUT_FILENO, &err) == OK &&
                tigetnum(const_cast<char*>("colors")) >= 8;
  const char* setaf = colour ? tigetstr(const_cast<char*>("setaf")) : nullptr;
  const char* sgr0 = colour ? tigetstr(const_cast<char*>("sgr0")) : nullptr;
  colour = setaf && setaf != reinterpret_cast<char*>(-1) && sgr0 && sgr0 != reinterpret_cast<char*>(-1);
  for (const TopLine& line : top_lines(sorted, 80)) {
    short c = line.header || line.detail ? -1 : state_colour(line.state);
    if (!colour || c < 0) {
      fmt::print("{}\n", line.text);
      continue;
    }
    fmt::print("{}{}{}{}{}\n", line.text.substr(0, line.state_column), tiparm(setaf, c),
               line.text.substr(line.state_column, line.state_width), sgr0,
               line.text.substr(line.state_column + line.state_width));
  }
}

struct View {
  TopSort sort = TopSort::severity;
  std::string filter;
  bool paused = false;
  bool help = false;
  std::string status;
};

constexpr const char* kHelp[] = {
    "cgmem top: keys",
    "  s        sort: severity (then % over memory.high), memory.current, path",
    "  /        filter: show only cgroups whose path contains a text (empty: all)",
    "  p space  pause / resume the refresh",
    "  h ?      this help (any key closes it)",
    "  q        quit",
    "",
    "States, worst first: oom_killed throttled thrashing swapping at_max reclaiming near_high unknown ok gone",
    "SLP/S: sleeps per second (high events / 17); SLEEP: one sleep at this usage;",
    ">MAX: time to memory.max at the measured growth; PSI: memory some/full avg10;",
    "RFLT/: refaults per second. Lines starting with D: tasks in state D, wchan.",
};

void draw(std::span<const Row> rows, const View& view, const std::string& title) {
  erase();
  int height = 0, width = 0;
  getmaxyx(stdscr, height, width);
  if (view.help) {
    for (int i = 0; i < int(std::size(kHelp)) && i < height; ++i) mvaddnstr(i, 0, kHelp[i], width);
    refresh();
    return;
  }
  // What changes first: a long source path is what the terminal cuts.
  std::string top = fmt::format("cgmem top  sort: {}{}{}  (h: help, q: quit)  {}",
                                view.sort == TopSort::severity ? "severity"
                                : view.sort == TopSort::current ? "current"
                                                                : "path",
                                view.filter.empty() ? "" : "  filter: " + view.filter,
                                view.paused ? "  PAUSED" : "", visible(title));
  mvaddnstr(0, 0, top.c_str(), width);
  auto sorted = sorted_rows(rows, view.sort, view.filter);
  auto table = top_lines(sorted, size_t(std::max(width, 80)));
  for (size_t i = 0; i < table.size() && int(i) + 1 < height - 1; ++i) {
    const TopLine& line = table[i];
    int y = int(i) + 1;
    if (line.header) attron(A_BOLD);
    mvaddnstr(y, 0, line.text.c_str(), width);
    if (line.header) attroff(A_BOLD);
    short c = line.header || line.detail ? -1 : state_colour(line.state);
    if (c >= 0 && has_colors())
      mvchgat(y, int(line.state_column), int(line.state_width), A_BOLD, c == COLOR_RED ? 1 : 2, nullptr);
  }
  if (!view.status.empty()) mvaddnstr(height - 1, 0, view.status.c_str(), width);
  refresh();
}

// Reads a filter text on the last line (Enter ends, Escape cancels).
std::string prompt_filter(const std::string& current) {
  int height = getmaxy(stdscr);
  std::string text;
  timeout(-1);
  for (;;) {
    std::string line = "filter: " + text;
    move(height - 1, 0);
    clrtoeol();
    mvaddstr(height - 1, 0, line.c_str());
    refresh();
    int key = getch();
    if (key == '\n' || key == KEY_ENTER) return text;
    if (key == 27) return current;
    if ((key == KEY_BACKSPACE || key == 127 || key == 8) && !text.empty()) text.pop_back();
    else if (key >= 32 && key < 127) text.push_back(char(key));
  }
}

int run_interactive(std::span<const Row> first_rows, watch::Scanner* live, uint64_t interval_ns,
                    const std::string& title, const std::string& filter, const std::string& nothing) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    print_error(Error{.what = "draw the live view: stdin and stdout must be a terminal",
                      .hint = "use `cgmem top --once` for a plain table, or `cgmem watch --json`"});
    return kUsage;
  }
  if (!newterm(nullptr, stdout, stdin)) {
    print_error(Error{.what = "start the terminal view: TERM=" + std::string(getenv("TERM") ? getenv("TERM") : "") +
                              " is not in the terminfo database",
                      .hint = "set TERM (e.g. TERM=xterm), or use `cgmem top --once`"});
    return kUnavailable;
  }
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(1, COLOR_RED, -1);
    init_pair(2, COLOR_YELLOW, -1);
  }
  View view;
  view.filter = filter;
  if (!nothing.empty()) view.status = "nothing to watch: " + visible(nothing);
  std::vector<Row> rows(first_rows.begin(), first_rows.end());
  uint64_t next = cgmem::now_ns() + interval_ns;
  int code = kOk;
  while (!stop_requested()) {
    draw(rows, view, title);
    uint64_t now = cgmem::now_ns();
    timeout(next > now ? int((next - now) / 1000000) + 1 : 0);
    int key = getch();
    if (view.help && key != ERR) {
      view.help = false;
      continue;
    }
    if (key == 'q' || key == 'Q') break;
    if (key == 'h' || key == '?') view.help = true;
    if (key == 'p' || key == ' ') view.paused = !view.paused;
    if (key == 's') view.sort = TopSort((int(view.sort) + 1) % 3);
    if (key == '/') view.filter = prompt_filter(view.filter);
    if (cgmem::now_ns() < next) continue;
    next = cgmem::now_ns() + interval_ns;
    if (!live || view.paused) continue;
    auto scanned = live->scan(cgmem::now_ns());
    if (!scanned) {
      endwin();
      print_error(scanned.error());
      return kFailure;
    }
    rows.assign(scanned->begin(), scanned->end());
    if (!rows.empty()) view.status.clear();  // the memory controller is on now
  }
  endwin();
  if (stop_requested()) code = kInterrupted;
  return code;
}

}  // namespace

int run_top(std::span<char*> args) {
  CLI::App app(
      "A live view of a cgroup2 tree: which cgroups are throttled by memory.high, thrashing,\n"
      "swapping, at memory.max or OOM-killed, worst first. Keys: s sort, / filter, p pause,\n"
      "h help, q quit. Reads only. See docs/watch.md for the states and the columns.",
      "top");
  TreeFlags flags;
  add_tree_flags(app, flags);
  bool once = false, json = false;
  std::string from, filter;
  app.add_flag("--once", once, "print one plain table (two scans an interval apart) and exit");
  app.add_flag("--json", json, "with --once: one JSON line per cgroup instead of the table");
  app.add_option("--from", from, "show a snapshot saved by `cgmem watch --snapshot` instead of this host");
  app.add_option("--filter", filter, "start with this path filter");
  if (int code = parse(app, args); code >= 0) return code;
  if (json && !once) {
    print_error("--json needs --once (or use `cgmem watch --json`)");
    return kUsage;
  }
  if (app.count("--from") && from.empty()) {
    print_error("--from needs a directory");
    return kUsage;
  }

  std::unique_ptr<watch::Scanner> scanner;
  std::vector<Row> rows;
  std::string title;
  std::optional<std::string> nothing;  // why the live tree has nothing to watch
  uint64_t interval_ns = 0;
  double when = unix_time_s();
  if (!from.empty()) {
    auto replay = replay_snapshot(from, flags);
    if (!replay) return print_error(replay.error()), kFailure;
    scanner = std::move(replay->scanner);
    rows = std::move(replay->rows);
    when = replay->meta.unix_time[1];
    title = "snapshot " + from + " of " + replay->meta.root;
    interval_ns = 1000000000;
  } else {
    TreeSetup setup = live_setup(flags);
    if (setup.exit_code) return setup.exit_code;
    interval_ns = setup.interval_ns;
    title = setup.options.root;
    auto opened = watch::Scanner::open(setup.options);
    if (!opened) return print_error(opened.error()), kFailure;
    scanner = std::move(*opened);
    if (auto first = scanner->scan(cgmem::now_ns()); !first) return print_error(first.error()), kFailure;
    if (once) usleep(useconds_t(interval_ns / 1000));  // rates need a second sample
    auto second = scanner->scan(cgmem::now_ns());
    if (!second) return print_error(second.error()), kFailure;
    rows.assign(second->begin(), second->end());
    nothing = nothing_to_watch(setup, rows.size());
    if (nothing) say_nothing_to_watch("top", *nothing, once);
  }
  catch_stop_signals();
  if (once) {
    if (json) {
      for (const Row* r : sorted_rows(rows, TopSort::severity, filter))
        fmt::print("{}\n", watch::json_line(watch::row_json(*r, when)));
      if (nothing) fmt::print("{}\n", watch::json_line(nothing_to_watch_json(title, *nothing, when)));
    } else {
      print_once(rows, filter);
      if (nothing) fmt::print("nothing to watch: {}\n", visible(*nothing));
    }
    return nothing ? kNoMemoryController : kOk;
  }
  return run_interactive(rows, from.empty() ? scanner.get() : nullptr, interval_ns, title, filter,
                         nothing.value_or(""));
}

}  // namespace cgmem::cli
