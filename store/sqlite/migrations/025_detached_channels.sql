-- Detached channels: joined on the network and stored, out of IRC clients' channel lists.
-- relay_detached and reattach_on are "" for the default; detach_after is in seconds (0: never).
ALTER TABLE conversations ADD COLUMN detached INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN relay_detached TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN reattach_on TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN detach_after INTEGER NOT NULL DEFAULT 0;
