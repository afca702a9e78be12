-- The cloud's own identifiers of each offer (AWS product SKU and rate code,
-- Azure skuId, meterId and productId) and the region's display name, so
-- that exports can be joined with the clouds' bills. Empty where the API
-- has no such field; not part of the offer's identity.
ALTER TABLE offers ADD COLUMN sku_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN sku_price_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN product_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN region_name TEXT NOT NULL DEFAULT '';
