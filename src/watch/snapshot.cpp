#include "watch/snapshot.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::watch {
namespace {

namespace fs = std::filesystem;

Result<void> write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return fail("write the snapshot file", path, "is there room on that disk?");
  return {};
}

// Copies one file; a file that vanished or cannot be read is left out, as
// the scan leaves it out.
Result<void> copy_text(const std::string& from, const std::string& to) {
  auto text = cgroup::read_text(from);
  if (!text) return {};
  return write_file(to, *text);
}

}  // namespace

Result<void> copy_sample(const Scanner& scanner, std::span<const Row> rows, const std::string& dir,
                         const std::string& proc_root) {
  const std::string& root = scanner.options().root;
  for (const Row& row : rows) {
    if (row.state == State::gone) continue;
    std::string rel = row.path == "/" ? "" : std::string(row.path);
    std::string to = dir + rel;
    std::error_code ec;
    fs::create_directories(to, ec);
    if (ec) return fail("create the snapshot directory " + to + ": " + ec.message());
    for (const char* name : kFileNames)
      if (auto r = copy_text(root + rel + "/" + name, to + "/" + name); !r) return r;
    if (auto r = write_file(to + "/cgmem.inode", std::to_string(row.id) + "\n"); !r) return r;
    auto procs = cgroup::read_text(root + rel + "/cgroup.procs");
    if (!procs) continue;
    if (auto r = write_file(to + "/cgroup.procs", *procs); !r) return r;
    std::string_view pids = *procs;
    while (!pids.empty()) {
      std::string pid(trim(next_line(pids)));
      if (pid.empty()) continue;
      fs::create_directories(dir + "/proc/" + pid, ec);
      for (const char* name : {"stat", "wchan"})
        if (auto r = copy_text(proc_root + "/" + pid + "/" + name, dir + "/proc/" + pid + "/" + name); !r)
          return r;
    }
  }
  return {};
}

Result<void> write_snapshot_meta(const std::string& dir, const SnapshotMeta& m) {
  nlohmann::json samples = nlohmann::json::array();
  for (int i = 0; i < 2; ++i)
    samples.push_back({{"dir", std::to_string(i)}, {"t_ns", m.t_ns[i]}, {"unix_time", m.unix_time[i]}});
  nlohmann::json j = {{"schema", 1},
                      {"root", m.root},
                      {"kernel", m.kernel},
                      {"hz", m.kernel_facts.hz},
                      {"hz_source", m.hz_source},
                      {"page_size", m.kernel_facts.page_size},
                      {"samples", samples}};
  return write_file(dir + "/snapshot.json", j.dump(2) + "\n");
}

Result<SnapshotMeta> read_snapshot_meta(const std::string& dir) {
  std::string path = dir + "/snapshot.json";
  auto text = cgroup::read_text(path);
  if (!text)
    return std::unexpected(Error{.what = "read the snapshot", .err = text.error().err, .path = path,
                                 .hint = "give a directory written by `cgmem watch --snapshot OUT`"});
  auto j = nlohmann::json::parse(*text, nullptr, false);
  SnapshotMeta m;
  try {
    if (j.is_discarded()) throw std::runtime_error("it is not JSON");
    if (j.at("schema").get<int>() != 1) throw std::runtime_error("schema " + j.at("schema").dump() + " is not 1");
    m.root = j.at("root").get<std::string>();
    m.kernel = j.value("kernel", "");
    m.kernel_facts.hz = j.at("hz").get<uint32_t>();
    m.kernel_facts.page_size = j.at("page_size").get<uint64_t>();
    m.hz_source = j.value("hz_source", "");
    const auto& samples = j.at("samples");
    if (samples.size() != 2) throw std::runtime_error("it needs 2 samples, it has " + std::to_string(samples.size()));
    for (int i = 0; i < 2; ++i) {
      m.t_ns[i] = samples[i].at("t_ns").get<uint64_t>();
      m.unix_time[i] = samples[i].at("unix_time").get<double>();
    }
    if (m.t_ns[1] <= m.t_ns[0]) throw std::runtime_error("its second sample is not later than its first");
    if (m.kernel_facts.hz == 0 || m.kernel_facts.page_size == 0) throw std::runtime_error("hz and page_size must be > 0");
  } catch (const std::exception& e) {
    return fail(std::string("read the snapshot: ") + e.what(), path,
                "the file is damaged; take a new one with `cgmem watch --snapshot OUT`");
  }
  return m;
}

Result<Replay> replay_snapshot(const std::string& dir, ScanOptions o, bool override_hz) {
  auto meta = read_snapshot_meta(dir);
  if (!meta) return std::unexpected(meta.error());
  uint32_t hz = o.kernel.hz;
  o.root = dir + "/0";
  o.proc_root = dir + "/0/proc";
  o.identity = Identity::saved;
  o.events = false;
  o.kernel = meta->kernel_facts;
  if (override_hz) o.kernel.hz = hz;
  auto scanner = Scanner::open(std::move(o));
  if (!scanner) return std::unexpected(scanner.error());
  if (auto first = (*scanner)->scan(meta->t_ns[0]); !first) return std::unexpected(first.error());
  if (auto r = (*scanner)->rebase(dir + "/1", dir + "/1/proc"); !r) return std::unexpected(r.error());
  auto rows = (*scanner)->scan(meta->t_ns[1]);
  if (!rows) return std::unexpected(rows.error());
  return Replay{std::move(*scanner), {rows->begin(), rows->end()}, std::move(*meta)};
}

}  // namespace cgmem::watch
