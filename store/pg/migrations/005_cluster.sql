-- Several Parley nodes on one database (cluster/). Which node runs a user's IRC connections is an
-- advisory lock, not a row: PostgreSQL releases it when the node's session ends.

-- Messages between nodes too large for a NOTIFY payload (8000 bytes): the NOTIFY names the row.
CREATE TABLE cluster_payloads (
  id bigserial PRIMARY KEY,
  payload text NOT NULL,
  created bigint NOT NULL
);

-- Each node's open event sockets per user, so that a node publishes a user's events to the
-- others only while that user has sockets there, and knows whether the user is present at all.
CREATE TABLE cluster_listeners (
  node text NOT NULL,
  user_id bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (node, user_id)
);
