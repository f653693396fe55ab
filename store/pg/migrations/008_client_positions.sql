-- Where each attached IRC client (by the name it logs in with) last was in a connection's history,
-- so that one without chathistory gets what it missed replayed when it comes back.
CREATE TABLE client_positions (
  connection bigint NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
  client text COLLATE "C" NOT NULL,
  -- Microseconds of the newest line the client was shown.
  ts bigint NOT NULL,
  PRIMARY KEY (connection, client)
);
