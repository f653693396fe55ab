-- Detached channels: joined on the network and stored, out of IRC clients' channel lists.
-- relay_detached and reattach_on are '' for the default; detach_after is in seconds (0: never).
ALTER TABLE conversations
  ADD COLUMN detached boolean NOT NULL DEFAULT false,
  ADD COLUMN relay_detached text NOT NULL DEFAULT '',
  ADD COLUMN reattach_on text NOT NULL DEFAULT '',
  ADD COLUMN detach_after integer NOT NULL DEFAULT 0;
