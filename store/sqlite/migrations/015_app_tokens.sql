-- App tokens: a password per IRC client, made and revoked on the account page; only a hash of the
-- token is kept (it is random and long, so SHA-256 is enough).
CREATE TABLE app_tokens (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  created INTEGER NOT NULL,
  last_used INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX app_tokens_user ON app_tokens(user_id, token_hash);
