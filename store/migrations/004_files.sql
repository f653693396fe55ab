-- Files: uploaded files' metadata; the contents live under <PARLEY_HOME>/files/<uid>/<id>.
CREATE TABLE files (
  -- Insertion order: listings go newest first by seq, which never ties.
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  write_only INTEGER NOT NULL DEFAULT 0,
  saved INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX files_user_id ON files(user_id, id);
CREATE INDEX files_user_seq ON files(user_id, seq);
