# Sourced by the tests that scrape with a real Prometheus (Debian's
# package). The caller stops what they start by the PIDs they set.
#   start_exporter CGMEM ROOT DIR: `cgmem exporter` on 127.0.0.1 at a free
#     port over the tree ROOT (its output in DIR); sets EXPORTER_PID and
#     LISTEN (HOST:PORT), or fails with its stderr.
#   start_prometheus TARGET DIR: Prometheus on 127.0.0.1 at a free port,
#     scraping TARGET (HOST:PORT) every second, with its configuration, data
#     and log in DIR; sets PROM_PORT and PROM_PID.
start_exporter() {
  local cgmem=$1 root=$2 dir=$3
  "$cgmem" exporter --listen 127.0.0.1:0 --json --root "$root" --interval 1s --hz 250 > "$dir/exporter.out" 2> "$dir/exporter.err" &
  EXPORTER_PID=$!
  for _ in $(seq 50); do
    [[ -s $dir/exporter.out ]] && break
    sleep 0.1
  done
  LISTEN=$(jq -r .listen "$dir/exporter.out")
  [[ -n $LISTEN && $LISTEN != null ]] || { echo "the exporter printed no address:" >&2; cat "$dir/exporter.err" >&2; return 1; }
}

start_prometheus() {
  local target=$1 dir=$2
  command -v prometheus >/dev/null || { echo "prometheus missing: apt-get install prometheus (scripts/install-deps.sh)" >&2; return 1; }
  PROM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat > "$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: cgmem
    static_configs:
      - targets: ['$target']
YML
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn > "$dir/prometheus.log" 2>&1 &
  PROM_PID=$!
}
