#!/usr/bin/env bash
# Provisions the real servers the test suite starts itself (`make test` runs this first):
#   redis-server  (Debian package redis-server)  rate-limit counts shared through Redis
#   postgres, initdb under /usr/lib/postgresql/<major>/bin  (Debian package postgresql)
#   chromium      (Debian package chromium)      browser tests through playwright-core
# Each one missing is installed from Debian's packages when running as root (one quiet
# `apt-get update` first, non-interactive installs). Otherwise the script stops at once, naming
# every package to install, before any test runs: a missing server is a setup fault, not a
# test failure.
#
# PostgreSQL refuses to run as root, so tests started as root run it as the `postgres` system
# user (created by the Debian package); the script makes sure that user exists.
#
# Settings (tests of this script use them; nobody else needs to):
#   ENSURE_TEST_SERVERS_UID   the user id to act as (default: the real one, $EUID)
#   POSTGRESQL_LIB_DIR        where Debian puts PostgreSQL (default /usr/lib/postgresql)
set -euo pipefail

uid="${ENSURE_TEST_SERVERS_UID:-$EUID}"
pg_lib="${POSTGRESQL_LIB_DIR:-/usr/lib/postgresql}"

has_redis() { command -v redis-server >/dev/null 2>&1; }
has_chromium() { command -v chromium >/dev/null 2>&1; }
has_postgresql() {
  local bin
  for bin in "$pg_lib"/*/bin; do
    [[ -x "$bin/initdb" && -x "$bin/postgres" ]] && return 0
  done
  return 1
}
has_postgres_user() { getent passwd postgres >/dev/null 2>&1; }

# Debian package → the check that says it is installed.
missing_packages() {
  has_redis || echo redis-server
  has_postgresql || echo postgresql
  has_chromium || echo chromium
}

mapfile -t missing < <(missing_packages)

if ((${#missing[@]} > 0)); then
  if [[ "$uid" != 0 ]]; then
    {
      echo "ensure-test-servers: the tests start real servers that are not installed: ${missing[*]}."
      echo "Install them from Debian's packages, then run make test again:"
      echo "  sudo apt-get install ${missing[*]}"
      echo "(or run make test as root: it installs them itself)"
    } >&2
    exit 1
  fi
  echo "ensure-test-servers: installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
  mapfile -t still < <(missing_packages)
  if ((${#still[@]} > 0)); then
    echo "ensure-test-servers: apt-get installed ${missing[*]}, but ${still[*]} is still not found" >&2
    exit 1
  fi
fi

# Root runs PostgreSQL as `postgres`: the package creates that user; a PostgreSQL that came from
# elsewhere may not have.
if [[ "$uid" == 0 ]] && ! has_postgres_user; then
  if command -v useradd >/dev/null 2>&1; then
    echo "ensure-test-servers: creating the postgres system user (PostgreSQL refuses to run as root)"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
  else
    echo "ensure-test-servers: no postgres user, and no useradd to create it (PostgreSQL refuses to run as root)" >&2
    exit 1
  fi
fi
