#include "lab/own_code.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <utility>
#include <vector>

#include "common/fd.h"

namespace cgmem::lab {
namespace {

// Appends the first `bytes` of `in` to `out`.
Result<void> append(int out, int in, uint64_t bytes, const std::string& to) {
  off_t from = 0;
  while (static_cast<uint64_t>(from) < bytes) {
    ssize_t n = ::sendfile(out, in, &from, static_cast<size_t>(bytes - static_cast<uint64_t>(from)));
    if (n <= 0) return sys_error("copy the binary", to);
  }
  return {};
}

}  // namespace

Result<void> copy_padded(const std::string& from, const std::string& to, uint64_t size) {
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return sys_error("open", from);
  struct stat st{};
  if (::fstat(in.get(), &st) != 0) return sys_error("stat", from);
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755));  // never over a file it did not make
  if (!out.valid()) return sys_error("create the own-code copy", to, "is the working directory writable?");
  auto whole = static_cast<uint64_t>(st.st_size);
  uint64_t written = 0;
  do {  // the binary whole, then repeats of it (the last one cut) up to `size`
    uint64_t piece = written == 0 ? whole : std::min(whole, size - written);
    if (auto done = append(out.get(), in.get(), piece, to); !done) return done;
    written += piece;
  } while (whole > 0 && written < size);
  int synced = ::fsync(out.get());
  int dropped = ::posix_fadvise(out.get(), 0, 0, POSIX_FADV_DONTNEED);
  if (synced != 0) return sys_error("fsync", to);
  if (dropped != 0) return fail("posix_fadvise(DONTNEED) failed", to);
  return {};
}

Result<Residency> residency(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_error("open", path);
  struct stat st{};
  ::fstat(fd.get(), &st);
  auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  Residency out{.pages = (static_cast<uint64_t>(st.st_size) + page - 1) / page};
  if (out.pages == 0) return out;
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd.get(), 0);
  fd.reset();
  if (map == MAP_FAILED) return sys_error("map", path);
  std::vector<unsigned char> vec(out.pages);
  int rc = ::mincore(map, static_cast<size_t>(st.st_size), vec.data());
  ::munmap(map, static_cast<size_t>(st.st_size));
  if (rc != 0) return sys_error("mincore", path);
  for (unsigned char v : vec) out.cached += v & 1;
  return out;
}

Result<void> exec_own_copy(std::span<char*> args, uint64_t size, const LineSink& note) {
  std::string copy = fmt::format(".cgmem-own-code-{}", ::getpid());
  if (auto copied = copy_padded("/proc/self/exe", copy, size); !copied) return copied;
  auto cached = residency(copy);
  if (!cached) return std::unexpected(cached.error());
  if (cached->cached != 0) {
    ::unlink(copy.c_str());
    return fail(fmt::format("{} of {} pages of the own-code copy are still cached after "
                            "posix_fadvise(DONTNEED)", cached->cached, cached->pages), copy);
  }
  if (note) note(fmt::format("cgmem workload: own code: 0 of {} pages of {} cached; exec", cached->pages, copy));
  std::string self = "./" + copy;
  std::vector<char*> argv{self.data()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(nullptr);
  ::setenv(kOwnCodeEnv, copy.c_str(), 1);
  ::execv(self.c_str(), argv.data());
  auto error = sys_error("exec the own-code copy", copy);
  ::unlink(copy.c_str());
  return error;
}

bool adopt_own_copy() {
  const char* copy = std::getenv(kOwnCodeEnv);
  if (copy == nullptr) return false;
  ::unlink(copy);
  ::unsetenv(kOwnCodeEnv);
  return true;
}

Result<CodeMap> CodeMap::map(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return sys_error("open", path);
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return sys_error("stat", path);
  if (st.st_size == 0) return fail("the own code to walk is empty", path);
  auto bytes = static_cast<size_t>(st.st_size);
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd.get(), 0);
  if (base == MAP_FAILED) return sys_error("map executable", path, "is the run disk mounted noexec?");
  return CodeMap(static_cast<const unsigned char*>(base), bytes, static_cast<size_t>(::sysconf(_SC_PAGESIZE)));
}

CodeMap::CodeMap(CodeMap&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), bytes_(other.bytes_), page_(other.page_) {}

CodeMap::~CodeMap() {
  if (base_ != nullptr) ::munmap(const_cast<unsigned char*>(base_), bytes_);
}

uint64_t CodeMap::walk() const {
  uint64_t sum = 0;
  for (size_t at = 0; at < bytes_; at += page_) sum += *static_cast<const volatile unsigned char*>(base_ + at);
  return sum;
}

}  // namespace cgmem::lab
