-- App tokens: a password per IRC client, made and revoked on the account page; only a hash of the
-- token is kept (it is random and long, so SHA-256 is enough).
CREATE TABLE app_tokens (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL COLLATE "C",
  token_hash text NOT NULL,
  created bigint NOT NULL,
  last_used bigint NOT NULL DEFAULT 0
);
CREATE INDEX app_tokens_user ON app_tokens (user_id, token_hash);
