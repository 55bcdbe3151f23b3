-- The journal writes every event's tag row in the transaction that inserts the event, with the
-- ordering that insert returned, so a tag row cannot point at a missing event. The foreign key
-- checked that again for every tag row written (a query and a row lock on the event just inserted,
-- part of PostgreSQL's work per journaled event). What the key also did, removing an event's tags
-- with the event (ON DELETE CASCADE, used when a deleted session's journal is purged), a trigger
-- now does, once per DELETE statement.
ALTER TABLE event_tag DROP CONSTRAINT IF EXISTS fk_event_journal;

CREATE OR REPLACE FUNCTION event_tag_remove_deleted_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM event_tag t USING deleted_events d WHERE t.event_id = d.ordering;
  RETURN NULL;
END
$$;

CREATE TRIGGER event_journal_deletes_tags AFTER DELETE ON event_journal
  REFERENCING OLD TABLE AS deleted_events
  FOR EACH STATEMENT EXECUTE FUNCTION event_tag_remove_deleted_events();
