-- Who each user ignores (store/ignores.ts): masks, nick!user@host with wildcards, casefolded.
CREATE TABLE ignores (
  user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  mask text COLLATE "C" NOT NULL,
  -- The place in the user's list: masks are listed in the order they were added.
  seq integer NOT NULL,
  created bigint NOT NULL,
  PRIMARY KEY (user_id, mask)
);
