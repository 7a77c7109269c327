# Sourced in the guest (busybox sh). oci_runtimes OUT: for each case of
# /vm/in/oci_cases.txt and each runtime (runc, crun, brought in with
# `cgmem vm --program`), a bundle with a busybox rootfs and that case's
# linux.resources; the runtime creates the container (its init waits to
# be started, in its cgroup), the cgroup's memory files are read into
# OUT/RUNTIME/CASE.files (FILE=VALUE lines), the runtime's exit code and
# stderr into CASE.status and CASE.err, and the container is deleted.
oci_runtimes() {
  out=$1
  bundle=/tmp/oci-bundle
  mkdir -p "$bundle/rootfs/bin" "$bundle/rootfs/proc" "$bundle/rootfs/dev"
  cp /bin/busybox "$bundle/rootfs/bin/busybox"
  for runtime in runc crun; do
    mkdir -p "$out/$runtime"
    "$runtime" --version > "$out/$runtime/version" 2>&1
    grep -v '^#' /vm/in/oci_cases.txt | while read -r name resources; do
      [ -n "$name" ] || continue
      id="oci-$runtime-$name"
      cgroup=/sys/fs/cgroup/cgmem/$id
      cat > "$bundle/config.json" <<JSON
{"ociVersion": "1.0.2",
 "process": {"terminal": false, "user": {"uid": 0, "gid": 0}, "cwd": "/",
             "args": ["/bin/busybox", "sleep", "60"], "env": ["PATH=/bin"]},
 "root": {"path": "rootfs"},
 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
 "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}],
           "cgroupsPath": "/cgmem/$id",
           "resources": $resources}}
JSON
      # --no-pivot: the guest's root is the initramfs, where pivot_root fails.
      "$runtime" --root /tmp/oci-state create --no-pivot --bundle "$bundle" "$id" \
        < /dev/null > "$out/$runtime/$name.out" 2> "$out/$runtime/$name.err"
      echo $? > "$out/$runtime/$name.status"
      : > "$out/$runtime/$name.files"
      if [ -d "$cgroup" ]; then
        for f in memory.max memory.high memory.low memory.min memory.swap.max memory.swap.high memory.oom.group; do
          [ -f "$cgroup/$f" ] && echo "$f=$(cat "$cgroup/$f")" >> "$out/$runtime/$name.files"
        done
      fi
      "$runtime" --root /tmp/oci-state delete --force "$id" > /dev/null 2>&1
      [ -d "$cgroup" ] && rmdir "$cgroup" 2> /dev/null
    done
  done
}
