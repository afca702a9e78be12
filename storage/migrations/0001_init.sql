-- Price history as validity intervals: a row per (offer, price) from
-- valid_from until valid_to (NULL while current). An unchanged price only
-- moves last_seen. Money is TEXT holding an exact decimal, never REAL.

CREATE TABLE fetch_runs (
    id               INTEGER PRIMARY KEY,
    provider         TEXT    NOT NULL,
    started_at       TEXT    NOT NULL,
    finished_at      TEXT,
    status           TEXT    NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'skipped', 'abandoned')),
    offers_seen      INTEGER NOT NULL DEFAULT 0,
    offers_new       INTEGER NOT NULL DEFAULT 0,
    offers_changed   INTEGER NOT NULL DEFAULT 0,
    offers_unchanged INTEGER NOT NULL DEFAULT 0,
    offers_closed    INTEGER NOT NULL DEFAULT 0,
    regions_skipped  INTEGER NOT NULL DEFAULT 0,
    changes          INTEGER NOT NULL DEFAULT 0,
    source_version   TEXT    NOT NULL DEFAULT '',
    error            TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX fetch_runs_provider ON fetch_runs (provider, id);

CREATE TABLE offers (
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
    gpu_model      TEXT    NOT NULL,
    gpu_count      REAL    NOT NULL,
    gpu_memory_gb  REAL    NOT NULL,
    vcpus          INTEGER NOT NULL,
    memory_gb      REAL    NOT NULL,
    UNIQUE (provider, region, zone, instance_type, price_type, term, payment, offering_class, os)
);
CREATE INDEX offers_instance_type ON offers (instance_type);
CREATE INDEX offers_gpu_model ON offers (gpu_model);

CREATE TABLE prices (
    id               INTEGER PRIMARY KEY,
    offer_id         INTEGER NOT NULL REFERENCES offers (id),
    currency         TEXT    NOT NULL,
    hourly           TEXT    NOT NULL,
    upfront          TEXT    NOT NULL,
    effective_hourly TEXT    NOT NULL,
    valid_from       TEXT    NOT NULL,
    valid_to         TEXT,
    last_seen        TEXT    NOT NULL,
    first_run_id     INTEGER NOT NULL REFERENCES fetch_runs (id),
    last_run_id      INTEGER NOT NULL REFERENCES fetch_runs (id)
);
CREATE INDEX prices_offer ON prices (offer_id, valid_from);
CREATE UNIQUE INDEX prices_current ON prices (offer_id) WHERE valid_to IS NULL;

-- Availability intervals: a type offered (or in stock / sold out) in a
-- region or zone from since until until (NULL while current).
CREATE TABLE availability (
    id            INTEGER PRIMARY KEY,
    provider      TEXT    NOT NULL,
    region        TEXT    NOT NULL,
    zone          TEXT    NOT NULL,
    instance_type TEXT    NOT NULL,
    gpu_model     TEXT    NOT NULL,
    gpu_count     REAL    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('offered', 'in_stock', 'sold_out')),
    stock_detail  TEXT    NOT NULL DEFAULT '',
    since         TEXT    NOT NULL,
    until         TEXT,
    last_seen     TEXT    NOT NULL,
    -- consecutive complete runs that did not list this pair; it is closed
    -- (withdrawn) once this reaches the configured threshold.
    missing_runs  INTEGER NOT NULL DEFAULT 0,
    missing_since TEXT
);
CREATE INDEX availability_place ON availability (provider, region, zone, instance_type, since);
CREATE UNIQUE INDEX availability_current ON availability (provider, region, zone, instance_type) WHERE until IS NULL;

-- Source versions remembered between runs (AWS price-file version per region, ETags).
CREATE TABLE source_versions (
    provider   TEXT NOT NULL,
    key        TEXT NOT NULL,
    version    TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (provider, key)
);

-- Facts found while storing a run, in the same transaction.
CREATE TABLE changes (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES fetch_runs (id),
    kind           TEXT    NOT NULL,
    at             TEXT    NOT NULL,
    provider       TEXT    NOT NULL,
    region         TEXT    NOT NULL,
    zone           TEXT    NOT NULL,
    instance_type  TEXT    NOT NULL,
    price_type     TEXT    NOT NULL DEFAULT '',
    term           TEXT    NOT NULL DEFAULT '',
    payment        TEXT    NOT NULL DEFAULT '',
    offering_class TEXT    NOT NULL DEFAULT '',
    os             TEXT    NOT NULL DEFAULT '',
    currency       TEXT    NOT NULL DEFAULT '',
    old_price      TEXT,
    new_price      TEXT,
    old_state      TEXT    NOT NULL DEFAULT '',
    new_state      TEXT    NOT NULL DEFAULT '',
    gpu_model      TEXT    NOT NULL DEFAULT '',
    gpu_count      REAL    NOT NULL DEFAULT 0
);
CREATE INDEX changes_at ON changes (at);

-- Exchange rates: units of currency per 1 EUR on a date, with their source.
CREATE TABLE fx_rates (
    date       TEXT NOT NULL,
    currency   TEXT NOT NULL,
    rate       TEXT NOT NULL,
    source     TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (date, currency)
);

-- Messages waiting for (or done with) delivery. Written in the same
-- transaction as the changes they report; delivery_key makes a resend after
-- a restart recognisable.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    delivery_key    TEXT    NOT NULL UNIQUE,
    channel         TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    payload         TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    next_attempt_at TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    last_error      TEXT    NOT NULL DEFAULT '',
    sent_at         TEXT
);
CREATE INDEX outbox_due ON outbox (status, channel, id);
