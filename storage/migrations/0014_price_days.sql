-- A per-offer daily summary of prices (issue 30 item 3), kept at write time
-- in the run's transaction (save.go) and filled here from the intervals
-- (pricedays.go: the migration's backfill), so that a chart of a year reads
-- at most one row per offer and day however often a cloud is fetched.
--
-- A row exists only for a day on which one of the offer's intervals began
-- or ended (a day without a row has the previous row's close all day).
-- open is the effective hourly price in force at the day's start, low the
-- lowest in force during it, close the one in force at its end (each NULL
-- when none was), currency that of the newest interval begun by the day's
-- end, changes how many intervals began that day. Prices are the stored
-- decimal texts.
CREATE TABLE price_days (
    offer_id INTEGER NOT NULL REFERENCES offers (id),
    day      TEXT    NOT NULL,
    currency TEXT    NOT NULL,
    open     TEXT,
    low      TEXT,
    close    TEXT,
    changes  INTEGER NOT NULL,
    PRIMARY KEY (offer_id, day)
) WITHOUT ROWID;
