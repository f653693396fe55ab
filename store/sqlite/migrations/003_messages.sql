-- History: every message, its full-text index, and each user's notification read marker.
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  conversation INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  -- Owner, denormalised so that search and notifications need no join to find a user's rows.
  user_id INTEGER NOT NULL,
  -- Microseconds since the epoch; unique within a conversation (the writer nudges collisions).
  ts INTEGER NOT NULL,
  -- 0 privmsg, 1 notice, 2 action.
  type INTEGER NOT NULL,
  highlight INTEGER NOT NULL DEFAULT 0,
  sender TEXT NOT NULL,
  text TEXT NOT NULL
) STRICT;

-- History pages walk this index in either direction; it also enforces unique timestamps.
CREATE UNIQUE INDEX messages_conversation_ts ON messages (conversation, ts);
-- Notifications are the highlighted messages: a small partial index, newest first.
CREATE INDEX messages_highlight ON messages (user_id, ts) WHERE highlight = 1;

-- Contentless FTS5 index: it stores the index only (the text stays in messages). The writer
-- inserts into it directly, in the same transaction as the message: an INSERT trigger would
-- halve the ingest rate. Deletes (cascades included) go through the trigger below.
-- `scope` holds two tokens, u<user id> and c<conversation row id>, so that restricting a search
-- to a user or a conversation is an index intersection rather than a filter over every match.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
  text,
  scope,
  content = '',
  contentless_delete = 1,
  prefix = '3',
  tokenize = 'unicode61 remove_diacritics 2'
);
-- Fewer, larger merges while ingesting; `PRAGMA optimize` at shutdown tidies up.
INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', 16);

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
END;

CREATE TABLE notification_reads (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  -- Highlighted messages newer than this (microseconds) are unread.
  last_ts INTEGER NOT NULL
) STRICT;
