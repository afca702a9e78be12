-- pricewatch on PostgreSQL: a role with the least privileges it needs.
--
-- Run once as a superuser (or the database's owner with CREATEROLE):
--   psql -v ON_ERROR_STOP=1 -v password="'...'" -d pricewatch -f contrib/postgres/role.sql
-- Every replica then connects as pricewatch, with
--   database.url_file: database-url
-- holding postgres://pricewatch:<password>@db.example.internal:5432/pricewatch?sslmode=verify-full
-- (docs/operations.md "Replicas and failover").
--
-- What the role needs, and nothing more:
--   * to log in, to this database only;
--   * to own one schema: the migrations create and alter its tables, and the
--     leader election creates leader_heartbeat in it;
--   * advisory locks (every role may take them);
--   * to end its own sessions: a follower taking over from a leader cut off
--     by the network terminates that leader's sessions with
--     pg_terminate_backend, which PostgreSQL allows on sessions of the same
--     role without pg_signal_backend or superuser.
-- It is not a superuser, cannot create databases or roles, cannot
-- replicate, does not bypass row security and cannot create objects in the
-- public schema.

-- The login role. CONNECTION LIMIT: each replica holds at most 12 pool
-- connections and 1 for the election; two replicas and a few CLI commands
-- stay well below 40.
CREATE ROLE pricewatch LOGIN PASSWORD :password
  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  CONNECTION LIMIT 40;

-- Only this database, and nobody else by default.
REVOKE ALL ON DATABASE pricewatch FROM PUBLIC;
GRANT CONNECT ON DATABASE pricewatch TO pricewatch;

-- Nothing in public (PostgreSQL 15 already revokes CREATE there; older
-- versions do not).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- The one schema pricewatch writes, owned by its role, and found first.
CREATE SCHEMA pricewatch AUTHORIZATION pricewatch;
ALTER ROLE pricewatch IN DATABASE pricewatch SET search_path = pricewatch;

-- Reading the history from outside pricewatch (a BI tool, an analyst):
-- a group role with SELECT only, also on the tables future migrations add.
CREATE ROLE pricewatch_reader NOLOGIN;
GRANT CONNECT ON DATABASE pricewatch TO pricewatch_reader;
GRANT USAGE ON SCHEMA pricewatch TO pricewatch_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE pricewatch IN SCHEMA pricewatch GRANT SELECT ON TABLES TO pricewatch_reader;
-- e.g.: CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE pricewatch_reader;
