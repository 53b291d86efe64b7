#!/bin/sh
# Runs once, when the PostgreSQL volume is first initialised: the platform's database and the manager's
# user, which owns it and may create roles (each agent's engine gets one) but is not a superuser.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v password="$AGENTPLANE_DB_PASSWORD" <<'SQL'
CREATE ROLE agentplane LOGIN CREATEROLE PASSWORD :'password';
CREATE DATABASE agentplane OWNER agentplane;
SQL
