-- Where each server's flushes of a project stand, so that a flush written again adds nothing: a write that missed
-- its deadline is sent again by its server, and PostgreSQL may have finished the first one anyway. A server numbers
-- its writes and sends a project's next one only once the one before is written or given up, so one row per
-- server and project says what is already in. Rows of servers that stopped writing go after a day.
-- Never edit once landed.
CREATE TABLE insight_writes (
    writer_id     uuid NOT NULL,
    project_id    text NOT NULL REFERENCES projects (project_id) ON DELETE CASCADE,
    last_sequence bigint NOT NULL,
    written_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (writer_id, project_id)
);
CREATE INDEX insight_writes_written_at ON insight_writes (written_at);
