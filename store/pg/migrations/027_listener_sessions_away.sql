-- Each node's open event sockets per user: of which login sessions (their hashes, separated by
-- spaces), so that a push goes to every browser but those with Parley open whichever node their
-- sockets are on; and how many are pages not looked at a while, which automatic away does not
-- count.
ALTER TABLE cluster_listeners ADD COLUMN sessions text NOT NULL DEFAULT '';
ALTER TABLE cluster_listeners ADD COLUMN away integer NOT NULL DEFAULT 0;
