#include "report/plots.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "report/predict.h"
#include "report/stats.h"

extern char** environ;

namespace cgmem::report {

namespace fs = std::filesystem;

namespace {

constexpr double kMiB = 1048576.0;
constexpr size_t kMaxBins = 2000;

struct Series {
  std::string title, file;  // file relative to the plots dir
};

// Values by memory.current bin: bin width is the op size, widened so that
// no series has more than kMaxBins points.
class Binned {
 public:
  void add(uint64_t bytes, double value) { points_.emplace_back(bytes, value); }
  bool empty() const { return points_.empty(); }
  // "MiB median" lines, by bin.
  std::string medians(uint64_t chunk) const {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (auto& [b, v] : points_) lo = std::min(lo, b), hi = std::max(hi, b);
    uint64_t width = std::max<uint64_t>({chunk, 1, (hi - lo) / kMaxBins + 1});
    std::vector<std::vector<double>> bins((hi - lo) / width + 1);
    for (auto& [b, v] : points_) bins[(b - lo) / width].push_back(v);
    std::string out;
    for (size_t i = 0; i < bins.size(); ++i) {
      if (bins[i].empty()) continue;
      double center = static_cast<double>(lo + i * width + width / 2) / kMiB;
      out += fmt::format("{:.4f} {:.6g}\n", center, *median(std::move(bins[i])));
    }
    return out;
  }

 private:
  std::vector<std::pair<uint64_t, double>> points_;
};

Result<void> write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return fail("write plot file", path.string(), "check that the --out directory is writable");
  return {};
}

std::string memory_series(const Run& run) {
  std::string out;
  size_t n = run.samples.size();
  size_t stride = n / kMaxBins + 1;
  for (size_t i = 0; i < n; i += stride) {
    const auto& s = run.samples[i];
    if (!s.memory_current) continue;
    double t = static_cast<double>(s.t_ns - run.meta.started_mono_ns) / 1e9;
    out += fmt::format("{:.3f} {:.4f}\n", t, static_cast<double>(*s.memory_current) / kMiB);
  }
  if (!out.empty()) return out;
  stride = run.ops.size() / kMaxBins + 1;  // no samples: the ops' own readings
  for (size_t i = 0; i < run.ops.size(); i += stride) {
    const auto& op = run.ops[i];
    double t = static_cast<double>(op.t_ns + op.lat_ns - run.meta.started_mono_ns) / 1e9;
    out += fmt::format("{:.3f} {:.4f}\n", t, static_cast<double>(op.current_after) / kMiB);
  }
  return out;
}

// gnuplot strings are single-quoted here; a quote in a name would end one.
std::string unquoted(std::string text) {
  std::replace(text.begin(), text.end(), '\'', '"');
  return text;
}

std::string plot_command(const std::vector<Series>& series, const char* style) {
  std::string cmd = "plot ";
  for (size_t i = 0; i < series.size(); ++i) {
    cmd += fmt::format("{}'{}' using 1:2 with {} title '{}'", i ? ", " : "", series[i].file, style,
                       unquoted(series[i].title));
  }
  return cmd + "\n";
}

// One figure's script: the PNG, then the same plot as SVG.
std::string figure_script(const Figure& f, const std::string& setup, const std::string& plot) {
  return fmt::format(
      "reset\nset title '{}' noenhanced\nset key noenhanced\nset grid\n{}"
      "set terminal pngcairo size 1000,600\nset output '{}.png'\n{}"
      "set terminal svg size 1000,600 dynamic\nset output '{}.svg'\nreplot\nunset output\n",
      unquoted(f.title), setup, f.name, plot, f.name);
}

struct WorkloadFigures {
  std::string script;
  std::vector<Figure> figures;
};

Result<WorkloadFigures> workload_figures(const std::string& wl, const std::vector<const Run*>& runs,
                                         const fs::path& dir) {
  WorkloadFigures out;
  std::string safe = file_safe(wl);
  std::vector<std::string> configs;
  for (auto* r : runs)
    if (std::find(configs.begin(), configs.end(), r->config) == configs.end()) configs.push_back(r->config);
  std::vector<Series> lat_series, sleep_series, mem_series;
  for (const auto& c : configs) {
    Binned lat, sleeps;
    uint64_t chunk = 0;
    for (auto* r : runs) {
      if (r->config != c) continue;
      chunk = r->meta.chunk_bytes;
      for (const auto& op : r->ops) {
        lat.add(op.current_after, std::max(1e-3, static_cast<double>(op.lat_ns) / 1e6));
        uint64_t rise = op.high_after - op.high_before;
        if (r->meta.procs <= 1 && op.high_after >= op.high_before && rise % kEventsPerSleep == 0)
          sleeps.add(op.current_after, static_cast<double>(rise / kEventsPerSleep));
      }
    }
    std::string stem = fmt::format("{}-{}", safe, file_safe(c));
    if (!lat.empty()) {
      if (auto w = write_file(dir / ("latency-" + stem + ".dat"), lat.medians(chunk)); !w) return std::unexpected(w.error());
      lat_series.push_back({c, "latency-" + stem + ".dat"});
    }
    bool has_high = std::any_of(runs.begin(), runs.end(), [&](auto* r) { return r->config == c && r->meta.high && !r->meta.high->is_max(); });
    if (has_high && !sleeps.empty()) {
      if (auto w = write_file(dir / ("sleeps-" + stem + ".dat"), sleeps.medians(chunk)); !w) return std::unexpected(w.error());
      sleep_series.push_back({c, "sleeps-" + stem + ".dat"});
    }
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run* r = runs[i];
    std::string data = memory_series(*r);
    if (data.empty()) continue;
    std::string file = fmt::format("memory-{}-{}.dat", safe, i);
    if (auto w = write_file(dir / file, data); !w) return std::unexpected(w.error());
    mem_series.push_back({r->meta.name, file});
  }
  if (!lat_series.empty()) {
    Figure f{"latency-" + safe, wl + ": latency per op against memory.current"};
    out.script += figure_script(f, "set logscale y\nset xlabel 'memory.current (MiB)'\nset ylabel 'median op latency (ms)'\n",
                                plot_command(lat_series, "linespoints pointsize 0.5"));
    out.figures.push_back(f);
  }
  if (!mem_series.empty()) {
    Figure f{"memory-" + safe, wl + ": memory.current over time"};
    out.script += figure_script(f, "set xlabel 'time since start (s)'\nset ylabel 'memory.current (MiB)'\n",
                                plot_command(mem_series, "lines"));
    out.figures.push_back(f);
  }
  if (!sleep_series.empty()) {
    Figure f{"sleeps-" + safe, wl + ": sleeps per op (high counter rise / 17)"};
    out.script += figure_script(f, "set xlabel 'memory.current (MiB)'\nset ylabel 'median sleeps per op'\n",
                                plot_command(sleep_series, "linespoints pointsize 0.5"));
    out.figures.push_back(f);
  }
  return out;
}

// Starts gnuplot on the script in dir; its output goes to dir/gnuplot.log.
// Returns its pid, or -1 and a warning.
int start_gnuplot(const fs::path& dir, std::string& warning) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  char prog[] = "gnuplot", script[] = "plots.gp";
  char* argv[] = {prog, script, nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    warning = "gnuplot not found, so no plots (install gnuplot-nox: scripts/install-deps.sh)";
    return -1;
  }
  return pid;
}

}  // namespace

std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return out.empty() ? "_" : out;
}

Result<Plots> write_plots(const std::vector<Run>& runs, const std::string& out_dir) {
  fs::path dir = fs::path(out_dir) / "plots";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail("create plot directory: " + ec.message(), dir.string(), "check --out");
  std::vector<std::string> workloads;
  for (const auto& r : runs)
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end()) workloads.push_back(r.workload);
  Plots plots;
  std::string script;
  for (const auto& wl : workloads) {
    std::vector<const Run*> mine;
    for (const auto& r : runs)
      if (r.workload == wl) mine.push_back(&r);
    auto figs = workload_figures(wl, mine, dir);
    if (!figs) return std::unexpected(figs.error());
    script += figs->script;
    plots.figures.insert(plots.figures.end(), figs->figures.begin(), figs->figures.end());
  }
  if (plots.figures.empty()) return plots;
  if (auto w = write_file(dir / "plots.gp", script); !w) return std::unexpected(w.error());
  plots.dir = dir.string();
  plots.gnuplot_pid = start_gnuplot(dir, plots.warning);
  if (plots.gnuplot_pid < 0) plots.figures.clear();
  return plots;
}

void finish_plots(Plots& plots) {
  if (plots.gnuplot_pid < 0) return;
  int status = 0;
  while (waitpid(plots.gnuplot_pid, &status, 0) < 0 && errno == EINTR) {}
  plots.gnuplot_pid = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    plots.warning = fmt::format("gnuplot failed; see {}", (fs::path(plots.dir) / "gnuplot.log").string());
    plots.figures.clear();
  }
}

}  // namespace cgmem::report
