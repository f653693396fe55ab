-- Uploaded files: metadata here, contents under <PARLEY_HOME>/files/<uid>/<file_id>.
CREATE TABLE files (
  -- Insertion order: listings are newest first by seq, which never ties.
  seq INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The API's file id: 128 random bits, URL-safe base64 (files are readable without login).
  file_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  -- 1: stored for the owner's own use (a paste target), never served by getFile.
  write_only INTEGER NOT NULL DEFAULT 0,
  -- Microseconds.
  saved INTEGER NOT NULL
) STRICT;

CREATE INDEX files_user_seq ON files (user_id, seq);
