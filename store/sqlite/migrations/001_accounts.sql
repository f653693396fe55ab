-- Accounts: users, their sessions, server settings and connection profiles.
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  roles TEXT NOT NULL DEFAULT '[]',
  highlight_keywords TEXT NOT NULL DEFAULT '[]',
  registered INTEGER NOT NULL
) STRICT;

-- Only a hash of the session id is kept, so a copy of the database opens no session.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created INTEGER NOT NULL,
  expires INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE connection_profiles (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  is_forced INTEGER NOT NULL DEFAULT 0,
  max_bulk_message_size INTEGER NOT NULL DEFAULT 3,
  max_message_length INTEGER NOT NULL DEFAULT 512,
  service_accounts TEXT NOT NULL DEFAULT '[]',
  webirc_password TEXT NOT NULL DEFAULT ''
) STRICT, WITHOUT ROWID;
