-- A rollout's completion needs approval where its plan did: while the project requires approval, `:complete`
-- opens a change request that carries the completion, and publishing it completes the rollout. Never edit once
-- landed.

ALTER TABLE rollouts
    ADD COLUMN completion_request bigint REFERENCES change_requests (request_id);

CREATE UNIQUE INDEX rollouts_by_completion_request ON rollouts (completion_request)
    WHERE completion_request IS NOT NULL;
