-- Store sync waits for the App Store to offer a new version everywhere: a listing is published only once its
-- currentVersionReleaseDate is release_delay_seconds old; until then the link shows the version it holds back
-- and when the wait ends. Never edit once landed.

ALTER TABLE store_links
    ADD COLUMN release_delay_seconds integer NOT NULL DEFAULT 86400
        CHECK (release_delay_seconds BETWEEN 0 AND 2592000),
    ADD COLUMN pending_store_version text,
    ADD COLUMN pending_until         timestamptz;
