-- Promotions: a version, change request or draft made by promoting another project's published version records
-- which one, so the next promotion between the same two projects finds its base (the source version promoted
-- last) and tells a change of the source from a hotfix of the target. Never edit once landed.
ALTER TABLE template_versions
    ADD COLUMN promoted_from_project text,
    ADD COLUMN promoted_from_version bigint;
ALTER TABLE change_requests
    ADD COLUMN promoted_from_project text,
    ADD COLUMN promoted_from_version bigint;
ALTER TABLE drafts
    ADD COLUMN promoted_from_project text,
    ADD COLUMN promoted_from_version bigint;

-- "Which source version did `from` last promote into this project?" stays an index scan.
CREATE INDEX template_versions_promoted ON template_versions (project_id, promoted_from_project, version_number DESC)
    WHERE promoted_from_project IS NOT NULL;
