-- The fingerprint of the secret the installation's nodes share (an HMAC of a constant under it,
-- never the secret), stored by the first node's start: a node with another secret refuses to
-- start. One row at most. Not in settings: `parley store copy` compares those with the source's.
CREATE TABLE installation_secret (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  fingerprint text NOT NULL
);
