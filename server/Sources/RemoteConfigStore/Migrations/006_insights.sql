-- Fleet insights: what clients were answered, per project and UTC hour. Every server adds its counts at each
-- flush (answers add up; sketches, HyperLogLog in the form of HyperLogLog.serialized(), merge by register-wise
-- maximum under the project's advisory lock). Hourly rows older than 14 days are rolled up into the daily tables;
-- rows older than the retention are deleted. Never edit once landed.

-- Answers and distinct instances by platform and version. `bucket` is the start of the hour (or day).
CREATE TABLE insight_versions_hourly (
    project_id text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    bucket     timestamptz NOT NULL,
    platform   text NOT NULL CHECK (length(platform) <= 16),
    version    text NOT NULL CHECK (length(version) <= 64),
    answers    bigint NOT NULL CHECK (answers >= 0),
    sketch     bytea NOT NULL CHECK (length(sketch) <= 3073),
    PRIMARY KEY (project_id, bucket, platform, version)
);

CREATE TABLE insight_versions_daily (LIKE insight_versions_hourly INCLUDING ALL);
ALTER TABLE insight_versions_daily
    ADD FOREIGN KEY (project_id) REFERENCES projects (project_id) ON DELETE CASCADE;

-- Answers by parameter and what decided its value: CONDITION (with `condition`), DEFAULT, IN_APP_DEFAULT.
CREATE TABLE insight_parameters_hourly (
    project_id text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    bucket     timestamptz NOT NULL,
    parameter  text NOT NULL,
    source     text NOT NULL CHECK (source IN ('CONDITION', 'DEFAULT', 'IN_APP_DEFAULT')),
    condition  text NOT NULL DEFAULT '',
    answers    bigint NOT NULL CHECK (answers >= 0),
    PRIMARY KEY (project_id, bucket, parameter, source, condition)
);

CREATE TABLE insight_parameters_daily (LIKE insight_parameters_hourly INCLUDING ALL);
ALTER TABLE insight_parameters_daily
    ADD FOREIGN KEY (project_id) REFERENCES projects (project_id) ON DELETE CASCADE;

-- Answers each condition was true for.
CREATE TABLE insight_conditions_hourly (
    project_id text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    bucket     timestamptz NOT NULL,
    condition  text NOT NULL,
    matched    bigint NOT NULL CHECK (matched >= 0),
    PRIMARY KEY (project_id, bucket, condition)
);

CREATE TABLE insight_conditions_daily (LIKE insight_conditions_hourly INCLUDING ALL);
ALTER TABLE insight_conditions_daily
    ADD FOREIGN KEY (project_id) REFERENCES projects (project_id) ON DELETE CASCADE;

-- Retention and roll-up scan by time across projects.
CREATE INDEX insight_versions_hourly_bucket ON insight_versions_hourly (bucket);
CREATE INDEX insight_versions_daily_bucket ON insight_versions_daily (bucket);
CREATE INDEX insight_parameters_hourly_bucket ON insight_parameters_hourly (bucket);
CREATE INDEX insight_parameters_daily_bucket ON insight_parameters_daily (bucket);
CREATE INDEX insight_conditions_hourly_bucket ON insight_conditions_hourly (bucket);
CREATE INDEX insight_conditions_daily_bucket ON insight_conditions_daily (bucket);
