#!/usr/bin/env bash
# Boot time of the cgmem VM, the budget in docs/vm.md (at most 6 s under TCG):
# from QEMU's start to the guest starting the inner command ("cgmem-vm:
# running" on its console), as `cgmem vm` records it in DIR.vm.json
# (boot_seconds). Also the guest's own uptime at that moment (kernel start
# to /init's command) and QEMU's whole run (boot + `cgmem version` + power
# off). Prints every boot and the medians. Not a unit test.
#
# usage: bench/vm_boot.sh [BOOTS] [CGMEM]   (defaults: 7, build/release/src/cli/cgmem)
set -euo pipefail
boots=${1:-7}
cgmem=${2:-build/release/src/cli/cgmem}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() {  # FILE KEY: a number from the flat JSON record
  grep -o "\"$2\": \"\\?[0-9.]*" "$1" | grep -o '[0-9.]*$'
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '%-5s %12s %14s %13s %s\n' boot boot_seconds guest_uptime total_seconds accel
for i in $(seq "$boots"); do
  "$cgmem" vm --out "$work/b$i" -- version >/dev/null 2>"$work/b$i.err" || { cat "$work/b$i.err"; exit 1; }
  record=$work/b$i.vm.json
  field "$record" boot_seconds >>"$work/boot"
  field "$record" uptime_at_run >>"$work/uptime"
  field "$record" total_seconds >>"$work/total"
  printf '%-5s %12.2f %14.2f %13.2f %s\n' "$i" "$(tail -n1 "$work/boot")" "$(tail -n1 "$work/uptime")" \
    "$(tail -n1 "$work/total")" "$(grep -o '"accel": "[a-z]*"' "$record" | cut -d'"' -f4)"
done
printf '%-5s %12.2f %14.2f %13.2f\n' median "$(median <"$work/boot")" "$(median <"$work/uptime")" "$(median <"$work/total")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
