-- As SQLite's 0014_price_days.sql: the per-offer daily summary of prices,
-- filled from the intervals by the migration's backfill (pricedays.go).
CREATE TABLE price_days (
    offer_id BIGINT NOT NULL REFERENCES offers (id),
    day      TEXT COLLATE "C" NOT NULL,
    currency TEXT COLLATE "C" NOT NULL,
    open     TEXT COLLATE "C",
    low      TEXT COLLATE "C",
    close    TEXT COLLATE "C",
    changes  INTEGER NOT NULL,
    PRIMARY KEY (offer_id, day)
);
