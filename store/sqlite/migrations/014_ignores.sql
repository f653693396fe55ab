-- Who each user ignores (store/ignores.ts): masks, nick!user@host with wildcards, casefolded.
CREATE TABLE ignores (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  mask TEXT NOT NULL,
  -- The place in the user's list: masks are listed in the order they were added.
  seq INTEGER NOT NULL,
  created INTEGER NOT NULL,
  PRIMARY KEY (user_id, mask)
) STRICT, WITHOUT ROWID;
