-- A message may carry one file (the weekly digest's chart, a PNG). It is
-- stored with the message, in the same row, so that a retry after a restart
-- uploads the very picture the message describes. NULL for every message
-- without a file, which is every alert.
ALTER TABLE outbox ADD COLUMN attachment BLOB;
