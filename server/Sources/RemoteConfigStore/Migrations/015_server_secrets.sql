-- Secrets at rest (docs/api.md, "Secrets at rest"): every secret the server must read back is sealed with
-- AES-256-GCM under the secrets key, which the database never holds. Webhook secrets keep their columns and hold
-- sealed values from now on (the first start with a key seals those kept in plain text before). Never edit once
-- landed.

-- The server's own secrets, sealed like every other: `key_check`, a known text sealed under the key, which tells a
-- server given another key to refuse to start; `impact_sample_key`, the key of the impact sample's hash, so that
-- nobody outside can choose which app instances are sampled.
CREATE TABLE server_secrets (
    name       text PRIMARY KEY,
    value      text NOT NULL CHECK (value LIKE 'rc-sealed-v1:%'),
    created_at timestamptz NOT NULL DEFAULT now()
);
