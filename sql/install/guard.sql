-- The extension's tables keep the columns the extension gives them. pg_dump writes the rows of
-- an extension's table with every column the table has, but a restore creates the table as the
-- extension defines it: with a column added by hand, the restore of its rows fails and every row
-- of the table is lost. Column changes (ADD, DROP, ALTER TYPE, RENAME) to these tables outside the
-- extension's own scripts are therefore refused; constraints, indexes, triggers and the rest of
-- ALTER TABLE stay free. Every name is qualified, so no object on the caller's search_path takes
-- part, and nothing names the extension's schema, so a renamed schema changes nothing.
CREATE FUNCTION @extschema@.dealcards_keep_table_columns() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
    columns text;
    changed text;
BEGIN
    SELECT pg_catalog.string_agg(
               pg_catalog.concat(c.relname, '.', a.attname, ' ',
                                 pg_catalog.format_type(a.atttypid, a.atttypmod)),
               ', ' ORDER BY c.oid, a.attnum)
      INTO columns
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_depend d
        ON d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
       AND d.refobjid OPERATOR(pg_catalog.=) e.oid
       AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.deptype OPERATOR(pg_catalog.=) 'e'
      JOIN pg_catalog.pg_class c
        ON c.oid OPERATOR(pg_catalog.=) d.objid AND c.relkind OPERATOR(pg_catalog.=) 'r'
      JOIN pg_catalog.pg_attribute a
        ON a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0
       AND NOT a.attisdropped
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    IF TG_EVENT OPERATOR(pg_catalog.=) 'ddl_command_start' THEN
        PERFORM pg_catalog.set_config('dealcards.table_columns', columns, true);
        RETURN;
    END IF;
    IF columns OPERATOR(pg_catalog.=) pg_catalog.current_setting('dealcards.table_columns', true) THEN
        RETURN;
    END IF;
    SELECT pg_catalog.string_agg(DISTINCT c.relname, ', ')
      INTO changed
      FROM pg_catalog.pg_event_trigger_ddl_commands() cmd
      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) cmd.objid
      JOIN pg_catalog.pg_depend d
        ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND d.objid OPERATOR(pg_catalog.=) c.oid AND d.deptype OPERATOR(pg_catalog.=) 'e'
      JOIN pg_catalog.pg_extension e
        ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
     WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
       AND NOT cmd.in_extension;
    IF changed IS NOT NULL THEN
        RAISE EXCEPTION 'the columns of dealcards'' table % cannot be changed', changed
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'pg_dump keeps the rows of the extension''s tables, but a restore creates '
                           'the tables as dealcards defines them: rows with other columns could '
                           'not be restored.',
                  HINT = 'Keep columns of your own in a table of your own keyed by the same id, '
                         'for example CREATE TABLE game_result (game_id bigint PRIMARY KEY, '
                         'winner smallint).';
    END IF;
END
$$;

CREATE EVENT TRIGGER dealcards_keep_table_columns_start ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION @extschema@.dealcards_keep_table_columns();
CREATE EVENT TRIGGER dealcards_keep_table_columns_end ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION @extschema@.dealcards_keep_table_columns();
