#include "vm/cpio.h"

#include <fmt/format.h>

namespace cgmem::vm {

namespace {

void pad4(std::string& out) {
  while (out.size() % 4 != 0) out.push_back('\0');
}

}  // namespace

void CpioWriter::entry(std::string_view name, uint32_t mode, uint32_t nlink, std::string_view data) {
  uint32_t ino = name == "TRAILER!!!" ? 0 : next_ino_++;
  out_ += fmt::format("070701{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}",
                      ino, mode, 0, 0, nlink, 0, data.size(), 0, 0, 0, 0, name.size() + 1, 0);
  out_ += name;
  out_.push_back('\0');
  pad4(out_);
  out_ += data;
  pad4(out_);
}

void CpioWriter::directory(std::string_view name, uint32_t mode) { entry(name, 0040000 | mode, 2, {}); }

void CpioWriter::file(std::string_view name, std::string_view data, uint32_t mode) {
  entry(name, 0100000 | mode, 1, data);
}

void CpioWriter::symlink(std::string_view name, std::string_view target) {
  entry(name, 0120777, 1, target);
}

std::string CpioWriter::finish() {
  entry("TRAILER!!!", 0, 1, {});
  return std::move(out_);
}

}  // namespace cgmem::vm
