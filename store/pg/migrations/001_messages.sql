-- The message store's tables. users, connections and conversations hold only the columns the
-- message store reads (owner, ids, unread count); the other stores add theirs later.
CREATE TABLE users (
  id bigserial PRIMARY KEY,
  email text NOT NULL UNIQUE
);

CREATE TABLE connections (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  connection_id text NOT NULL,
  UNIQUE (user_id, connection_id)
);

CREATE TABLE conversations (
  id bigserial PRIMARY KEY,
  connection bigint NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  conversation_id text NOT NULL,
  unread integer NOT NULL DEFAULT 0,
  UNIQUE (connection, conversation_id)
);

-- ts: microseconds since the epoch, unique per conversation at millisecond resolution.
-- words: the text's tokens as store/match.ts cuts and folds them, in the `simple` configuration.
CREATE TABLE messages (
  id bigserial PRIMARY KEY,
  conversation bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  user_id bigint NOT NULL,
  ts bigint NOT NULL,
  type smallint NOT NULL,
  highlight boolean NOT NULL DEFAULT false,
  sender text NOT NULL,
  text text NOT NULL,
  words tsvector NOT NULL
);

CREATE UNIQUE INDEX messages_conversation_ts ON messages (conversation, ts);
CREATE INDEX messages_user_id ON messages (user_id, id);
CREATE INDEX messages_words ON messages USING gin (words);
