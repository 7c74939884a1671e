-- Daily active instances per version that a team imported from elsewhere (App Store Connect, the Play Console):
-- plain counts, one per day, platform and version. For a day and platform that has any, they take the place of
-- what the server counted, in every read. Kept as long as counted days are (the insights retention).
-- Never edit once landed.
CREATE TABLE insight_versions_imported (
    project_id       text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    bucket           timestamptz NOT NULL,
    platform         text NOT NULL,
    version          text NOT NULL,
    active_instances bigint NOT NULL CHECK (active_instances >= 0),
    imported_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, platform, bucket, version)
);
CREATE INDEX insight_versions_imported_bucket ON insight_versions_imported (bucket);
