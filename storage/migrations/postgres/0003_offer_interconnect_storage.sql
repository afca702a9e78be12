-- Hardware beside the price (issue 25), as SQLite's migration
-- 0012_offer_interconnect_storage.sql: the interconnect and local storage
-- of an offer's type as the cloud states them, '' where it does not say.
ALTER TABLE offers ADD COLUMN interconnect TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN local_storage TEXT COLLATE "C" NOT NULL DEFAULT '';
