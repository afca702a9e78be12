-- Flat cost as history grows.
--
-- An unchanged price no longer rewrites its row every run: what a run saw is
-- recorded once per scope it covered (scope_seen), and a current price's or
-- availability's last_seen is the newest of its stored last_seen and the
-- newest complete run whose scope covers it. The stored last_seen is exact
-- for closed intervals (written when they close) and a lower bound while
-- current, so existing rows need no conversion.
CREATE TABLE scope_seen (
    provider   TEXT    NOT NULL,
    subject    TEXT    NOT NULL CHECK (subject IN ('prices', 'availability')),
    -- a region code, or '*' for every region
    region     TEXT    NOT NULL,
    -- one price type, or '' for every price type (always '' for availability)
    price_type TEXT    NOT NULL,
    run_id     INTEGER NOT NULL,
    seen_at    TEXT    NOT NULL,
    PRIMARY KEY (provider, subject, region, price_type)
) WITHOUT ROWID;

-- Window reads ("in force at some time since T") take the current rows
-- through prices_current_cover and the closed ones through this range, per
-- offer, instead of every interval ever stored.
CREATE INDEX prices_offer_to ON prices (offer_id, valid_to) WHERE valid_to IS NOT NULL;
-- Every current price in a few contiguous pages: a run compares its
-- snapshot with these, and compare/savings/recommend read them, without
-- visiting rows spread over a year of history. valid_to (always NULL here)
-- is in it so that SQLite needs no table row at all; queries name it with
-- INDEXED BY, since the planner otherwise prefers the unique prices_current.
CREATE INDEX prices_current_cover ON prices (offer_id, currency, hourly, upfront, effective_hourly, valid_from, last_seen, valid_to) WHERE valid_to IS NULL;
CREATE INDEX availability_until ON availability (until) WHERE until IS NOT NULL;
