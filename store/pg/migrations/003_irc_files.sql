-- Connections, conversations, notifications and files: the rest of the SQLite store's tables
-- (its migrations 002, 003, 004, 009) with the same columns.
ALTER TABLE connections
  ALTER COLUMN connection_id TYPE text COLLATE "C",
  ADD COLUMN name text NOT NULL DEFAULT '',
  ADD COLUMN url text NOT NULL DEFAULT '',
  ADD COLUMN on_connect_commands text NOT NULL DEFAULT '[]',
  ADD COLUMN wanted_state text NOT NULL DEFAULT 'connected'
    CHECK (wanted_state IN ('connected', 'disconnected')),
  ADD COLUMN nick text NOT NULL DEFAULT '',
  ADD COLUMN created bigint NOT NULL DEFAULT 0;
CREATE INDEX connections_wanted ON connections (id) WHERE wanted_state = 'connected';

ALTER TABLE conversations
  ALTER COLUMN conversation_id TYPE text COLLATE "C",
  ADD COLUMN name text NOT NULL DEFAULT '',
  ADD COLUMN topic text NOT NULL DEFAULT '',
  ADD COLUMN last_read bigint NOT NULL DEFAULT 0,
  ADD COLUMN joined boolean NOT NULL DEFAULT false,
  ADD COLUMN created bigint NOT NULL DEFAULT 0;

-- Highlighted messages newer than last_ts (µs) are unread notifications.
CREATE TABLE notification_reads (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  last_ts bigint NOT NULL
);
CREATE INDEX messages_highlight ON messages (user_id, ts) WHERE highlight;

-- Uploaded files. Their contents live here too (file_blobs), so that every node serves every
-- file and a database backup holds everything.
CREATE SEQUENCE file_blob_ids;
CREATE TABLE files (
  seq bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  file_id text NOT NULL,
  name text NOT NULL,
  size bigint NOT NULL,
  content_type text NOT NULL,
  write_only boolean NOT NULL DEFAULT false,
  saved bigint NOT NULL,
  blob bigint,
  UNIQUE (user_id, file_id)
);
CREATE INDEX files_user_seq ON files (user_id, seq);
CREATE INDEX files_file_id ON files (file_id);

-- A file's contents in chunks of at most 256 KiB, read one chunk at a time.
CREATE TABLE file_blobs (
  blob bigint NOT NULL,
  n integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (blob, n)
);
-- Blobs being written: one left behind by a node that died mid-upload is removed later.
CREATE TABLE file_uploads (
  blob bigint PRIMARY KEY,
  started bigint NOT NULL
);
