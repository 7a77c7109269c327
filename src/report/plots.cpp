#include "report/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include "common/file.h"
#include "report/bins.h"
#include "report/gnuplot_script.h"

namespace cgmem::report {

namespace fs = std::filesystem;

namespace {

// The image formats. Cairo's PNG encoding makes a PNG cost about three SVGs
// (perf on gnuplot: half its time is in libpng and zlib); the costs spread
// the drawing evenly over the gnuplots.
struct Format {
  const char* ext;
  const char* terminal;
  unsigned cost;
};
constexpr Format kFormats[] = {{"png", "pngcairo size 1000,600", 3}, {"svg", "svg size 1000,600 dynamic", 1}};

// "seconds MiB" lines: the samples' memory.current, or the ops' own readings
// when the run has no samples; at most kMaxBins lines.
std::string memory_series(const Run& run) {
  std::string out;
  auto line = [&](int64_t t_ns, uint64_t bytes) {
    double t = static_cast<double>(t_ns - run.meta.started_mono_ns) / 1e9;
    fmt::format_to(std::back_inserter(out), "{:.3f} {:.4f}\n", t, static_cast<double>(bytes) / kMiB);
  };
  size_t stride = run.samples.size() / kMaxBins + 1;
  for (size_t i = 0; i < run.samples.size(); i += stride)
    if (run.samples[i].memory_current) line(run.samples[i].t_ns, *run.samples[i].memory_current);
  if (!out.empty()) return out;
  stride = run.ops.size() / kMaxBins + 1;
  size_t i = 0;
  for (const Op& op : run.ops)
    if (i++ % stride == 0) line(op.end_ns(), op.current_after);
  return out;
}

std::string points_text(const std::vector<BinPoint>& points) {
  std::string out;
  for (const auto& p : points) fmt::format_to(std::back_inserter(out), "{:.4f} {:.6g}\n", p.mib, p.median);
  return out;
}

// Writes NAME.gp, the figure without a terminal, and has it drawn once per
// format. By hand: gnuplot -e "set terminal pngcairo; set output 'x.png'" NAME.gp
Result<void> draw(const fs::path& dir, const Figure& f, const std::string& setup, const std::string& plot,
                  Gnuplots& gnuplots) {
  if (auto w = write_file(dir / (f.name + ".gp"), figure_script(f.title, setup, plot)); !w) return w;
  for (const Format& format : kFormats) gnuplots.draw(draw_commands(format.terminal, f.name, format.ext), format.cost);
  return {};
}

struct Workload {
  std::string name, safe;
  std::vector<const Run*> runs;
  std::optional<Figure> latency, memory, sleeps;
};

// memory.current over time, one line per run.
Result<void> memory_figure(Workload& wl, const fs::path& dir, Gnuplots& gnuplots) {
  std::vector<Series> series;
  for (size_t i = 0; i < wl.runs.size(); ++i) {
    std::string data = memory_series(*wl.runs[i]);
    if (data.empty()) continue;
    std::string file = fmt::format("memory-{}-{}.dat", wl.safe, i);
    if (auto w = write_file(dir / file, data); !w) return w;
    series.push_back({wl.runs[i]->meta.name, file, "lines"});
  }
  if (series.empty()) return {};
  wl.memory = Figure{"memory-" + wl.safe, wl.name + ": memory.current over time"};
  return draw(dir, *wl.memory, "set xlabel 'time since start (s)'\nset ylabel 'memory.current (MiB)'\n",
              plot_command(series), gnuplots);
}

// Latency and sleeps per op against memory.current, one line per config.
Result<void> op_figures(Workload& wl, const fs::path& dir, Gnuplots& gnuplots) {
  std::vector<std::string> configs;
  for (auto* r : wl.runs)
    if (std::find(configs.begin(), configs.end(), r->config) == configs.end()) configs.push_back(r->config);
  std::vector<Series> latency, sleeps;
  for (const auto& c : configs) {
    std::vector<const Run*> mine;
    for (auto* r : wl.runs)
      if (r->config == c) mine.push_back(r);
    OpSeries series = bin_ops(mine, mine.back()->meta.chunk_bytes);
    std::string stem = fmt::format("{}-{}", wl.safe, file_safe(c));
    if (!series.latency_ms.empty()) {
      if (auto w = write_file(dir / ("latency-" + stem + ".dat"), points_text(series.latency_ms)); !w) return w;
      latency.push_back({c, "latency-" + stem + ".dat", "linespoints pointsize 0.5"});
    }
    bool has_high = std::any_of(mine.begin(), mine.end(), [](auto* r) { return r->meta.high && !r->meta.high->is_max(); });
    if (has_high && !series.sleeps.empty()) {
      if (auto w = write_file(dir / ("sleeps-" + stem + ".dat"), points_text(series.sleeps)); !w) return w;
      sleeps.push_back({c, "sleeps-" + stem + ".dat", "linespoints pointsize 0.5"});
    }
  }
  if (!latency.empty()) {
    wl.latency = Figure{"latency-" + wl.safe, wl.name + ": latency per op against memory.current"};
    auto d = draw(dir, *wl.latency, "set logscale y\nset xlabel 'memory.current (MiB)'\nset ylabel 'median op latency (ms)'\n",
                  plot_command(latency), gnuplots);
    if (!d) return d;
  }
  if (!sleeps.empty()) {
    wl.sleeps = Figure{"sleeps-" + wl.safe, wl.name + ": sleeps per op (high counter rise / 17)"};
    auto d = draw(dir, *wl.sleeps, "set xlabel 'memory.current (MiB)'\nset ylabel 'median sleeps per op'\n",
                  plot_command(sleeps), gnuplots);
    if (!d) return d;
  }
  return {};
}

// Time to the kill against the shift, log scale: the killed runs as points,
// the RFC's table and the model as lines. A model time of 0 (no sleep left)
// has no place on a log scale and is left out.
Result<void> rfc_figure(const RfcComparison& rfc, const fs::path& dir, Gnuplots& gnuplots, std::optional<Figure>& fig) {
  std::string measured, table, model;
  for (const auto& row : rfc.rows) {
    for (const auto& r : row.runs)
      if (r.killed && r.duration_s > 0) fmt::format_to(std::back_inserter(measured), "{} {:.6g}\n", row.shift, r.duration_s);
  }
  for (const auto& p : rfc.model_curve)
    if (p.seconds > 0) fmt::format_to(std::back_inserter(model), "{} {:.6g}\n", p.shift, p.seconds);
  for (const auto& p : kRfcTable) fmt::format_to(std::back_inserter(table), "{} {:.6g}\n", p.shift, p.seconds);
  std::vector<Series> series;
  for (auto [title, file, style, data] :
       {std::tuple("measured (killed runs)", "rfc-measured.dat", "points pointtype 7 pointsize 1", &measured),
        std::tuple("the RFC table", "rfc-table.dat", "linespoints pointtype 4", &table),
        std::tuple("model, one sleep per batch, memory.high to memory.max", "rfc-model.dat", "lines linewidth 2", &model)}) {
    if (data->empty()) continue;
    if (auto w = write_file(dir / file, *data); !w) return w;
    series.push_back({title, file, style});
  }
  if (measured.empty()) return {};
  fig = Figure{"rfc-shift", "time to the OOM kill against memory.high.throttle"};
  uint32_t last = rfc.rows.empty() ? 15 : std::max<uint32_t>(15, rfc.rows.back().shift);
  return draw(dir, *fig,
              fmt::format("set logscale y\nset xrange [-0.5:{}.5]\nset xlabel 'memory.high.throttle (shift)'\n"
                          "set ylabel 'seconds until the OOM kill'\n",
                          last),
              plot_command(series), gnuplots);
}

}  // namespace

std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return out.empty() ? "_" : out;
}

Result<Plots> write_plots(const std::vector<Run>& runs, const std::string& out_dir, const RfcComparison& rfc) {
  fs::path dir = fs::path(out_dir) / "plots";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail("create plot directory: " + ec.message(), dir.string(), "check --out");
  std::vector<Workload> workloads;
  for (const auto& r : runs) {
    auto it = std::find_if(workloads.begin(), workloads.end(), [&](auto& w) { return w.name == r.workload; });
    if (it == workloads.end()) it = workloads.insert(workloads.end(), {r.workload, file_safe(r.workload)});
    it->runs.push_back(&r);
  }
  Plots plots;
  plots.dir = dir.string();
  plots.gnuplots = std::make_unique<Gnuplots>(plots.dir, std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  // The memory figures need only the samples, so they draw while the ops are binned.
  for (auto& wl : workloads)
    if (auto r = memory_figure(wl, dir, *plots.gnuplots); !r) return std::unexpected(r.error());
  for (auto& wl : workloads)
    if (auto r = op_figures(wl, dir, *plots.gnuplots); !r) return std::unexpected(r.error());
  std::optional<Figure> shift;
  if (!rfc.empty())
    if (auto r = rfc_figure(rfc, dir, *plots.gnuplots, shift); !r) return std::unexpected(r.error());
  if (shift) plots.figures.push_back(*shift);
  for (const auto& wl : workloads)
    for (const auto* f : {&wl.latency, &wl.memory, &wl.sleeps})
      if (*f) plots.figures.push_back(**f);
  return plots;
}

void finish_plots(Plots& plots, const volatile std::sig_atomic_t* stop) {
  if (!plots.gnuplots) return;
  if (!plots.gnuplots->finish(stop)) {
    plots.warning = plots.gnuplots->warning();
    plots.figures.clear();
  }
  plots.gnuplots.reset();
}

}  // namespace cgmem::report
