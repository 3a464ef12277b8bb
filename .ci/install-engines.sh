#!/usr/bin/env bash
# Installs the real engines the test suites start (ARCHITECTURE.md "Tests and CI"): Mosquitto,
# Chromium and CJK fonts (so that screenshots render Chinese) from Debian, Java and Maven if absent,
# and Apache Kafka's jars from Maven Central into tests/.engines/kafka/ (the cache
# tests/harness/kafka.ts reads). `npm test` runs it first. Idempotent, and quick when everything is
# there (no network then); prints nothing on success.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
fail() {
  echo "install-engines: $1 failed:" >&2
  cat "$log" >&2
  exit 1
}
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
packages=()
installed mosquitto || packages+=(mosquitto)
installed chromium || packages+=(chromium)
installed fonts-noto-cjk || packages+=(fonts-noto-cjk)
command -v java >/dev/null 2>&1 || packages+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
if [ "${#packages[@]}" -gt 0 ]; then
  as_root apt-get -o DPkg::Lock::Timeout=600 update -qq >"$log" 2>&1 || fail "apt-get update"
  # No init system here: keep Debian's mosquitto service from starting and taking port 1883.
  policy=/usr/sbin/policy-rc.d
  created_policy=false
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod +x "$policy" && created_policy=true
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${packages[@]}" >"$log" 2>&1 || {
    [ "$created_policy" = true ] && as_root rm -f "$policy"
    fail "apt-get install ${packages[*]}"
  }
  [ "$created_policy" = true ] && as_root rm -f "$policy"
fi

# Same layout as tests/harness/kafka.ts: tests/.engines/kafka/<version>/libs, complete once .complete exists.
pom="$root/tests/harness/kafka-pom.xml"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")"
libs="$root/tests/.engines/kafka/$version/libs"
if [ ! -f "$libs/.complete" ]; then
  staging="$libs.$$.tmp"
  rm -rf "$staging"
  mkdir -p "$(dirname "$libs")"
  mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime "-DoutputDirectory=$staging" >"$log" 2>&1 ||
    fail "fetching Kafka $version jars with mvn"
  echo "$version" >"$staging/.complete"
  rm -rf "$libs"
  mv "$staging" "$libs"
fi

# ThingsBoard's Python SDK and what its gateway RPC example imports (psutil), in a venv under tests/.engines/
# (tests/telemetry/thingsboard-sdk.int.test.ts runs the SDK's own examples against the platform).
tb_sdk="tb-mqtt-client==1.13.14 psutil==7.2.2"
tb_venv="$root/tests/.engines/tb-mqtt-client"
if [ "$(cat "$tb_venv/.complete" 2>/dev/null)" != "$tb_sdk" ]; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    as_root apt-get -o DPkg::Lock::Timeout=600 update -qq >"$log" 2>&1 || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3 python3-venv >"$log" 2>&1 ||
      fail "apt-get install python3 python3-venv"
  fi
  rm -rf "$tb_venv"
  python3 -m venv "$tb_venv" >"$log" 2>&1 || fail "python3 -m venv"
  # shellcheck disable=SC2086
  "$tb_venv/bin/pip" install -q --disable-pip-version-check $tb_sdk >"$log" 2>&1 || fail "pip install $tb_sdk"
  echo "$tb_sdk" >"$tb_venv/.complete"
fi

# moto in server mode, a real S3-compatible server for the FileStore contract suite and the S3 upload test
# (tests/harness/moto.ts starts tests/.engines/moto/bin/moto_server), in a venv of its own under tests/.engines/.
moto_pkg="moto[server]==5.2.5"
moto_venv="$root/tests/.engines/moto"
if [ "$(cat "$moto_venv/.complete" 2>/dev/null)" != "$moto_pkg" ]; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    as_root apt-get -o DPkg::Lock::Timeout=600 update -qq >"$log" 2>&1 || fail "apt-get update"
    DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3 python3-venv >"$log" 2>&1 ||
      fail "apt-get install python3 python3-venv"
  fi
  rm -rf "$moto_venv"
  python3 -m venv "$moto_venv" >"$log" 2>&1 || fail "python3 -m venv"
  "$moto_venv/bin/pip" install -q --disable-pip-version-check "$moto_pkg" >"$log" 2>&1 || fail "pip install $moto_pkg"
  echo "$moto_pkg" >"$moto_venv/.complete"
fi
