-- Hardware beside the price (issue 25): the interconnect (network or GPU
-- fabric) and local storage of an offer's type, as the cloud states them.
-- '' where the cloud does not say (shown as unknown); existing rows stay
-- unknown until their provider's next fetch refreshes the hardware.
ALTER TABLE offers ADD COLUMN interconnect TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN local_storage TEXT NOT NULL DEFAULT '';
