-- A sender claims an outbox message (lease_until) before posting it, so the
-- daemon and a `pricewatch fetch` or `pricewatch alerts deliver` running at
-- the same time never post the same message twice. A lease left behind by a
-- process that died mid-post expires, and the message is tried again.
ALTER TABLE outbox ADD COLUMN lease_until TEXT;
