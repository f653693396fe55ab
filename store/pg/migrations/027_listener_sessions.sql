-- The login sessions of each node's open event sockets per user (their hashes, separated by
-- spaces), so that a push goes to every browser but those with Parley open, whichever node their
-- sockets are on.
ALTER TABLE cluster_listeners ADD COLUMN sessions text NOT NULL DEFAULT '';
