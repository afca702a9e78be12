-- A window's closed intervals without the table (issue 26 item 4).
--
-- Trends read every closed interval of a 90-day window offer by offer
-- through prices_offer_to (offer_id, valid_to), then looked each row up in
-- the table for its currency, effective rate and start: on a year's history
-- (~220k rows in the window) those lookups, scattered over the table's
-- pages, were most of the read. With the three columns in the index the
-- read never visits the table. The index keeps its name and its leading
-- columns, so every query naming it (INDEXED BY) reads it as before; it
-- costs about 35 bytes a closed interval (~8 % of a year's file).
DROP INDEX prices_offer_to;
CREATE INDEX prices_offer_to ON prices (offer_id, valid_to, currency, effective_hourly, valid_from) WHERE valid_to IS NOT NULL;
