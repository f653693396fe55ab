-- IRC: each user's connections and the conversations (channels, private chats) on them.
CREATE TABLE connections (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The API's connection_id, e.g. irc-libera; unique per user.
  connection_id TEXT NOT NULL,
  name TEXT NOT NULL,
  -- The full URL, password included: never returned as is.
  url TEXT NOT NULL,
  on_connect_commands TEXT NOT NULL DEFAULT '[]',
  wanted_state TEXT NOT NULL DEFAULT 'connected' CHECK (wanted_state IN ('connected', 'disconnected')),
  -- The nick last used on this connection, so that a restart keeps it.
  nick TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  UNIQUE (user_id, connection_id)
) STRICT;

CREATE TABLE conversations (
  id INTEGER PRIMARY KEY,
  connection INTEGER NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  -- The API's conversation_id: the IRC-casefolded name; '' holds the server's own messages.
  conversation_id TEXT NOT NULL,
  -- The name as IRC spells it (#Parley).
  name TEXT NOT NULL,
  topic TEXT NOT NULL DEFAULT '',
  -- Messages from others since last_read (microseconds); kept as a counter so listing is cheap.
  unread INTEGER NOT NULL DEFAULT 0,
  last_read INTEGER NOT NULL DEFAULT 0,
  -- 1 while the user wants to be in this channel (rejoined after reconnects).
  joined INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  UNIQUE (connection, conversation_id)
) STRICT;
