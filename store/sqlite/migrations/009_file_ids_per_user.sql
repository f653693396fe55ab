-- A client may store a file under an id of its choosing (Convos's write_only keys, such as
-- `irc-localhost-key`), so ids are unique per user, not across the server. Random ids stay
-- 128-bit and so stay unique anyway. SQLite cannot drop a UNIQUE in place: the table is rebuilt.
CREATE TABLE files_new (
  seq INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  file_id TEXT NOT NULL,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  write_only INTEGER NOT NULL DEFAULT 0,
  saved INTEGER NOT NULL,
  UNIQUE (user_id, file_id)
) STRICT;
INSERT INTO files_new SELECT seq, user_id, file_id, name, size, content_type, write_only, saved
  FROM files;
DROP TABLE files;
ALTER TABLE files_new RENAME TO files;
CREATE INDEX files_user_seq ON files (user_id, seq);
CREATE INDEX files_file_id ON files (file_id);
