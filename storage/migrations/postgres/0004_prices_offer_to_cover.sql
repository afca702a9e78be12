-- As SQLite's 0012_prices_offer_to_cover.sql: the closed intervals of a
-- window read offer by offer from the index alone (an index-only scan where
-- the visibility map allows), their currency, effective rate and start
-- carried in it, and the id the read selects.
DROP INDEX prices_offer_to;
CREATE INDEX prices_offer_to ON prices (offer_id, valid_to) INCLUDE (id, currency, effective_hourly, valid_from) WHERE valid_to IS NOT NULL;
