# The Cgroup handle (src/cgroup) creates, fills, kills, waits for and
# removes a cgroup on the real kernel; cgroup-probe prints each step.
cgroup-probe > probe.txt
