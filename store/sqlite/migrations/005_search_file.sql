-- The search index moves to its own file (search.db), written by a worker thread so that
-- indexing runs on the second core beside the message writer; see store/search_index.ts.
-- The worker rebuilds it from `messages` on first start.
DROP TRIGGER messages_fts_delete;
DROP TABLE messages_fts;

-- Message ids are never reused, so the worker can index "everything after id N" and delete
-- by id without ever confusing an old message with a new one. The writer assigns ids itself
-- and keeps the next one here (one UPDATE per batch).
CREATE TABLE message_ids (
  next INTEGER NOT NULL
) STRICT;
INSERT INTO message_ids (next) SELECT coalesce(max(id), 0) + 1 FROM messages;

-- Deleted message ids (and their owner, whose index holds them), for the worker to remove from
-- the index. The worker records how far it got in search.db; the writer trims what it has done.
CREATE TABLE message_deletions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id INTEGER NOT NULL,
  user_id INTEGER NOT NULL
) STRICT;
CREATE TRIGGER messages_forget AFTER DELETE ON messages BEGIN
  INSERT INTO message_deletions (id, user_id) VALUES (old.id, old.user_id);
END;
