-- The extension's tables keep the columns the extension gives them. pg_dump writes the rows of
-- an extension's table with every column the table has, but a restore creates the table as the
-- extension defines it: with a column added by hand, the restore of its rows fails and every row
-- of the table is lost. Column changes (ADD, DROP, ALTER TYPE, RENAME) to these tables outside the
-- extension's own scripts are therefore refused (and objects of the user's own on the tables,
-- below). Every name is qualified, so no object on the caller's search_path takes
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

-- Nor do they take objects of the user's own: pg_dump dumps none of what hangs off an
-- extension's table, so an index, a constraint, a trigger, a rule, a policy or extended
-- statistics made on one of these tables would be missing, without a word, from every restored
-- database. Their creation outside the extension's own scripts is refused at the end of the
-- command, which undoes it (CREATE INDEX CONCURRENTLY has committed its index by then: the
-- index stays, invalid, and the error says to drop it). Who takes the loss on knowingly sets
-- dealcards.allow_own_objects to on. Commands a Citus coordinator sends its workers (with
-- citus.enable_ddl_propagation off) pass: they repeat, on a worker's copy of a table, what the
-- coordinator did, an update's new index among them. Constraints count as made by the command
-- when this transaction wrote them (unless it also created the extension, whose own are new
-- too).
CREATE FUNCTION @extschema@.dealcards_keep_table_objects() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema text;
    made text;
BEGIN
    IF pg_catalog.current_setting('citus.enable_ddl_propagation', true) OPERATOR(pg_catalog.=) 'off'
       OR pg_catalog.current_setting('dealcards.allow_own_objects', true) OPERATOR(pg_catalog.=) 'on' THEN
        RETURN;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    EXECUTE pg_catalog.format($made$
        WITH members AS (
            SELECT d.objid AS relid
              FROM pg_catalog.pg_depend d
              JOIN pg_catalog.pg_extension e
                ON e.oid OPERATOR(pg_catalog.=) d.refobjid
               AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
             WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
               AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND d.deptype OPERATOR(pg_catalog.=) 'e'
        ), cmd AS (
            SELECT c.classid, c.objid, c.command_tag
              FROM pg_catalog.pg_event_trigger_ddl_commands() c
             WHERE NOT c.in_extension
        ), made (what, relid) AS (
            SELECT pg_catalog.format('index %%s', i.indexrelid::pg_catalog.regclass), i.indrelid
              FROM cmd JOIN pg_catalog.pg_index i ON i.indexrelid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('trigger %%I', t.tgname), t.tgrelid
              FROM cmd JOIN pg_catalog.pg_trigger t ON t.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass
               AND NOT t.tgisinternal
            UNION ALL
            SELECT pg_catalog.format('rule %%I', r.rulename), r.ev_class
              FROM cmd JOIN pg_catalog.pg_rewrite r ON r.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('policy %%I', p.polname), p.polrelid
              FROM cmd JOIN pg_catalog.pg_policy p ON p.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('statistics %%I', s.stxname), s.stxrelid
              FROM cmd JOIN pg_catalog.pg_statistic_ext s ON s.oid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
            UNION ALL
            SELECT pg_catalog.format('constraint %%I', k.conname), k.conrelid
              FROM cmd JOIN pg_catalog.pg_constraint k ON k.conrelid OPERATOR(pg_catalog.=) cmd.objid
             WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND cmd.command_tag OPERATOR(pg_catalog.=) 'ALTER TABLE'
               AND %1$I.dealcards_written_here(k.xmin)
               AND NOT EXISTS (SELECT FROM pg_catalog.pg_extension e
                                WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards'
                                  AND %1$I.dealcards_written_here(e.xmin))
        )
        SELECT pg_catalog.string_agg(DISTINCT pg_catalog.concat(m.what, ' on ', c.relname), ', ')
          FROM made m JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) m.relid
         WHERE m.relid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT relid FROM members))
        $made$, ext_schema) INTO made;
    IF made IS NOT NULL THEN
        RAISE EXCEPTION 'objects of your own on dealcards'' tables are refused: %', made
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'pg_dump does not dump the indexes, constraints, triggers, rules, policies '
                           'or statistics made on an extension''s tables: a restored database '
                           'would lack it. (After CREATE INDEX CONCURRENTLY the index is left '
                           'behind, invalid: drop it.)',
                  HINT = 'dealcards indexes a player''s games (p1_id, p2_id, p3_id) and a desk''s '
                         'games by time. To make it anyway, and make it again after every '
                         'restore: SET dealcards.allow_own_objects = on.';
    END IF;
END
$$;

CREATE EVENT TRIGGER dealcards_keep_table_objects ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE', 'CREATE INDEX', 'CREATE TRIGGER', 'CREATE RULE', 'CREATE POLICY',
                 'CREATE STATISTICS')
    EXECUTE FUNCTION @extschema@.dealcards_keep_table_objects();
