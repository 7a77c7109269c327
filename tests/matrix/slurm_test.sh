#!/usr/bin/env bash
# A study sharded over a real Slurm: Debian's munged, slurmctld and slurmd
# on this host, started and stopped by this test, run
# deploy/slurm/cgmem-matrix.sbatch as an array of 2 tasks, each one shard
# of a small spec in cgmem's VM; `cgmem report` merges the two batches, and
# the merged runs must be exactly the unsharded plan's, nothing missing.
#   slurm_test.sh CGMEM SOURCE_DIR
#
# Slurm is kept off this machine's cgroups and network: the daemons and the
# jobs run in a mount and network namespace of their own, where
# /sys/fs/cgroup is a read-only view without the hierarchies mounted under
# it, and the only interface is loopback. Slurm's proctrack/linuxproc and
# task/none track the jobs by their processes, not by cgroups.
set -euo pipefail
fail() { echo "slurm_test: $*" >&2; exit 1; }

for c in munged slurmctld slurmd sbatch sinfo ip jq python3; do
  command -v "$c" > /dev/null || fail "$c missing: scripts/install-deps.sh installs Slurm and munge"
done
. "$(dirname "$0")/../support/own_namespace.sh"
own_namespace slurm_test "$@"
cgmem=$(realpath "${1:?usage: slurm_test.sh CGMEM SOURCE_DIR}")
source_dir=$(realpath "${2:?usage: slurm_test.sh CGMEM SOURCE_DIR}")

# Slurm resolves its hosts with AI_ADDRCONFIG, which finds nothing while
# 127.0.0.1 is the only IPv4 address, so loopback gets a second one.
ip addr add 10.254.254.1/32 dev lo

tmp=$(mktemp -d /tmp/cgmem-slurm-XXXXXX)
chmod 755 "$tmp"
pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
  done
}
keep_logs() {
  local rc=$?
  stop_all
  if ((rc != 0)); then
    for f in "$tmp"/log/* "$tmp"/cgmem-matrix-*.log; do
      [[ -e $f ]] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
    done
  fi
  rm -rf "$tmp"
}
trap keep_logs EXIT

mkdir -m 700 "$tmp/state" "$tmp/spool"
mkdir "$tmp/munge" "$tmp/log" "$tmp/bin" "$tmp/study"
head -c 128 /dev/urandom > "$tmp/munge/munge.key"
chmod 600 "$tmp/munge/munge.key"
munged --foreground --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
  --log-file="$tmp/log/munged.log" --pid-file="$tmp/munge/pid" --seed-file="$tmp/munge/seed" > "$tmp/log/munged.out" 2>&1 &
pids+=($!)

read -r ctld_port slurmd_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=cgmemtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
CommunicationParameters=NoInAddrAny
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1024 State=UNKNOWN
PartitionName=cgmem Nodes=localhost Default=YES MaxTime=20 State=UP
EOF
# slurmd always starts a cgroup plugin; named, it does not probe the mounts,
# and with task/none and proctrack/linuxproc it never uses them.
echo "CgroupPlugin=cgroup/v1" > "$tmp/cgroup.conf"

for _ in $(seq 50); do [[ -S $tmp/munge/socket ]] && break; sleep 0.1; done
slurmctld -D -i > "$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost > "$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %t 2> /dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || fail "the node is not idle after 30 s (sinfo: '$state')"

# Four short runs: two shards of two. A run under memory.max ends at the
# kill; its cap of 10 s is room for a loaded machine, where a kill under
# a cap of 1 s once came too late (the run ended at the cap).
spec=$tmp/study/tiny.toml
cat > "$spec" << 'EOF'
name = "slurm-tiny"
reps = 2
order = "fixed"

[defaults]
cap = "1s"
interval = "100ms"

[[configs]]
name = "none"

[[configs]]
name = "max"
max = "32M"
cap = "10s"

[[workloads]]
name = "anon-over"
args = ["--target", "40M", "--churn", "50"]
EOF
ln -s "$cgmem" "$tmp/bin/cgmem"
started=$(date +%s)
PATH=$tmp/bin:$PATH CGMEM_MATRIX_FLAGS=--vm timeout 900 \
  sbatch --wait --quiet --array=1-2 --chdir="$tmp" --time=15 \
  "$source_dir/deploy/slurm/cgmem-matrix.sbatch" "$spec" "$tmp/study" ||
  fail "the array job failed (sbatch --wait: $?)"
took=$(($(date +%s) - started))

"$cgmem" matrix "$spec" --vm --plan --json > "$tmp/plan.json"
"$cgmem" report "$tmp/study/shard-1-of-2" "$tmp/study/shard-2-of-2" --format json --json > "$tmp/report.json" ||
  fail "cgmem report failed on the two shards"
planned=$(jq -c '[.runs[] | {name, config, workload, rep}] | sort_by(.name)' "$tmp/plan.json")
merged=$(jq -c '[.runs[] | {name, config, workload, rep}] | sort_by(.name)' "$tmp/report.json")
[[ $(jq length <<< "$planned") -eq 4 ]] || fail "the plan has not 4 runs: $planned"
[[ $merged == "$planned" ]] || fail "merged runs differ from the plan: $merged against $planned"
shards=$(jq -c '.shards | map({count, plan_runs, runs, present, missing, twice})' "$tmp/report.json")
[[ $shards == '[{"count":2,"plan_runs":4,"runs":4,"present":[1,2],"missing":[],"twice":[]}]' ]] ||
  fail "shards: $shards"
for k in 1 2; do
  [[ $(jq -c .shard.index "$tmp/study/shard-$k-of-2/batch.json") == "$k" ]] || fail "shard-$k-of-2 is not shard $k"
  compgen -G "$tmp/cgmem-matrix-*-$k.log" > /dev/null || fail "no Slurm log of task $k"
done
# The guest takes the host's name: the batches say which machine ran them.
[[ $(jq -r '[.hosts[].hostname] | unique | join(",")' "$tmp/report.json") == "$(hostname)" ]] ||
  fail "hosts: $(jq -c .hosts "$tmp/report.json"), this host is $(hostname)"
# The study's outcome, through Slurm: 40 MiB under memory.max 32M is killed.
killed=$(jq -c '[.runs[] | select(.config == "max") | .killed] | unique' "$tmp/report.json")
[[ $killed == '[true]' ]] || fail "memory.max runs killed: $killed"
hosts=$(jq -r '[.hosts[] | "\(.runs) runs on \(.hostname) (kernel \(.kernel), \(.virtualized // "native"))"] | join("; ")' "$tmp/report.json")
echo "slurm_test: 2 shards through Slurm $(sinfo -V | cut -d' ' -f2) in ${took}s; merged $(jq '.runs | length' "$tmp/report.json") runs = the plan; $hosts"
