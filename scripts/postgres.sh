#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for Pulumi's postgres:// state backend (tests, the tenants
# example, the benchmark).
#
#   scripts/postgres.sh start [DIR]   installs PostgreSQL from Debian's packages if missing,
#                                     creates a cluster in DIR (default: a new temporary folder)
#                                     on a free loopback port, owned by an unprivileged user, and
#                                     prints its postgres:// URL on the last line of stdout
#   scripts/postgres.sh stop DIR      stops the cluster and removes DIR
#   scripts/postgres.sh restart DIR   restarts the server (same port and data): every connection drops
#   scripts/postgres.sh halt DIR      stops the server at once (pg_ctl -m immediate), keeping its data
#   scripts/postgres.sh resume DIR    starts a halted server again (same port and data)
#   scripts/postgres.sh sql DIR QUERY runs one query, unaligned output (tests)
#
# Progress and errors go to stderr. A failure says why (no root to install, no apt, ...).
set -euo pipefail
# As root it runs useradd and runuser, which live in sbin: a PATH made for a user (env -i, cron,
# a CI runner) may lack it.
PATH="$PATH:/usr/sbin:/sbin"
log() { printf '[postgres] %s\n' "$*" >&2; }
die() { printf '[postgres] error: %s\n' "$*" >&2; exit 1; }

PG_USER=pulumi-mgmt-pg

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 1
  fi
}

install_postgres() {
  command -v apt-get >/dev/null 2>&1 || die "PostgreSQL is not installed and there is no apt-get to install it (Debian's package: postgresql)"
  log "installing PostgreSQL from Debian's packages (apt-get install postgresql)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
    || die "PostgreSQL is not installed, and installing it needs root or password-less sudo (apt-get install postgresql)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2 \
    || die "apt-get install postgresql failed (see above)"
  # Debian's package starts a system-wide cluster; this script never uses it.
}

# Runs a command as the unprivileged cluster owner (initdb and postgres refuse to run as root).
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})'
}

start() {
  local dir=${1:-}
  bin=$(pg_bin || true)
  [ -n "$bin" ] || { install_postgres; bin=$(pg_bin || true); }
  [ -n "$bin" ] || die "PostgreSQL was installed but no initdb was found under /usr/lib/postgresql"
  if [ "$(id -u)" = 0 ] && ! id "$PG_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_USER" || die "could not create the unprivileged user $PG_USER"
  fi
  [ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/tmp}/pulumi-mgmt-pg.XXXXXX")
  mkdir -p "$dir"
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown "$PG_USER" "$dir"
    as_owner test -w "$dir" || die "$dir is not reachable by the unprivileged user $PG_USER (a parent folder is private): use a folder directly under ${TMPDIR:-/tmp}"
  fi
  local port
  port=$(free_port)
  log "creating a cluster in $dir ($("$bin/postgres" --version)) on 127.0.0.1:$port"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1 \
    || die "initdb failed: $(tail -n 5 "$dir/initdb.log")"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2 \
    || die "the server did not start: $(tail -n 5 "$dir/server.log")"
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres pulumi || die "createdb failed"
  local url="postgres://postgres@127.0.0.1:$port/pulumi?sslmode=disable"
  echo "$url" > "$dir/url"
  log "ready: $url (stop with: scripts/postgres.sh stop $dir)"
  echo "$url"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: scripts/postgres.sh stop DIR"
  [ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
  bin=$(pg_bin || true)
  if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || log "pg_ctl stop failed; removing the folder anyway"
  fi
  rm -rf "$dir"
  log "stopped and removed $dir"
}

restart() {
  local dir=${1:-}
  [ -n "$dir" ] && [ -f "$dir/data/postmaster.pid" ] || die "usage: scripts/postgres.sh restart DIR (a running cluster)"
  bin=$(pg_bin) || die "PostgreSQL is not installed"
  # The server keeps its options (port, socket folder, settings) in postmaster.opts.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >&2 \
    || die "the server did not restart: $(tail -n 5 "$dir/server.log")"
}

halt() {
  local dir=${1:-}
  [ -n "$dir" ] && [ -f "$dir/data/postmaster.pid" ] || die "usage: scripts/postgres.sh halt DIR (a running cluster)"
  bin=$(pg_bin) || die "PostgreSQL is not installed"
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || die "pg_ctl stop failed"
}

resume() {
  local dir=${1:-}
  [ -n "$dir" ] && [ -f "$dir/data/postmaster.opts" ] && [ ! -f "$dir/data/postmaster.pid" ] || die "usage: scripts/postgres.sh resume DIR (a halted cluster)"
  bin=$(pg_bin) || die "PostgreSQL is not installed"
  # postmaster.opts holds the command line it last ran with (port, socket folder, settings).
  local opts
  opts=$(sed -e 's/^[^ ]* //' -e 's/"//g' -e 's/-D [^ ]*//' "$dir/data/postmaster.opts")
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" start >&2 \
    || die "the server did not start: $(tail -n 5 "$dir/server.log")"
}

sql() {
  local dir=${1:-} query=${2:-}
  [ -n "$dir" ] && [ -n "$query" ] || die "usage: scripts/postgres.sh sql DIR QUERY"
  bin=$(pg_bin) || die "PostgreSQL is not installed"
  "$bin/psql" "$(cat "$dir/url")" -tA -c "$query"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  restart) restart "${2:-}" ;;
  halt) halt "${2:-}" ;;
  resume) resume "${2:-}" ;;
  sql) sql "${2:-}" "${3:-}" ;;
  *) die "usage: scripts/postgres.sh start [DIR] | stop DIR | restart DIR | halt DIR | resume DIR | sql DIR QUERY" ;;
esac
