#!/usr/bin/env bash
# Installs (if needed) and starts the machine's PostgreSQL 15 with logical decoding, and creates
# the role and database the tests use (floe/floe). Idempotent; run as root.
set -euo pipefail

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql-15 >/dev/null
fi
if ! pg_lsclusters -h | grep -q '^15 *main'; then
  pg_createcluster 15 main >/dev/null
fi

conf=/etc/postgresql/15/main/postgresql.conf
if ! grep -q '^wal_level *= *logical' "$conf"; then
  cat >> "$conf" <<'CONF'
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
listen_addresses = '127.0.0.1'
CONF
fi
hba=/etc/postgresql/15/main/pg_hba.conf
if ! grep -q 'floe-test' "$hba"; then
  sed -i '1i host all floe 127.0.0.1/32 scram-sha-256 # floe-test\nhost replication floe 127.0.0.1/32 scram-sha-256 # floe-test' "$hba"
fi

pg_ctlcluster 15 main restart || pg_ctlcluster 15 main start
for _ in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && break
  sleep 1
done

su postgres -c "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname='floe'\"" | grep -q 1 \
  || su postgres -c "psql -qc \"CREATE ROLE floe LOGIN REPLICATION SUPERUSER PASSWORD 'floe'\""
su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='floe'\"" | grep -q 1 \
  || su postgres -c "psql -qc 'CREATE DATABASE floe OWNER floe'"
echo "postgresql 15 ready on 127.0.0.1:5432 (wal_level=$(su postgres -c "psql -qtAc 'SHOW wal_level'"))"
