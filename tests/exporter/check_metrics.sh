#!/usr/bin/env bash
# `cgmem exporter --once` over a fixture tree through Debian's promtool
# (`promtool check metrics`: names, HELP/TYPE, units, counter suffixes), the
# series and labels the issue asks for, and OpenMetrics ends with # EOF.
set -euo pipefail
cgmem=${1:?usage: check_metrics.sh CGMEM FIXTURES}
fixtures=${2:?usage: check_metrics.sh CGMEM FIXTURES}
command -v promtool >/dev/null || { echo "promtool missing: apt-get install prometheus (scripts/install-deps.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# lint PAGE WHAT: promtool check metrics on PAGE, its findings on stderr.
lint() {
  if ! promtool check metrics < "$1" > "$tmp/lint" 2>&1; then
    echo "promtool check metrics found problems in $2:" >&2
    cat "$tmp/lint" >&2
    exit 1
  fi
}

# on_page PAGE LINE...: each LINE is on PAGE.
on_page() {
  local page=$1 want
  shift
  for want in "$@"; do
    grep -qF -- "$want" "$page" || { echo "not on the page: $want" >&2; exit 1; }
  done
}

# A tree with the real throttled cgroup under a kubepods-like path and a systemd service.
pod=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f2e3d4c_5b6a_4789_9abc_def012345678.slice
mkdir -p "$tmp/root/$pod" "$tmp/root/system.slice"
cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/root/$pod/cri-containerd-$(printf 'a%.0s' {1..64}).scope"
cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/root/system.slice/web.service"

"$cgmem" exporter --once --interval 100ms --root "$tmp/root" --hz 250 > "$tmp/page.text"
"$cgmem" exporter --once --interval 100ms --root "$tmp/root" --hz 250 --openmetrics > "$tmp/page.openmetrics"
# promtool reads the text format only (it takes an OpenMetrics counter
# family for an untyped one); OpenMetrics is parsed by a real Prometheus in
# prometheus_fixture.sh, which asks for it.
lint "$tmp/page.text" "the page"
tail -n1 "$tmp/page.openmetrics" | grep -qx '# EOF'
on_page "$tmp/page.text" \
  'cgmem_memory_events_high_total{cgroup="/system.slice/web.service",unit="web.service",slice="system.slice"} 309' \
  'cgmem_memory_current_bytes{cgroup="/system.slice/web.service",unit="web.service",slice="system.slice"} 34140160' \
  'pod_uid="1f2e3d4c-5b6a-4789-9abc-def012345678",qos="burstable",container_id="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",runtime="containerd"' \
  'cgmem_state{cgroup="/system.slice/web.service",unit="web.service",slice="system.slice",state="swapping"} 0' \
  'cgmem_memory_swap_high_bytes{cgroup="/system.slice/web.service",unit="web.service",slice="system.slice"} +Inf' \
  'cgmem_memory_swap_events_high_total{cgroup="/system.slice/web.service",unit="web.service",slice="system.slice"} 0' \
  'cgmem_exporter_cgroups 2'

# A cgroup over memory.swap.high (read in the VM with zram swap): the
# forecast's two terms before the clamp, and the clamped sleep.
mkdir -p "$tmp/swap"
cp -r "$fixtures/watch-vm-6.12-swap/1/cgmem/swaphigh" "$tmp/swap/swaphigh"
"$cgmem" exporter --once --interval 100ms --root "$tmp/swap" --hz 250 > "$tmp/swap.text"
lint "$tmp/swap.text" "the page of a cgroup over memory.swap.high"
on_page "$tmp/swap.text" \
  'cgmem_throttle_delay_seconds{cgroup="/swaphigh",term="swap"} 10.508' \
  'cgmem_throttle_delay_seconds{cgroup="/swaphigh",term="memory"} 0' \
  'cgmem_throttle_sleep_seconds{cgroup="/swaphigh"} 2.016' \
  'cgmem_memory_swap_high_bytes{cgroup="/swaphigh"} 4194304'

# Hostile names (not UTF-8, ESC, CR, newline), a path past the label bound
# and a cgroup whose memory.current is garbage: the page stays valid.
mkdir -p "$tmp/hostile"
for name in $'bad\xff' $'clear\x1b[2J' $'cr\rforged' $'nl\nforged 1'; do
  cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/hostile/$name"
done
long=$tmp/hostile
for i in 1 2 3 4 5; do long=$long/$(printf 'd%.0s' {1..250}); done
mkdir -p "$long"
cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$long/leaf"
cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/hostile/garbage"
printf 'lots\n' > "$tmp/hostile/garbage/memory.current"
"$cgmem" exporter --once --interval 100ms --root "$tmp/hostile" --hz 250 > "$tmp/hostile.text"
lint "$tmp/hostile.text" "the page of hostile names"
iconv -f UTF-8 -t UTF-8 "$tmp/hostile.text" > /dev/null || { echo "the page is not valid UTF-8" >&2; exit 1; }
on_page "$tmp/hostile.text" \
  'cgmem_memory_current_bytes{cgroup="/bad\\xff"} 34140160' \
  'cgmem_memory_current_bytes{cgroup="/clear\\x1b[2J"} 34140160' \
  'cgmem_memory_current_bytes{cgroup="/nl\\nforged 1"} 34140160' \
  'cgmem_state{cgroup="/garbage",state="unknown"} 1' \
  'cgmem_exporter_label_values_cut 1' \
  'cgmem_memory_controller_usable 1'
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$tmp/hostile.text"; then echo "a control byte on the page" >&2; exit 1; fi
echo "promtool check metrics: clean, $(grep -vc '^#' "$tmp/page.text") series; hostile names: clean"
