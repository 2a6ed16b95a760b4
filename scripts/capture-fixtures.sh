#!/usr/bin/env bash
# Captures the upstream payloads the unit tests use, from Debian's real prometheus and
# prometheus-alertmanager started on 127.0.0.1. Run by hand when upgrading upstream versions:
#   bash scripts/capture-fixtures.sh
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/upstream"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
PROM=${PROMETHEUS_BIN:-prometheus}
AM=${ALERTMANAGER_BIN:-prometheus-alertmanager}

cat > "$work/am.yml" <<'YML'
global:
  resolve_timeout: 5m
route:
  receiver: default
  group_by: [alertname]
  routes:
    - receiver: team-a
      matchers: ['team="a"']
      routes:
        - receiver: team-a-pager
          matchers: ['severity="critical"']
    - receiver: team-b
      matchers: ['team="b"']
receivers:
  - name: default
  - name: team-a
    webhook_configs:
      - url: http://127.0.0.1:9/hook?token=s3cr3t-webhook-token
  - name: team-a-pager
  - name: team-b
inhibit_rules:
  - source_matchers: ['severity="critical"']
    target_matchers: ['severity="warning"']
    equal: [alertname]
templates:
  - /nonexistent/*.tmpl
YML

# Empty head: a Prometheus that scrapes nothing has an empty head right after start.
cat > "$work/empty.yml" <<'YML'
global: {scrape_interval: 1h}
YML
"$PROM" --config.file="$work/empty.yml" --storage.tsdb.path="$work/empty-data" \
  --web.listen-address=127.0.0.1:19190 >"$work/empty.log" 2>&1 & pids+=($!)

# A two-node cluster and one Alertmanager without clustering.
"$AM" --config.file="$work/am.yml" --storage.path="$work/am1" --web.listen-address=127.0.0.1:19193 \
  --cluster.listen-address=127.0.0.1:19194 --cluster.advertise-address=127.0.0.1:19194 \
  --cluster.peer=127.0.0.1:19196 >"$work/am1.log" 2>&1 & pids+=($!)
"$AM" --config.file="$work/am.yml" --storage.path="$work/am2" --web.listen-address=127.0.0.1:19195 \
  --cluster.listen-address=127.0.0.1:19196 --cluster.advertise-address=127.0.0.1:19196 \
  --cluster.peer=127.0.0.1:19194 >"$work/am2.log" 2>&1 & pids+=($!)
"$AM" --config.file="$work/am.yml" --storage.path="$work/am3" --web.listen-address=127.0.0.1:19197 \
  --cluster.listen-address= >"$work/am3.log" 2>&1 & pids+=($!)

# Prometheus scraping itself, the cluster, a dead port, and a job with a long interval (unknown).
cat > "$work/prom.yml" <<'YML'
global: {scrape_interval: 1s, scrape_timeout: 500ms}
scrape_configs:
  - job_name: prometheus
    static_configs: [{targets: ['127.0.0.1:19090']}]
  - job_name: alertmanager
    static_configs: [{targets: ['127.0.0.1:19193', '127.0.0.1:19195']}]
  - job_name: dead
    static_configs: [{targets: ['127.0.0.1:1']}]
  - job_name: slow
    scrape_interval: 1h
    static_configs: [{targets: ['127.0.0.1:2', '127.0.0.1:3', '127.0.0.1:4']}]
  - job_name: relabelled
    static_configs: [{targets: ['127.0.0.1:5', '127.0.0.1:6']}]
    relabel_configs:
      - source_labels: [__address__]
        regex: '.*:6'
        action: drop
YML
"$PROM" --config.file="$work/prom.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address=127.0.0.1:19090 >"$work/prom.log" 2>&1 & pids+=($!)

wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "timeout: $1" >&2; return 1; }
wait_for http://127.0.0.1:19190/-/ready
wait_for http://127.0.0.1:19090/-/ready
wait_for http://127.0.0.1:19193/-/ready
wait_for http://127.0.0.1:19195/-/ready
wait_for http://127.0.0.1:19197/-/ready
curl -fsS http://127.0.0.1:19190/api/v1/status/tsdb >"$out/prometheus-tsdb-empty-head.json"
sleep 8
j() { curl -fsS "$1" | python3 -m json.tool --indent 1 >"$2"; }
j http://127.0.0.1:19090/api/v1/status/tsdb "$out/prometheus-tsdb.json"
j 'http://127.0.0.1:19090/api/v1/status/tsdb?limit=3' "$out/prometheus-tsdb-limit-3.json"
j http://127.0.0.1:19090/api/v1/targets "$out/prometheus-targets.json"
j http://127.0.0.1:19193/api/v2/status "$out/alertmanager-status-clustered.json"
j http://127.0.0.1:19197/api/v2/status "$out/alertmanager-status-standalone.json"
curl -sS -o "$out/prometheus-error-envelope.json" 'http://127.0.0.1:19090/api/v1/query?query=(' || true
curl -sS -o "$out/prometheus-error-not-found.txt" 'http://127.0.0.1:19090/api/v1/nothing' || true
curl -sS -o "$out/alertmanager-error-not-found.txt" 'http://127.0.0.1:19193/api/v2/nothing' || true
echo "captured into $out"
