-- Before server times were checked, an IRC server could store a message in year 3100 or 1000:
-- microseconds that JavaScript cannot count with, so every read of such a row failed (a 500 from
-- notifications and history). Each such row moves after its conversation's newest sane message,
-- in id order (the id keeps the new times unique), and read markers past the sane range come back
-- to the newest message they can mean. The bound is MAX_TS in store/timestamps.ts.
UPDATE messages SET ts = (
  SELECT coalesce(max(m.ts), 0) FROM messages m
  WHERE m.conversation = messages.conversation AND m.ts BETWEEN 0 AND 9006099743113215
) + id
WHERE ts < 0 OR ts > 9006099743113215;

UPDATE conversations SET last_read = (
  SELECT coalesce(max(m.ts), 0) FROM messages m WHERE m.conversation = conversations.id
)
WHERE last_read < 0 OR last_read > 9006099743113215;

UPDATE notification_reads SET last_ts = (
  SELECT coalesce(max(m.ts), 0) FROM messages m
  WHERE m.user_id = notification_reads.user_id AND m.highlight = 1
)
WHERE last_ts < 0 OR last_ts > 9006099743113215;
