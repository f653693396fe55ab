-- Web Push subscriptions of IRC clients (soju.im/webpush): registered by an attached client for
-- the connection it is on (NULL: a client that only manages networks gets every connection's),
-- under its client name, which tells when that client is attached and needs no push, and with
-- the credential it logged in with (JSON): a revoked app token or a new password ends it.
CREATE TABLE irc_push_subscriptions (
  endpoint text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  connection bigint REFERENCES connections (id) ON DELETE CASCADE,
  client text NOT NULL,
  credential text NOT NULL,
  p256dh text NOT NULL,
  auth text NOT NULL,
  created bigint NOT NULL
);
CREATE INDEX irc_push_subscriptions_user ON irc_push_subscriptions (user_id);
CREATE INDEX irc_push_subscriptions_connection ON irc_push_subscriptions (connection);
