-- Sessions get a public id (shown and revoked on the account page instead of the secret), their
-- last use and the client that used them; Web Push subscriptions belong to a session.
ALTER TABLE sessions ADD COLUMN public_id TEXT;
ALTER TABLE sessions ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN address TEXT NOT NULL DEFAULT '';
UPDATE sessions SET public_id = lower(hex(randomblob(9))), last_used = created;
CREATE UNIQUE INDEX sessions_public_id ON sessions(public_id);

-- Ending a session (logout, sign out, password change) ends its push subscriptions too.
CREATE TABLE push_subscriptions (
  endpoint TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  session_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX push_subscriptions_user ON push_subscriptions(user_id);
CREATE INDEX push_subscriptions_session ON push_subscriptions(session_hash);

-- Per-user choices the server acts on while no browser is open.
CREATE TABLE push_prefs (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  auto_away INTEGER NOT NULL DEFAULT 0
) STRICT;
