#!/usr/bin/env bash
# The Debian package, built by cpack from BUILD_DIR and installed with dpkg
# into a root of its own (dpkg --root: its own package database, nothing of
# this machine's touched): it installs, `cgmem version` runs from it, `man
# -w` finds cgmem and cgmem-watch, the bash completion completes a command
# and a flag, the units name the installed binary; then it is removed and
# leaves no file behind.
#   deb_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: deb_test.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$tmp/out" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$tmp"/out/cgmem_*.deb)
dpkg-deb -I "$deb" > "$tmp/info"
grep -q '^ Package: cgmem$' "$tmp/info" || fail "no Package: cgmem in $(cat "$tmp/info")"
grep -q '^ Depends: .*libre2' "$tmp/info" || fail "Depends does not name the libraries: $(grep Depends "$tmp/info")"

root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: > "$root/var/lib/dpkg/status"
# --force-depends: the libraries are this machine's, not in the new root's database.
dpkg --root="$root" --force-depends --log=/dev/null -i "$deb" > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "dpkg -i failed"; }
dpkg --root="$root" -s cgmem | grep -q '^Status: install ok installed$' || fail "not installed"

version=$("$root/usr/bin/cgmem" version)
[[ $version == cgmem* ]] || fail "cgmem version printed: $version"
for page in cgmem cgmem-watch cgmem-exporter; do
  found=$(man -M "$root/usr/share/man" -w "$page") || fail "man -w $page found nothing"
  [[ $found == "$root"/usr/share/man/man1/$page.1.gz ]] || fail "man -w $page: $found"
done
man -M "$root/usr/share/man" cgmem-watch 2>/dev/null | grep -q -- '--full-read-every' ||
  fail "cgmem-watch(1) has no --full-read-every"
completed=$(bash -c ". '$root/usr/share/bash-completion/completions/cgmem'
  COMP_WORDS=(cgmem wat); COMP_CWORD=1; _cgmem; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(cgmem watch --full); COMP_CWORD=2; _cgmem; echo \"\${COMPREPLY[*]}\"")
[[ $completed == $'watch\n--full-read-every' ]] || fail "completion gave: $completed"
grep -q '^ExecStart=/usr/bin/cgmem exporter' "$root/usr/lib/systemd/system/cgmem-exporter.service" ||
  fail "cgmem-exporter.service does not start /usr/bin/cgmem"
[[ -s $root/usr/share/cgmem/prometheus/cgmem-rules.yml ]] || fail "no Prometheus rules"

dpkg --root="$root" --log=/dev/null -r cgmem > "$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log" >&2; fail "dpkg -r failed"; }
left=$( (find "$root/usr" -type f 2>/dev/null || true) | head -5)
[[ -z $left ]] || fail "files left after dpkg -r: $left"
echo "deb_test: $(basename "$deb") installed, ran ($version), documented and removed cleanly"
