-- Each message's words also name where it was said (store/pg/tsquery.ts): `~u<user>b<id >> 16>`,
-- the user's messages in one bucket of 65,536 ids, and `~c<conversation>`, so that a search
-- narrows by them inside the GIN index, newest buckets first.
UPDATE messages
SET words = words || format('%L %L', '~u' || user_id || 'b' || (id >> 16), '~c' || conversation)::tsvector;
