-- One run per provider at a time, across processes (the daemon and CLI
-- fetches): a run holds its provider's lease while it fetches and stores.
-- The holder renews expires_at; a lease whose holder died (its pid gone on
-- this host, or not renewed in time elsewhere) or whose run is no longer
-- 'running' is free.
CREATE TABLE run_leases (
    provider    TEXT    PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES fetch_runs (id),
    owner       TEXT    NOT NULL,
    host        TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    acquired_at TEXT    NOT NULL,
    expires_at  TEXT    NOT NULL
);

-- Who runs a run, and until when it may: a run still 'running' past its
-- deadline is reported as failed (its process died without a trace), and a
-- run whose process is gone is closed as abandoned by the next one.
ALTER TABLE fetch_runs ADD COLUMN owner_host  TEXT    NOT NULL DEFAULT '';
ALTER TABLE fetch_runs ADD COLUMN owner_pid   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE fetch_runs ADD COLUMN deadline_at TEXT;
