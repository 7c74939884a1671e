-- Which key created each key (NULL: the bootstrap admin token, or a key made before this was recorded), so
-- that a key its author mints after opening a change request cannot approve that request. No foreign key:
-- the acting key id comes from the audit actor, and a record of who acted must not stop the act. Never edit
-- once landed.

ALTER TABLE api_keys ADD COLUMN created_by text;
