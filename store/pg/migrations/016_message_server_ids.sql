-- The IRC server's own msgid of a line (IRCv3 message-ids) and the server msgid it replies or
-- reacts to (`+draft/reply`): what every client of a channel names a message by. NULL when the
-- server gave none.
ALTER TABLE messages ADD COLUMN server_msgid text;
ALTER TABLE messages ADD COLUMN reply_to text;
