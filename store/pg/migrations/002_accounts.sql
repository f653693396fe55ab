-- Accounts, sessions, server settings, connection profiles and push: the tables of the SQLite
-- store's migrations 001, 008, 011 with the same columns (so `parley store copy` maps them one to
-- one), flags as booleans, times as bigint (users.registered in µs, sessions in ms).
-- Text that is sorted is compared by code point ("C"), as SQLite does, whatever the database's
-- locale: listings page by these columns.
ALTER TABLE users
  ALTER COLUMN email TYPE text COLLATE "C",
  ADD COLUMN password_hash text NOT NULL DEFAULT '!',
  ADD COLUMN roles text NOT NULL DEFAULT '[]',
  ADD COLUMN highlight_keywords text NOT NULL DEFAULT '[]',
  ADD COLUMN registered bigint NOT NULL DEFAULT 0;

CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created bigint NOT NULL,
  expires bigint NOT NULL,
  public_id text NOT NULL UNIQUE,
  last_used bigint NOT NULL DEFAULT 0,
  user_agent text NOT NULL DEFAULT '',
  address text NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE connection_profiles (
  id text COLLATE "C" PRIMARY KEY,
  url text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  is_forced boolean NOT NULL DEFAULT false,
  max_bulk_message_size integer NOT NULL DEFAULT 3,
  max_message_length integer NOT NULL DEFAULT 512,
  service_accounts text NOT NULL DEFAULT '[]',
  webirc_password text NOT NULL DEFAULT '',
  skip_queue boolean NOT NULL DEFAULT false
);

CREATE TABLE push_subscriptions (
  endpoint text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_hash text NOT NULL REFERENCES sessions (id_hash) ON DELETE CASCADE,
  p256dh text NOT NULL,
  auth text NOT NULL,
  created bigint NOT NULL
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);
CREATE INDEX push_subscriptions_session ON push_subscriptions (session_hash);

CREATE TABLE push_prefs (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  auto_away boolean NOT NULL DEFAULT false
);
