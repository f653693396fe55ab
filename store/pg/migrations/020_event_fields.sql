-- Channel events (joins, parts, kicks, quits, nick changes, topics, modes: types 4 to 10) kept as
-- data: `sender` is who did it, `fields` the rest as JSON text (store/event_fields.ts; the store
-- never looks inside it), `text` empty. Rows stored before were English sentences; each is read
-- back here exactly as Parley wrote it (`why`: ": reason" or "."), as SQLite's migration 024
-- does, and a row that does not read as its sentence keeps its text, with `fields` NULL, and is
-- shown as it was.
ALTER TABLE messages ADD COLUMN fields text;

UPDATE messages SET fields = CASE type
  -- "{nick} joined."
  WHEN 4 THEN CASE WHEN text = sender || ' joined.' THEN '{}' END
  -- "{nick} left." / "{nick} left: {reason}"
  WHEN 5 THEN CASE
    WHEN text = sender || ' left.' THEN '{}'
    WHEN left(text, length(sender) + 7) = sender || ' left: '
      THEN jsonb_build_object('message', substr(text, length(sender) + 8))::text
  END
  -- "{nick} quit." / "{nick} quit: {reason}"
  WHEN 6 THEN CASE
    WHEN text = sender || ' quit.' THEN '{}'
    WHEN left(text, length(sender) + 7) = sender || ' quit: '
      THEN jsonb_build_object('message', substr(text, length(sender) + 8))::text
  END
  -- "{kicked} was kicked by {kicker}." / "... by {kicker}: {reason}"; the kicker is the sender.
  WHEN 7 THEN CASE
    WHEN strpos(text, ' was kicked by ') < 2
      OR strpos(left(text, strpos(text, ' was kicked by ') - 1), ' ') > 0 THEN NULL
    WHEN substr(text, strpos(text, ' was kicked by ') + 15) = sender || '.'
      THEN jsonb_build_object('nick', left(text, strpos(text, ' was kicked by ') - 1))::text
    WHEN substr(text, strpos(text, ' was kicked by ') + 15, length(sender) + 2) = sender || ': '
      THEN jsonb_build_object(
        'nick', left(text, strpos(text, ' was kicked by ') - 1),
        'message', substr(text, strpos(text, ' was kicked by ') + 17 + length(sender)))::text
  END
  -- "{old} is now known as {new}."
  WHEN 8 THEN CASE
    WHEN left(text, length(sender) + 17) = sender || ' is now known as '
      AND right(text, 1) = '.' AND length(text) > length(sender) + 18
      AND strpos(substr(text, length(sender) + 18, length(text) - length(sender) - 18), ' ') = 0
      THEN jsonb_build_object('new_nick',
        substr(text, length(sender) + 18, length(text) - length(sender) - 18))::text
  END
  -- "{nick} changed the topic to: {topic}" / "{nick} cleared the topic."
  WHEN 9 THEN CASE
    WHEN left(text, length(sender) + 23) = sender || ' changed the topic to: '
      THEN jsonb_build_object('topic', substr(text, length(sender) + 24))::text
    WHEN text = sender || ' cleared the topic.' THEN '{"topic": ""}'
  END
  -- "{nick} set mode {modes}."
  WHEN 10 THEN CASE
    WHEN left(text, length(sender) + 10) = sender || ' set mode '
      AND right(text, 1) = '.' AND length(text) > length(sender) + 11
      THEN jsonb_build_object('mode',
        substr(text, length(sender) + 11, length(text) - length(sender) - 11))::text
  END
END
WHERE type BETWEEN 4 AND 10;

UPDATE messages SET text = '' WHERE type BETWEEN 4 AND 10 AND fields IS NOT NULL;
