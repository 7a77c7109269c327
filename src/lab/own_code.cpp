#include "lab/own_code.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fmt/format.h>
#include <vector>

#include "common/fd.h"

namespace cgmem::lab {
namespace {

Result<void> copy_file(const char* from, const std::string& to) {
  Fd in(::open(from, O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return sys_error("open", from);
  struct stat st{};
  ::fstat(in.get(), &st);
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755));
  if (!out.valid()) return sys_error("create the own-code copy", to, "is the working directory writable?");
  off_t offset = 0;
  while (offset < st.st_size) {
    ssize_t n = ::sendfile(out.get(), in.get(), &offset, static_cast<size_t>(st.st_size - offset));
    if (n <= 0) return sys_error("copy the binary", to);
  }
  int synced = ::fsync(out.get());
  int dropped = ::posix_fadvise(out.get(), 0, 0, POSIX_FADV_DONTNEED);
  if (synced != 0) return sys_error("fsync", to);
  if (dropped != 0) return fail("posix_fadvise(DONTNEED) failed", to);
  return {};
}

}  // namespace

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

Result<void> exec_own_copy(std::span<char*> args, const LineSink& note) {
  std::string copy = fmt::format(".cgmem-own-code-{}", ::getpid());
  if (auto copied = copy_file("/proc/self/exe", copy); !copied) return copied;
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

}  // namespace cgmem::lab
