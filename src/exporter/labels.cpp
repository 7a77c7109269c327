#include "exporter/labels.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

#include "common/text.h"

namespace cgmem::exporter {
namespace {

bool is_hex(std::string_view s) {
  if (s.size() < 12) return false;  // runtime IDs are 64 hex digits; short ones are not IDs
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool strip_prefix(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool strip_suffix(std::string_view& s, std::string_view suffix) {
  if (!s.ends_with(suffix)) return false;
  s.remove_suffix(suffix.size());
  return true;
}

// "1f2e3d4c_aaaa_..." (systemd) or "1f2e3d4c-aaaa-..." (cgroupfs): a UID is 36 characters.
std::string uid_from(std::string_view s) {
  if (s.size() != 36) return {};
  std::string uid(s);
  for (char& c : uid)
    if (c == '_') c = '-';
  return uid;
}

// A container's name: RUNTIME-ID (a .scope with the systemd driver; CRI-O
// uses crio-ID with cgroupfs too).
bool container(std::string_view n, CgroupLabels& l) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kRuntimes = {{
      {"cri-containerd-", "containerd"}, {"crio-", "crio"}, {"docker-", "docker"}}};
  for (auto [prefix, runtime] : kRuntimes) {
    std::string_view id = n;
    if (strip_prefix(id, prefix) && is_hex(id)) {
      l.container_id = id, l.runtime = runtime;
      return true;
    }
  }
  return false;
}

// One path component under kubepods: the QoS level, the pod, the container.
void kube_component(std::string_view name, CgroupLabels& l) {
  std::string_view n = name;
  if (strip_suffix(n, ".slice")) {  // systemd driver
    strip_prefix(n, "kubepods-");
    for (std::string_view qos : {"burstable", "besteffort"}) {
      if (n == qos) { l.qos = qos; return; }
      if (n.starts_with(qos) && n.size() > qos.size() && n[qos.size()] == '-') n.remove_prefix(qos.size() + 1);
    }
    if (strip_prefix(n, "pod")) {
      l.pod_uid = uid_from(n);
      if (l.qos.empty()) l.qos = "guaranteed";
    }
    return;
  }
  bool scope = strip_suffix(n, ".scope");
  if (container(n, l) || scope) return;
  // cgroupfs driver
  if (n == "burstable" || n == "besteffort") { l.qos = n; return; }
  if (strip_prefix(n, "pod")) {
    l.pod_uid = uid_from(n);
    if (!l.pod_uid.empty() && l.qos.empty()) l.qos = "guaranteed";
    return;
  }
  if (!l.pod_uid.empty() && is_hex(n)) l.container_id = n;  // containerd and docker with cgroupfs: the bare ID
}

bool is_unit(std::string_view name) {
  for (std::string_view suffix : {".service", ".scope", ".socket", ".mount", ".swap"})
    if (name.size() > suffix.size() && name.ends_with(suffix)) return true;
  return false;
}

void add(LabelBlock& block, std::string_view name, std::string_view value) {
  if (value.empty()) return;
  std::string& out = block.text;
  if (!out.empty()) out += ',';
  out += name;
  out += "=\"";
  bool cut = false;
  append_escaped(out, label_value(value, cut));
  block.cut += cut;
  out += '"';
}

// FNV-1a, 64 bits: enough to tell apart the paths that share a head.
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

CgroupLabels labels_for(std::string_view path) {
  CgroupLabels l;
  bool kube = false;
  std::string_view rest = path;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view name = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (name.empty()) continue;
    if (name == "kubepods" || name == "kubepods.slice") {
      kube = true;
      continue;
    }
    if (kube) {
      kube_component(name, l);
    } else if (name.ends_with(".slice")) {
      l.slice = name;
    } else if (is_unit(name)) {
      l.unit = name;
    }
  }
  return l;
}

std::string label_value(std::string_view raw, bool& cut) {
  std::string value = visible(raw.substr(0, 4 * kMaxLabelValue));  // visible() at most quadruples a byte
  cut = raw.size() > 4 * kMaxLabelValue || value.size() > kMaxLabelValue;
  if (!cut) return value;
  std::string mark = fmt::format("{}{:016x}]", kCutMark, fnv1a(raw));
  std::string out(utf8_prefix(value, kMaxLabelValue - mark.size()));
  return out + mark;
}

LabelBlock label_block(std::string_view path, const CgroupLabels& l) {
  LabelBlock out;
  add(out, "cgroup", path);
  add(out, "pod_uid", l.pod_uid);
  add(out, "qos", l.qos);
  add(out, "container_id", l.container_id);
  add(out, "runtime", l.runtime);
  add(out, "unit", l.unit);
  add(out, "slice", l.slice);
  return out;
}

void append_escaped(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
}

}  // namespace cgmem::exporter
