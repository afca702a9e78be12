-- Implausible prices held by the guard (package guard) instead of being
-- stored as current, and large price moves waiting for the next run to
-- confirm them before they alert.

-- How many offers of the run the guard held.
ALTER TABLE fetch_runs ADD COLUMN offers_held INTEGER NOT NULL DEFAULT 0;

-- One row per held price and streak: a price held again in the next
-- complete run of its provider extends the row (runs + 1, last_run_id);
-- held again after a gap, it starts a new row. accepted_at is set in the
-- run that accepted it after guard.accept_after_runs runs.
CREATE TABLE held_prices (
    id               INTEGER PRIMARY KEY,
    provider         TEXT    NOT NULL,
    region           TEXT    NOT NULL,
    zone             TEXT    NOT NULL,
    instance_type    TEXT    NOT NULL,
    price_type       TEXT    NOT NULL,
    term             TEXT    NOT NULL,
    payment          TEXT    NOT NULL,
    offering_class   TEXT    NOT NULL,
    os               TEXT    NOT NULL,
    gpu_model        TEXT    NOT NULL,
    gpu_count        REAL    NOT NULL,
    currency         TEXT    NOT NULL,
    hourly           TEXT    NOT NULL,
    upfront          TEXT    NOT NULL,
    effective_hourly TEXT    NOT NULL,
    stored_effective TEXT,
    reason           TEXT    NOT NULL,
    detail           TEXT    NOT NULL,
    first_seen       TEXT    NOT NULL,
    last_seen        TEXT    NOT NULL,
    first_run_id     INTEGER NOT NULL REFERENCES fetch_runs (id),
    last_run_id      INTEGER NOT NULL REFERENCES fetch_runs (id),
    runs             INTEGER NOT NULL,
    accepted_at      TEXT
);
CREATE INDEX held_prices_offer ON held_prices (provider, region, zone, instance_type, price_type, term, payment, offering_class, os, last_run_id);

-- A move of at least alerts.confirm_change_pct waits here for the next
-- complete run: the same price confirms it (and it alerts then), another
-- one replaces or reverts it. old_price is the price users were last told
-- about, new_price the price the move went to (effective hourly).
CREATE TABLE pending_moves (
    id             INTEGER PRIMARY KEY,
    provider       TEXT    NOT NULL,
    region         TEXT    NOT NULL,
    zone           TEXT    NOT NULL,
    instance_type  TEXT    NOT NULL,
    price_type     TEXT    NOT NULL,
    term           TEXT    NOT NULL,
    payment        TEXT    NOT NULL,
    offering_class TEXT    NOT NULL,
    os             TEXT    NOT NULL,
    currency       TEXT    NOT NULL,
    old_price      TEXT    NOT NULL,
    new_price      TEXT    NOT NULL,
    gpu_model      TEXT    NOT NULL,
    gpu_count      REAL    NOT NULL,
    run_id         INTEGER NOT NULL REFERENCES fetch_runs (id),
    at             TEXT    NOT NULL,
    UNIQUE (provider, region, zone, instance_type, price_type, term, payment, offering_class, os)
);
