-- Capacity signals (issue 23): Spot Advisor interruption bands, EC2
-- Capacity Block offerings, placement scores, eviction bands. One row per
-- interval in which a signal kept one value, like prices: an observation
-- of the same value writes nothing; another value ends the row (until) and
-- starts the next. A signal missing from a complete answer ends its row
-- quietly (ended_missing = 1): that is never a transition.
CREATE TABLE signals (
    id            INTEGER PRIMARY KEY,
    provider      TEXT    NOT NULL,
    kind          TEXT    NOT NULL,
    region        TEXT    NOT NULL,
    zone          TEXT    NOT NULL,
    instance_type TEXT    NOT NULL,
    -- The request the signal answers ("instance_count=1,duration_hours=24",
    -- "os=linux"), canonical, and a capacity block's window ('' for none).
    shape         TEXT    NOT NULL,
    window_start  TEXT    NOT NULL,
    window_end    TEXT    NOT NULL,
    value         TEXT    NOT NULL,
    unit          TEXT    NOT NULL,
    detail        TEXT    NOT NULL,
    source        TEXT    NOT NULL,
    gpu_model     TEXT    NOT NULL,
    gpu_count     REAL    NOT NULL,
    since         TEXT    NOT NULL,
    until         TEXT,
    ended_missing INTEGER NOT NULL DEFAULT 0,
    run_id        INTEGER NOT NULL REFERENCES fetch_runs (id)
);
CREATE INDEX signals_current ON signals (provider, kind, until);
CREATE INDEX signals_type ON signals (instance_type, since);
CREATE INDEX signals_until ON signals (until);
