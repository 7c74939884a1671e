-- Environments: a project may name the environment it is (free text for the console), the project its published
-- versions are promoted into (no cycles: the store checks it under a lock of its own), and the parameters that
-- belong to each environment and never travel with a promotion. Never edit once landed.
ALTER TABLE projects
    ADD COLUMN environment_name text,
    ADD COLUMN promotes_to      text REFERENCES projects (project_id),
    ADD COLUMN local_parameters text[] NOT NULL DEFAULT '{}',
    ADD CONSTRAINT projects_promotes_elsewhere CHECK (promotes_to IS NULL OR promotes_to <> project_id);
