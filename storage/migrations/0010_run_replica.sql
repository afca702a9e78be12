-- The replica (ha.replica) that ran each run, for `pricewatch runs` when
-- several pricewatch processes share one PostgreSQL database; '' for a
-- single process, which is every SQLite run.
ALTER TABLE fetch_runs ADD COLUMN replica TEXT NOT NULL DEFAULT '';
