-- New rollouts' ids are drawn at random, so that no one knows a rollout's condition name (rollout_<id>) before
-- the rollout exists: "newest first" is by creation time. Never edit once landed.

CREATE INDEX rollouts_by_project_created ON rollouts (project_id, created_at DESC, rollout_id DESC);
