# Sourced by the tests that scrape with a real Prometheus (Debian's
# package): start_prometheus TARGET DIR starts one on 127.0.0.1 at a free
# port, scraping HOST:PORT TARGET every second, with its configuration, data
# and log in DIR; it sets PROM_PORT and PROM_PID. The caller stops it by
# that PID.
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
