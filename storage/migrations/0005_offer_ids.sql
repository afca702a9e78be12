-- The cloud's own identifiers of each offer (AWS product SKU and rate code,
-- Azure skuId, meterId and productId) and the region's display name, so
-- that exports can be joined with the clouds' bills. Empty where the API
-- has no such field; not part of the offer's identity.
ALTER TABLE offers ADD COLUMN sku_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN sku_price_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN product_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN region_name TEXT NOT NULL DEFAULT '';

-- Offers stored before this migration have no ids, and AWS skips a region
-- whose price file version is unchanged, so its ids would stay empty until
-- AWS publishes a new file. Forgetting the remembered price-file versions
-- makes the next AWS run read each region's price and savings-plan files
-- once (the remembered GPU hardware and the spot feed's validators stay).
DELETE FROM source_versions WHERE provider = 'aws' AND (key LIKE 'ec2/%' OR key LIKE 'savingsplan/%');
