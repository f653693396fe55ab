-- The rest of a line's source (`user@host`) as the server showed it: IRC clients' history gives
-- each line from `nick!user@host` as it came live. NULL for older rows and lines without one.
ALTER TABLE messages ADD COLUMN sender_host text;
