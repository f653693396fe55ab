-- Channel keys (+k): the key a channel was joined with or told to its members, used to join it
-- again after a reconnect; '' when none. A secret of the channel's members: never in the API.
ALTER TABLE conversations ADD COLUMN channel_key text NOT NULL DEFAULT '';
