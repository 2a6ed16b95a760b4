#!/usr/bin/env bash
# Captures what Debian's real VictoriaMetrics single node and vmagent answer on the endpoints the
# exporter polls (targets, tsdb status, buildinfo), started on 127.0.0.1 with a scrape config that has
# one target up, one down, one answering 404, one never scraped yet and one dropped by relabelling.
# Each answer is taken twice, some seconds apart. Run by hand when the Debian package changes:
#   bash scripts/capture-backend-fixtures.sh
# Writes test/fixtures/backends/victoriametrics-<major.minor>/: <name>.json or <name>.txt (the body as
# sent, byte for byte; .txt when it is not JSON) and <name>.head (status line and headers, with Date and
# X-Server-Hostname replaced: they vary per run).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
VM=${VICTORIA_METRICS_BIN:-victoria-metrics}
VMAGENT=${VMAGENT_BIN:-vmagent}
command -v "$VM" >/dev/null || { echo "capture-backend-fixtures: $VM not found (bash scripts/ensure-upstreams.sh)" >&2; exit 1; }
command -v "$VMAGENT" >/dev/null || { echo "capture-backend-fixtures: $VMAGENT not found" >&2; exit 1; }
# Debian's build prints no -version; the package's version is the one that counts.
version=$(dpkg-query -W -f='${Version}' victoria-metrics 2>/dev/null || echo unknown)
short=$(echo "$version" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
out="$root/test/fixtures/backends/victoriametrics-$short"
mkdir -p "$out"

VM_PORT=18428 AGENT_PORT=18429 AGENT_DROP_PORT=18430 NOTFOUND_PORT=18431 DEAD_PORT=1
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A server that answers every request with 404 (what a wrong metrics_path gets from most exporters).
node -e "require('node:http').createServer((q,s)=>{s.statusCode=404;s.end('404 page not found\n')}).listen($NOTFOUND_PORT,'127.0.0.1')" &
pids+=($!)

# The same config for VictoriaMetrics and both vmagents: each scrapes itself (job "self").
scrape_config() { # own port
  cat <<YML
global: {scrape_interval: 1s, scrape_timeout: 500ms}
scrape_configs:
  - job_name: self
    static_configs: [{targets: ['127.0.0.1:$1']}]
  - job_name: dead
    static_configs: [{targets: ['127.0.0.1:$DEAD_PORT']}]
  - job_name: notfound
    static_configs: [{targets: ['127.0.0.1:$NOTFOUND_PORT']}]
  # VictoriaMetrics spreads a job's first scrapes over its interval: with 1h, these stay unscraped.
  - job_name: slow
    scrape_interval: 1h
    static_configs: [{targets: ['127.0.0.1:2', '127.0.0.1:3']}]
  - job_name: relabelled
    static_configs: [{targets: ['127.0.0.1:5', '127.0.0.1:6']}]
    relabel_configs:
      - source_labels: [__address__]
        regex: '.*:6'
        action: drop
YML
}
scrape_config $VM_PORT >"$work/vm.yml"
scrape_config $AGENT_PORT >"$work/agent.yml"
scrape_config $AGENT_DROP_PORT >"$work/agent-drop.yml"

# TZ pinned: VictoriaMetrics writes lastScrape in the process's local zone (time.Unix(...).Format).
TZ=UTC "$VM" -httpListenAddr=127.0.0.1:$VM_PORT -storageDataPath="$work/vm-data" \
  -promscrape.config="$work/vm.yml" >"$work/vm.log" 2>&1 & pids+=($!)
TZ=UTC "$VMAGENT" -httpListenAddr=127.0.0.1:$AGENT_PORT -remoteWrite.url=http://127.0.0.1:$VM_PORT/api/v1/write \
  -remoteWrite.tmpDataPath="$work/agent-q" -promscrape.config="$work/agent.yml" >"$work/agent.log" 2>&1 & pids+=($!)
# The same vmagent, in a zone east of UTC and with -promscrape.dropOriginalLabels (no dropped targets kept).
TZ=Europe/Berlin "$VMAGENT" -httpListenAddr=127.0.0.1:$AGENT_DROP_PORT -promscrape.dropOriginalLabels \
  -remoteWrite.url=http://127.0.0.1:$VM_PORT/api/v1/write -remoteWrite.tmpDataPath="$work/agent-drop-q" \
  -promscrape.config="$work/agent-drop.yml" >"$work/agent-drop.log" 2>&1 & pids+=($!)

for port in $VM_PORT $AGENT_PORT $AGENT_DROP_PORT $NOTFOUND_PORT; do
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done

get() { # file name (no extension), URL
  curl -sS -D "$work/head" -o "$work/body" "$2"
  # Keep the status line and headers; replace what differs on every run.
  sed -E -e 's/\r$//' -e 's/^(Date): .*/\1: (captured)/' -e 's/^(X-Server-Hostname): .*/\1: (hostname)/' \
    -e '/^$/d' "$work/head" >"$out/$1.head"
  local ext=txt
  grep -qi '^content-type: application/json' "$work/head" && ext=json
  mv "$work/body" "$out/$1.$ext"
}

capture() { # suffix
  get "vm-targets-$1" "http://127.0.0.1:$VM_PORT/api/v1/targets"
  get "vmagent-targets-$1" "http://127.0.0.1:$AGENT_PORT/api/v1/targets"
  get "vmagent-droporiginallabels-berlin-targets-$1" "http://127.0.0.1:$AGENT_DROP_PORT/api/v1/targets"
  get "vm-tsdb-$1" "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb"
}

sleep 3 # the jobs with 1s interval have been scraped a few times; the slow ones not yet
capture t0
sleep 7
capture t1
# Once is enough for these: parameters, buildinfo and the refusals.
get vm-tsdb-topN-3 "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb?topN=3"
get vm-tsdb-limit-3 "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb?limit=3"
get vm-tsdb-topN-3-limit-2 "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb?topN=3&limit=2"
get vm-tsdb-topN-2000 "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb?topN=2000"
get vm-tsdb-topN-bad "http://127.0.0.1:$VM_PORT/api/v1/status/tsdb?topN=ten"
get vm-buildinfo "http://127.0.0.1:$VM_PORT/api/v1/status/buildinfo"
get vmagent-tsdb "http://127.0.0.1:$AGENT_PORT/api/v1/status/tsdb"
get vmagent-buildinfo "http://127.0.0.1:$AGENT_PORT/api/v1/status/buildinfo"
get vm-alertmanager-status "http://127.0.0.1:$VM_PORT/api/v2/status"
get vm-targets-state-active "http://127.0.0.1:$VM_PORT/api/v1/targets?state=active"
echo "$version" >"$out/VERSION"

# For comparison, Debian's Prometheus: the buildinfo and headers the flavour detection tells apart.
PROM=${PROMETHEUS_BIN:-prometheus}
prom_version=$("$PROM" --version 2>&1 | sed -nE 's/^prometheus, version ([0-9]+\.[0-9]+).*/\1/p')
printf 'global: {scrape_interval: 1h}\n' >"$work/prom.yml"
"$PROM" --config.file="$work/prom.yml" --storage.tsdb.path="$work/prom-data" \
  --web.listen-address=127.0.0.1:18490 >"$work/prom.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:18490/-/ready && break; sleep 0.1; done
out="$root/test/fixtures/backends/prometheus-$prom_version"
mkdir -p "$out"
get buildinfo http://127.0.0.1:18490/api/v1/status/buildinfo
echo "capture-backend-fixtures: wrote $out" >&2
