#!/usr/bin/env bash
# Captures the Alertmanager answers the replica-group unit tests compare, from Debian's real
# prometheus-alertmanager on 127.0.0.1: both nodes of a healthy two-node cluster, and both nodes of a
# "cluster" whose second node was pointed at a wrong peer (it never joins) and runs another config.
#   bash scripts/capture-group-fixtures.sh
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/upstream/groups"
mkdir -p "$out"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
AM=${ALERTMANAGER_BIN:-prometheus-alertmanager}

printf 'route: {receiver: default}\nreceivers: [{name: default}]\n' >"$work/am.yml"
printf 'route: {receiver: other}\nreceivers: [{name: other}]\n' >"$work/am-other.yml"

am() { # name web-port gossip-port config [peer]
  "$AM" --config.file="$work/$4" --storage.path="$work/$1" --web.listen-address=127.0.0.1:$2 \
    --cluster.listen-address=127.0.0.1:$3 --cluster.advertise-address=127.0.0.1:$3 \
    ${5:+--cluster.peer=127.0.0.1:$5} >"$work/$1.log" 2>&1 & pids+=($!)
}
am healthy-0 19293 19294 am.yml 19296
am healthy-1 19295 19296 am.yml 19294
am split-0 19297 19298 am.yml
am split-1 19299 19300 am-other.yml 19302 # nothing listens there

wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "timeout: $1" >&2; return 1; }
for p in 19293 19295 19297 19299; do wait_for "http://127.0.0.1:$p/-/ready"; done
sleep 5
j() { curl -fsS "http://127.0.0.1:$1/api/v2/status" | python3 -m json.tool --indent 1 >"$out/$2"; }
j 19293 alertmanager-healthy-0.json
j 19295 alertmanager-healthy-1.json
j 19297 alertmanager-split-0.json
j 19299 alertmanager-split-1.json
echo "captured into $out"
