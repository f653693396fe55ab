-- Channel events (joins, parts, quits, kicks, nick changes, topics, modes: messages.type 4 and up,
-- see store/message_types.ts) are kept in history but never indexed for search, so deleting one
-- must not ask the contentless index to remove what it never held.
DROP TRIGGER messages_forget;
CREATE TRIGGER messages_forget AFTER DELETE ON messages WHEN old.type < 4 BEGIN
  INSERT INTO message_deletions (id, user_id, conversation, text)
  VALUES (old.id, old.user_id, old.conversation, old.text);
END;
