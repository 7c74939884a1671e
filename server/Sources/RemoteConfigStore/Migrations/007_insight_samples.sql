-- The impact sample: for each project, the app instances with the smallest hash of their id (a bottom-k sample
-- of distinct instances, uniform and mergeable across servers), each with the context it last sent, in the fetch
-- body's shape, keeping only what conditions read.
CREATE TABLE insight_samples (
    project_id    text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    -- The first 8 bytes of SHA-256(appInstanceId), as a signed bigint: the sample keeps the smallest.
    instance_hash bigint NOT NULL,
    context       jsonb NOT NULL,
    last_seen     timestamptz NOT NULL,
    PRIMARY KEY (project_id, instance_hash)
);

CREATE INDEX insight_samples_recent ON insight_samples (project_id, last_seen);
