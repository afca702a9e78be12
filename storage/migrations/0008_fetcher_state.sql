-- What a fetcher keeps between runs beyond version tokens, one typed,
-- versioned JSON document per provider ({"version": N, "data": {...}}, the
-- shape owned by the provider's fetcher), written in the run's transaction.
-- source_versions keeps version tokens only.
CREATE TABLE fetcher_state (
    provider   TEXT PRIMARY KEY,
    state      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Move what earlier versions kept among the versions, in the shapes the
-- fetchers read now (version 1 of each).
-- AWS: the GPU facts of every type read so far.
INSERT INTO fetcher_state (provider, state, updated_at)
SELECT provider, json_object('version', 1, 'data', json_object('gpu_types', json(version))), updated_at
FROM source_versions WHERE provider = 'aws' AND key = 'gpu-types' AND json_valid(version);

-- Alibaba: the region the next run starts with.
INSERT INTO fetcher_state (provider, state, updated_at)
SELECT provider, json_object('version', 1, 'data', json_object('next_region', version)), updated_at
FROM source_versions WHERE provider = 'alibaba' AND key = 'next_region';

-- Lambda: the regions each type has had capacity in.
INSERT INTO fetcher_state (provider, state, updated_at)
SELECT provider, json_object('version', 1, 'data', json_object('capacity_regions', json(version))), updated_at
FROM source_versions WHERE provider = 'lambda' AND key = 'capacity_regions' AND json_valid(version);

-- Vast.ai: the stock seen per (country, type) and the rentable offers per
-- GPU model in the last run.
INSERT INTO fetcher_state (provider, state, updated_at)
SELECT 'vastai', json_object('version', 1, 'data', json_object(
        -- json() outside the subqueries: a subquery's value loses its JSON
        -- type and would be stored as a string.
        'stock_seen', json(COALESCE((SELECT version FROM source_versions
                                     WHERE provider = 'vastai' AND key = 'stock_seen' AND json_valid(version)), '{}')),
        'rentable', json((SELECT json_group_object(substr(key, 10), CAST(version AS INTEGER)) FROM source_versions
                          WHERE provider = 'vastai' AND key LIKE 'rentable/%')))),
       (SELECT MAX(updated_at) FROM source_versions
        WHERE provider = 'vastai' AND (key = 'stock_seen' OR key LIKE 'rentable/%'))
WHERE EXISTS (SELECT 1 FROM source_versions WHERE provider = 'vastai' AND (key = 'stock_seen' OR key LIKE 'rentable/%'));

DELETE FROM source_versions
WHERE (provider = 'aws' AND key = 'gpu-types')
   OR (provider = 'alibaba' AND key = 'next_region')
   OR (provider = 'lambda' AND key = 'capacity_regions')
   OR (provider = 'vastai' AND (key = 'stock_seen' OR key LIKE 'rentable/%'));
