-- The web client's settings of each user (theme, layout, clock, pinned conversations...), as one
-- JSON object, so that they follow the user to every device. The API validates it.
ALTER TABLE users ADD COLUMN client_settings TEXT NOT NULL DEFAULT '{}';
