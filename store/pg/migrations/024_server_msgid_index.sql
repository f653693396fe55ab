-- The line a reply or reaction names by the IRC server's msgid: IRC clients on the listener know
-- lines by Parley's own msgids, so a reply's server msgid is turned into the line's own (in
-- history, and live for lines stored before the client attached). Only rows the server gave an id.
CREATE INDEX messages_server_msgid ON messages (conversation, server_msgid)
  WHERE server_msgid IS NOT NULL;
