#!/usr/bin/env bash
# Makes sure the real upstreams the tests run are here: prometheus, promtool and the Alertmanager
# (Debian: prometheus-alertmanager), on PATH or named by PROMETHEUS_BIN, PROMTOOL_BIN, ALERTMANAGER_BIN,
# VictoriaMetrics single node and vmagent (Debian: victoria-metrics, named by VICTORIA_METRICS_BIN, VMAGENT_BIN),
# openssl for the TLS tests, Go with sprig for the Helm chart test, and chromium for the status page test.
# As root on Debian/Ubuntu it installs missing ones with apt-get; otherwise it stops with the command.
set -euo pipefail

find_bin() { # env-var name, candidate names...
  local var=$1; shift
  if [ -n "${!var:-}" ]; then [ -x "${!var}" ] && echo "${!var}"; return; fi
  for name in "$@"; do command -v "$name" 2>/dev/null && return; done
  return 0
}

missing() {
  [ -n "$(find_bin PROMETHEUS_BIN prometheus)" ] || echo prometheus
  [ -n "$(find_bin PROMTOOL_BIN promtool)" ] || echo promtool
  [ -n "$(find_bin ALERTMANAGER_BIN prometheus-alertmanager alertmanager)" ] || echo alertmanager
  # The other backends: Debian ships VictoriaMetrics and vmagent in one package (Thanos and Mimir: not packaged).
  [ -n "$(find_bin VICTORIA_METRICS_BIN victoria-metrics)" ] || echo victoria-metrics
  [ -n "$(find_bin VMAGENT_BIN vmagent)" ] || echo vmagent
  command -v openssl >/dev/null || echo openssl # the TLS tests make their certificates with it
  # The chart test renders the Helm templates with Go's text/template and sprig.
  command -v go >/dev/null || echo golang-go
  [ -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || echo golang-github-masterminds-sprig-dev
  [ -d /usr/share/gocode/src/gopkg.in/yaml.v3 ] || echo golang-gopkg-yaml.v3-dev
  # The status page is tested in a real headless browser.
  [ -n "$(find_bin CHROMIUM_BIN chromium)" ] || echo chromium
}

INSTALL="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus prometheus-alertmanager victoria-metrics openssl golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev chromium"

todo=$(missing)
if [ -z "$todo" ]; then exit 0; fi
echo "ensure-upstreams: missing: $(echo $todo)" >&2

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # The packages would start their own services on the default ports; forbid that during the install.
  guard=/usr/sbin/policy-rc.d
  own_guard=0
  if [ ! -e "$guard" ]; then
    printf '#!/bin/sh\n# installed by prometheus-status-exporter tests: do not start services\nexit 101\n' >"$guard"
    chmod +x "$guard"
    own_guard=1
  fi
  trap '[ "$own_guard" = 1 ] && rm -f "$guard"' EXIT
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends prometheus prometheus-alertmanager victoria-metrics openssl golang-go \
    golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev chromium >/dev/null
  # Should a service have started anyway (e.g. systemd in the container), stop it: the tests pick their own ports.
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    systemctl stop prometheus prometheus-alertmanager prometheus-node-exporter victoria-metrics 2>/dev/null || true
  fi
  todo=$(missing)
  if [ -n "$todo" ]; then echo "ensure-upstreams: still missing after apt-get: $(echo $todo)" >&2; exit 1; fi
  echo "ensure-upstreams: installed the real upstreams and test tools" >&2
  exit 0
fi

cat >&2 <<MSG
ensure-upstreams: the tests need the real Prometheus, Alertmanager and VictoriaMetrics and will not skip them.
Install them as root (Debian/Ubuntu):
  $INSTALL
or point PROMETHEUS_BIN, PROMTOOL_BIN, ALERTMANAGER_BIN, VICTORIA_METRICS_BIN and VMAGENT_BIN at the binaries.
MSG
exit 1
