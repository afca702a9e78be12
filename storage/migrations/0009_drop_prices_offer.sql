-- prices_offer (offer_id, valid_from) from 0001 duplicates what two other
-- indexes serve: every query reads an offer's closed intervals through
-- prices_offer_to (offer_id, valid_to) and its current one through
-- prices_current / prices_current_cover (intervals never overlap, so the
-- order by end is the order by start, and the interval in force at a moment
-- is the first one ending after it, or the current one). Dropping it saves
-- about a tenth of a year's database.
DROP INDEX IF EXISTS prices_offer;
