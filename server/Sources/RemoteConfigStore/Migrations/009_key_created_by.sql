-- Which key created each key (NULL: the bootstrap admin token, or a key made before this was recorded), so
-- that a key its author mints after opening a change request cannot approve that request. Never edit once
-- landed.

ALTER TABLE api_keys ADD COLUMN created_by text REFERENCES api_keys (key_id);
