-- The search index stopped keeping per-row sizes (columnsize=0, faster indexing), so removing a
-- row from it means naming the row's tokens again: the deletion log now keeps the text and the
-- conversation. The index itself is rebuilt (search.db version 2), so the old log is not needed.
DROP TRIGGER messages_forget;
DROP TABLE message_deletions;

CREATE TABLE message_deletions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  conversation INTEGER NOT NULL,
  text TEXT NOT NULL
) STRICT;
CREATE TRIGGER messages_forget AFTER DELETE ON messages BEGIN
  INSERT INTO message_deletions (id, user_id, conversation, text)
  VALUES (old.id, old.user_id, old.conversation, old.text);
END;
