#!/usr/bin/env python3
"""Writes a synthetic run directory (docs/run-format.md, schema 1) for the
report benchmark and for looking at a report by hand: a single process
allocating 256 KiB per op under memory.high (and optionally memory.max),
sleeping `--sleeps` times per op at the kernel's formula (HZ from --hz).

usage: make_run.py DIR [--ops N] [--hz 1000] [--sleeps 64] [--max BYTES] [--name NAME]
"""
import argparse, json, os

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--ops", type=int, default=1000)
p.add_argument("--hz", type=int, default=1000)
p.add_argument("--sleeps", type=int, default=64)
p.add_argument("--high", type=int, default=241590272)
p.add_argument("--max", type=int, default=0)
p.add_argument("--name", default="anon-over-high-r1")
p.add_argument("--target", type=int, default=320 << 20, help="bytes to grow by before churning")
a = p.parse_args()

PAGE, CHUNK = 4096, 256 * 1024

def penalty_ms(usage, high, hz):
    u, h = usage // PAGE, high // PAGE
    if u <= h:
        return 0.0
    ov = ((u - h) << 20) // h
    j = (ov * ov * hz) >> 20 >> 14
    j = min(j, 2 * hz)
    return 0.0 if j <= hz // 100 else j * 1000.0 / hz

os.makedirs(a.dir, exist_ok=True)
start = 1_000_000_000
limits = {"high": a.high}
if a.max:
    limits["max"] = a.max
meta = {"schema": 1, "name": a.name, "started_at": "2026-11-29T22:40:27Z", "started_mono_ns": start,
        "cgroup": "/cgmem/" + a.name, "limits": limits,
        "spec": {"cpu": 0, "sampler_cpu": 0, "interval_ms": 100, "cap_s": 150, "neighbour_interval_ms": None,
                 "workload_args": []},
        "workload": {"chunk_bytes": CHUNK, "target_bytes": 320 << 20, "churn": 200, "procs": 1, "seed": 1,
                     "populate": False, "file": None, "file_size": 0, "set_own_high": None, "own_code": False},
        "host": {"kernel": "6.12.0", "hz": a.hz, "hz_source": "test", "page_size": PAGE, "cpus": 2,
                 "mem_total_bytes": 1 << 30, "swap_total_bytes": 0, "zswap": "N", "thp": "madvise",
                 "virtualized": None},
        "code": {"version": "0.1.0", "git_commit": "bench", "binary_hash": "0000000000000000"},
        "claim_sha256": None, "simulated": True}
with open(os.path.join(a.dir, "meta.json"), "w") as f:
    json.dump(meta, f)

t, current, high_ev = start, 8 << 20, 0
base = 8 << 20
samples, next_sample = [], start
with open(os.path.join(a.dir, "ops.jsonl"), "w") as f:
    for i in range(a.ops):
        # Past 320 MiB of growth the workload churns: usage stays where it is.
        grow = current - base < a.target - CHUNK
        after = current + CHUNK if grow else current
        mid = current // 2 + after // 2
        ms = penalty_ms(mid, a.high, a.hz)
        sleeps = a.sleeps if ms > 0 else 0
        lat = int(250_000 + sleeps * ms * 1.05e6)
        rise = 17 * sleeps
        f.write(json.dumps({"op": i, "phase": "grow" if grow else "churn", "pid": 311, "cpu": 0,
                            "t_ns": t, "lat_ns": lat, "held_bytes": after - base,
                            "current_before": current, "current_after": after,
                            "high_before": high_ev, "high_after": high_ev + rise,
                            "max_before": 0, "max_after": 0}, separators=(",", ":")) + "\n")
        high_ev += rise
        t += lat
        current = after
        while next_sample <= t:
            samples.append((next_sample, current, high_ev))
            next_sample += 100_000_000

with open(os.path.join(a.dir, "samples.jsonl"), "w") as f:
    psi = 0
    for k, (st, cur, hev) in enumerate(samples):
        psi += 100_000 if hev else 0
        f.write(json.dumps({"t_ns": st, "memory_current": cur,
                            "memory_events": {"low": 0, "high": hev, "max": 0, "oom": 0, "oom_kill": 0},
                            "memory_pressure": {"some": {"avg10": 0, "total": psi}, "full": {"avg10": 0, "total": psi}},
                            "io_pressure": {"some": {"avg10": 0, "total": 0}, "full": {"avg10": 0, "total": 0}},
                            "memory_stat": {"anon": cur, "file": 0, "pgsteal": 0},
                            "cpu_stat": {"usage_usec": 1000 * k},
                            "io_stat": {"254:0": {"rbytes": 0, "wbytes": 0}},
                            "procs": [{"pid": 311, "state": "D" if hev else "R", "utime_ticks": 1,
                                       "stime_ticks": 1, "cpu": 0,
                                       "wchan": "mem_cgroup_handle_over_high" if hev else "0"}]}) + "\n")

with open(os.path.join(a.dir, "outcome.json"), "w") as f:
    json.dump({"status": "cap", "exit_code": None, "signal": 9, "duration_s": (t - start) / 1e9,
               "time_to_kill_s": None, "events": {"high": high_ev, "max": 0, "oom": 0, "oom_kill": 0},
               "peak_bytes": current, "ops": a.ops, "samples": len(samples), "errors": []}, f)
