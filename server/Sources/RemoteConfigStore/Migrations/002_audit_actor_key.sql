-- Each event names the key that acted (`apiKeys/<id>`), beside its display name at the time: a display
-- name is free text that any admin may give a new key, the key id is what identifies the actor.
-- Events written before this migration have none.
ALTER TABLE audit_events ADD COLUMN actor_key text;
