#!/usr/bin/env bash
# Installs everything cgmem needs to build, test and run its VM, from
# Debian 12 packages only. Idempotent: a second run installs nothing.
# --main: only what scripts/main.sh needs (the static cgmem, the VM, plots):
# no test, fuzz or benchmark packages.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  clang-16 libclang-rt-16-dev         # libFuzzer targets (clang 14 cannot compile std::expected)
  # libraries (header-only or static-capable, so the static build works)
  libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev                     # cgmem translate: pod and compose YAML
  libre2-dev                          # --match and a policy's match: linear-time regular expressions (static archive too)
  zlib1g-dev                          # cgmem host reads /proc/config.gz
  libncurses-dev                      # cgmem top: the terminal view (static archives too)
  # the VM: a real kernel under QEMU, a busybox guest, an ext4 run disk
  qemu-system-x86 busybox-static e2fsprogs cpio xz-utils zstd kmod
  # cgmem kernel build: Debian's kernel source and what compiling it needs
  linux-source-6.12 flex bison libelf-dev libssl-dev patch   # and bc, below
  linux-source-6.1                    # the 6.1 kernel's own memory-controller selftest (tests/kernel)
  # report: plots
  gnuplot-nox
  # benchmarks that compare with a plain Python parse
  python3 bc                          # bench/ scripts
  tmux                                # tests drive `cgmem top` in a terminal
  libcpp-httplib-dev                  # cgmem exporter: the HTTP server (a shared library: not in the static build)
  prometheus curl jq                  # exporter tests: promtool check metrics/rules, a real Prometheus scraping
  prometheus-node-exporter            # bench/exporter_vs_scan.sh: the reference scrape
  # the own-program example (examples/redis.toml, docs/own-program.md): a real server and its load
  redis-server redis-tools
  # the other own-program examples (examples/go.toml, jvm.toml, postgres.toml) and their test
  golang-go openjdk-17-jdk-headless postgresql-15 wrk
  # the Debian package (cpack -G DEB: dpkg-shlibdeps and file for Depends) and its test (man -w)
  dpkg-dev file man-db
  # a study sharded over a real Slurm (tests/matrix/slurm_test.sh starts its own daemons)
  slurmctld slurmd slurm-client munge
  # the exporter's image FROM scratch, built and run by its test (deploy/kubernetes/build-image.sh)
  buildah podman crun
  runc                                # translate runc/crun checked against the real runtimes in the VM
  systemd util-linux                  # translate systemd checked against systemd as PID 1 of a namespace in the VM
)

if [[ ${1:-} == --main ]]; then
  # The claims batch runs on Debian's kernel (fetched by cgmem vm), so
  # neither the kernel source nor its build tools; no test, fuzz, benchmark
  # or own-program example packages.
  test_only=" clang-16 libclang-rt-16-dev libgtest-dev libgmock-dev libbenchmark-dev python3 bc prometheus curl jq "
  test_only+=" prometheus-node-exporter linux-source-6.12 linux-source-6.1 flex bison libelf-dev libssl-dev patch tmux redis-server redis-tools "
  test_only+=" dpkg-dev file man-db slurmctld slurmd slurm-client munge buildah podman crun runc systemd util-linux "
  test_only+=" golang-go openjdk-17-jdk-headless postgresql-15 wrk "
  kept=()
  for p in "${packages[@]}"; do [[ $test_only == *" $p "* ]] || kept+=("$p"); done
  packages=("${kept[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing ${missing[*]}; run as root: sudo $0" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# The packages' services (munge, slurmd, slurmctld) stay stopped: the tests
# start daemons of their own. A policy-rc.d already there is left as it is.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\n# install-deps: no service starts while cgmem installs its packages\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
