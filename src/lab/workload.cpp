#include "lab/workload.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "lab/mulberry32.h"
#include "lab/op_line.h"
#include "lab/own_code.h"
#include "common/clock.h"
#include "common/file.h"
#include "common/size.h"

namespace cgmem::lab {
namespace {

constexpr unsigned char kFill = 0xa5;  // not zero, so no page can be the shared zero page

Result<void*> map_chunk(uint64_t bytes, bool populate) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return sys_error(fmt::format("map a {}-byte chunk", bytes));
  std::memset(p, kFill, bytes);
  return p;
}

// One process's state while it runs: everything allocated before op 0.
class Runner {
 public:
  Runner(const WorkloadOptions& o, const Share& s, OwnCounters& c, int out_fd, const CodeMap* code)
      : o_(o), share_(s), counters_(c), out_fd_(out_fd), code_(code), rng_(s.seed), line_(line_storage_) {
    record_.pid = static_cast<int>(::getpid());
  }

  Result<uint64_t> run();

 private:
  // Reads the counters around `body`, times it and writes the op line.
  template <typename Body>
  Result<void> measure(run_format::Phase phase, Body&& body);
  Result<void> grow_anon();
  Result<void> churn_anon();
  Result<void> own_high();
  Result<void> file_ops(int fd);
  void copy_random_held();

  const WorkloadOptions& o_;
  Share share_;
  OwnCounters& counters_;
  int out_fd_;
  const CodeMap* code_;  // --own-code-size: walked at the start of every op
  Mulberry32 rng_;
  std::vector<void*> chunks_;
  void* scratch_ = nullptr;
  uint64_t held_ = 0;
  OpRecord record_;
  char line_storage_[512] = {};
  JsonLine line_;
};

template <typename Body>
Result<void> Runner::measure(run_format::Phase phase, Body&& body) {
  auto before = counters_.read();
  if (!before) return std::unexpected(before.error());
  uint64_t start = now_ns();
  if (code_ != nullptr) code_->walk();
  if (auto done = body(); !done) return done;
  uint64_t end = now_ns();
  auto after = counters_.read();
  if (!after) return std::unexpected(after.error());
  record_.phase = phase;
  record_.cpu = ::sched_getcpu();
  record_.t_ns = start;
  record_.lat_ns = end - start;
  record_.held_bytes = held_;
  record_.before = *before;
  record_.after = *after;
  format_op_line(record_, line_);
  if (!line_.ok()) return fail("an op line did not fit its buffer");
  if (auto written = write_all(out_fd_, line_.view()); !written) return written;
  ++record_.op;
  return {};
}

void Runner::copy_random_held() {
  if (chunks_.empty()) return;
  std::memcpy(scratch_, chunks_[rng_.below(static_cast<uint32_t>(chunks_.size()))],
              o_.chunk_bytes);
}

Result<void> Runner::grow_anon() {
  while (held_ < share_.target_bytes) {
    auto done = measure(run_format::Phase::grow, [&]() -> Result<void> {
      auto chunk = map_chunk(o_.chunk_bytes, o_.populate);
      if (!chunk) return std::unexpected(chunk.error());
      copy_random_held();  // from the chunks held before this one
      chunks_.push_back(*chunk);  // capacity reserved: no allocation
      held_ += o_.chunk_bytes;
      return {};
    });
    if (!done) return done;
  }
  return {};
}

Result<void> Runner::churn_anon() {
  for (uint64_t i = 0; i < o_.churn; ++i) {
    auto done = measure(run_format::Phase::churn, [&]() -> Result<void> {
      uint32_t victim = rng_.below(static_cast<uint32_t>(chunks_.size()));
      ::munmap(chunks_[victim], o_.chunk_bytes);
      auto chunk = map_chunk(o_.chunk_bytes, o_.populate);
      if (!chunk) return std::unexpected(chunk.error());
      chunks_[victim] = *chunk;
      copy_random_held();
      return {};
    });
    if (!done) return done;
  }
  return {};
}

// The 2 s cap study: write memory.high, then one 4 KiB page per op.
Result<void> Runner::own_high() {
  if (auto set = counters_.set_high(*o_.set_own_high); !set) return set;
  auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  for (uint64_t i = 0; i < o_.churn; ++i) {
    auto done = measure(run_format::Phase::own_high, [&]() -> Result<void> {
      auto p = map_chunk(page, false);
      if (!p) return std::unexpected(p.error());
      held_ += page;
      return {};
    });
    if (!done) return done;
  }
  return {};
}

Result<void> Runner::file_ops(int fd) {
  auto read_chunk = [&](uint64_t offset) -> Result<void> {
    ssize_t n = ::pread(fd, scratch_, o_.chunk_bytes, static_cast<off_t>(offset));
    if (n < 0) return sys_error(fmt::format("read {} bytes at offset {}", o_.chunk_bytes, offset),
                                *o_.file);
    return {};
  };
  for (uint64_t offset = 0; offset < share_.target_bytes; offset += o_.chunk_bytes) {
    auto done = measure(run_format::Phase::grow, [&]() -> Result<void> {
      held_ += o_.chunk_bytes;
      return read_chunk(share_.file_offset + offset);
    });
    if (!done) return done;
  }
  auto chunks_in_file = static_cast<uint32_t>(o_.file_size / o_.chunk_bytes);
  for (uint64_t i = 0; i < o_.churn; ++i) {
    auto done = measure(run_format::Phase::churn, [&]() -> Result<void> {
      return read_chunk(uint64_t{rng_.below(chunks_in_file)} * o_.chunk_bytes);
    });
    if (!done) return done;
  }
  return {};
}

Result<uint64_t> Runner::run() {
  auto scratch = map_chunk(o_.chunk_bytes, false);
  if (!scratch) return std::unexpected(scratch.error());
  scratch_ = *scratch;
  if (o_.file) {
    auto fd = open_regular(*o_.file, "--file");
    if (!fd) return std::unexpected(fd.error());
    auto done = file_ops(fd->get());
    if (!done) return std::unexpected(done.error());
    return record_.op;
  }
  chunks_.reserve(share_.target_bytes / o_.chunk_bytes + 1);
  if (auto grown = grow_anon(); !grown) return std::unexpected(grown.error());
  auto next = o_.set_own_high ? own_high() : churn_anon();
  if (!next) return std::unexpected(next.error());
  return record_.op;
}

// The --file the workload reads: one it created (and so fills and removes),
// or one that existed, which it only reads.
struct PreparedFile {
  bool created = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

Result<void> fill(int fd, const WorkloadOptions& o) {
  std::vector<unsigned char> block(o.chunk_bytes, kFill);
  for (uint64_t off = 0; off < o.file_size; off += o.chunk_bytes) {
    auto n = ::pwrite(fd, block.data(), block.size(), static_cast<off_t>(off));
    if (n != static_cast<ssize_t>(block.size()))
      return sys_error(fmt::format("write {} bytes", o.file_size), *o.file, "is there room on the run disk?");
  }
  return {};
}

// Creates the file (O_EXCL: only a file this call made is ever written) and
// fills it to --file-size, or opens an existing regular file that is large
// enough. Then drops it from the page cache so that the first pass reads
// from disk, charged to this cgroup.
Result<PreparedFile> prepare_file(const WorkloadOptions& o) {
  PreparedFile prepared;
  Fd fd(::open(o.file->c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd.valid()) {
    prepared.created = true;
    if (auto filled = fill(fd.get(), o); !filled) {
      ::unlink(o.file->c_str());
      return std::unexpected(filled.error());
    }
    ::fsync(fd.get());
  } else if (errno == EEXIST) {
    auto existing = open_regular(*o.file, "--file");
    if (!existing) return std::unexpected(existing.error());
    fd = std::move(*existing);
  } else {
    return sys_error("create", *o.file, "give --file a path in a writable directory");
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return sys_error("stat", *o.file);
  if (!prepared.created && static_cast<uint64_t>(st.st_size) < o.file_size)
    return fail(fmt::format("--file exists and holds {}, less than --file-size {}",
                            format_bytes(static_cast<uint64_t>(st.st_size)), format_bytes(o.file_size)),
                *o.file,
                "cgmem writes and removes only a file it creates: give a path that does not exist, "
                "or a file of at least --file-size");
  prepared.dev = st.st_dev;
  prepared.ino = st.st_ino;
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  return prepared;
}

// Removes the file if this run created it and it is still that file.
void remove_created(const WorkloadOptions& o, const PreparedFile& prepared) {
  struct stat st{};
  if (!prepared.created || ::lstat(o.file->c_str(), &st) != 0) return;
  if (st.st_dev == prepared.dev && st.st_ino == prepared.ino) ::unlink(o.file->c_str());
}

// Waits for every child; if one was killed by a signal, kills the others and
// ends this process by the same signal, so the driver's wait status says it.
Result<int> wait_children(const std::vector<pid_t>& children) {
  int failed_signal = 0, exit_code = 0;
  for (size_t left = children.size(); left > 0; --left) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) return sys_error("wait for the workload's processes");
    if (WIFSIGNALED(status) && failed_signal == 0) {
      failed_signal = WTERMSIG(status);
      for (pid_t other : children)
        if (other != pid) ::kill(other, SIGKILL);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      exit_code = WEXITSTATUS(status);
    }
  }
  if (failed_signal != 0) {
    ::signal(failed_signal, SIG_DFL);
    ::raise(failed_signal);
  }
  return exit_code;
}

}  // namespace

Result<uint64_t> run_share(const WorkloadOptions& options, const Share& share,
                           OwnCounters& counters, int out_fd, const CodeMap* code) {
  Runner runner(options, share, counters, out_fd, code);
  return runner.run();
}

Result<int> run_workload(const WorkloadOptions& o, OwnCounters& counters, int out_fd, const LineSink& errors) {
  PreparedFile file;
  if (o.file) {
    auto prepared = prepare_file(o);
    if (!prepared) return std::unexpected(prepared.error());
    file = *prepared;
  }
  std::optional<CodeMap> own;  // mapped before the fork: each process walks the same pages
  if (o.own_code_bytes > 0) {
    auto mapped = CodeMap::map("/proc/self/exe");
    if (!mapped) return std::unexpected(mapped.error());
    own.emplace(std::move(*mapped));
  }
  const CodeMap* walked = own ? &*own : nullptr;
  uint64_t share_bytes = o.target_bytes / o.procs / o.chunk_bytes * o.chunk_bytes;
  auto share_of = [&](unsigned i) {
    return Share{.target_bytes = share_bytes, .seed = o.seed + i, .file_offset = i * share_bytes};
  };
  Result<int> code = 0;
  if (o.procs == 1) {
    auto ops = run_share(o, share_of(0), counters, out_fd, walked);
    if (!ops) code = std::unexpected(ops.error());
  } else {
    std::vector<pid_t> children;
    for (unsigned i = 0; i < o.procs; ++i) {
      pid_t pid = ::fork();
      if (pid < 0) return sys_error("fork a workload process");
      if (pid == 0) {
        auto ops = run_share(o, share_of(i), counters, out_fd, walked);
        if (!ops && errors) errors(ops.error().message());
        ::_exit(ops ? 0 : 1);
      }
      children.push_back(pid);
    }
    code = wait_children(children);
  }
  if (o.file) remove_created(o, file);
  return code;
}

}  // namespace cgmem::lab
