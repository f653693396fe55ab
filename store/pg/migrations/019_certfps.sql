-- Client certificates users log in to the IRC listener with (SASL EXTERNAL), by the SHA-256 of
-- the certificate (lower-case hex). One certificate names one user.
CREATE TABLE certfps (
  fingerprint text PRIMARY KEY COLLATE "C",
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created bigint NOT NULL
);
CREATE INDEX certfps_user ON certfps (user_id);
