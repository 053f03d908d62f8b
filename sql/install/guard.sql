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

-- What a DBA sets on the extension's tables. pg_dump writes none of a table's own settings for
-- an extension's table (the extension creates the table on restore), so two kinds of change are
-- told apart:
--   * the settings DBAs tune on hot tables, storage parameters (fillfactor, autovacuum_*,
--     toast.*) and columns' statistics targets, are kept: every change is recorded in
--     dealcards_table_setting, whose rows pg_dump dumps with the extension's data, and a row
--     restored there applies its settings to its table again (a trigger);
--   * every other property of the table that a dump would drop without a word is refused when
--     the command ends, which undoes it: persistence (SET UNLOGGED, after which a crash empties
--     the table and standbys never get it), tablespace, replica identity, row level security,
--     access method, CLUSTER ON, a column's default, NOT NULL, storage and compression, disabled
--     triggers (DISABLE TRIGGER ALL turns off the one that applies restored settings) and comments.
-- As above, the extension's own scripts and the commands a Citus coordinator sends its workers
-- pass, and dealcards.allow_own_objects = on lets a refused change through (lost on restore).
CREATE TABLE @extschema@.dealcards_table_setting (
    table_name        name PRIMARY KEY,
    options           text[] NOT NULL DEFAULT '{}',
    column_statistics jsonb NOT NULL DEFAULT '{}'
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.dealcards_table_setting', '');
-- Settings are no secret (pg_class shows them), and a role that dumps the extension's tables
-- must be able to read this one.
GRANT SELECT ON @extschema@.dealcards_table_setting TO PUBLIC;

CREATE FUNCTION @extschema@.dealcards_keep_table_settings() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema name;
    properties text[];
    before text[];
    changed text;
BEGIN
    IF pg_catalog.current_setting('citus.enable_ddl_propagation', true) OPERATOR(pg_catalog.=) 'off' THEN
        RETURN;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    -- One line per refused property of every table of the extension.
    WITH members AS (
        SELECT c.oid, c.relname, c.relpersistence, c.reltablespace, c.relreplident,
               c.relrowsecurity, c.relforcerowsecurity, c.relam
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_extension e
            ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
          JOIN pg_catalog.pg_class c
            ON c.oid OPERATOR(pg_catalog.=) d.objid AND c.relkind OPERATOR(pg_catalog.=) 'r'
         WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
    ), lines (line) AS (
        SELECT pg_catalog.concat(m.relname, ': ', p)
          FROM members m,
               LATERAL (VALUES
                   (CASE m.relpersistence WHEN 'u' THEN 'unlogged' ELSE 'logged' END),
                   (pg_catalog.concat('tablespace ', COALESCE(
                       (SELECT s.spcname::text FROM pg_catalog.pg_tablespace s
                         WHERE s.oid OPERATOR(pg_catalog.=) m.reltablespace), 'default'))),
                   (pg_catalog.concat('replica identity ', CASE m.relreplident
                       WHEN 'd' THEN 'default' WHEN 'n' THEN 'nothing' WHEN 'f' THEN 'full'
                       ELSE 'index' END)),
                   (pg_catalog.concat('row level security ',
                       CASE WHEN m.relrowsecurity THEN 'on' ELSE 'off' END,
                       CASE WHEN m.relforcerowsecurity THEN ', forced' END)),
                   (pg_catalog.concat('access method ',
                       (SELECT a.amname FROM pg_catalog.pg_am a WHERE a.oid OPERATOR(pg_catalog.=) m.relam))),
                   (pg_catalog.format('comment %L', pg_catalog.obj_description(m.oid, 'pg_class')))
               ) v (p)
        UNION ALL
        SELECT pg_catalog.concat(m.relname, '.', a.attname, ': ', p)
          FROM members m
          JOIN pg_catalog.pg_attribute a
            ON a.attrelid OPERATOR(pg_catalog.=) m.oid AND a.attnum OPERATOR(pg_catalog.>) 0
           AND NOT a.attisdropped
          LEFT JOIN pg_catalog.pg_attrdef ad
            ON ad.adrelid OPERATOR(pg_catalog.=) m.oid AND ad.adnum OPERATOR(pg_catalog.=) a.attnum,
          LATERAL (VALUES
              (pg_catalog.concat('default ', COALESCE(pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), 'none'))),
              (CASE WHEN a.attnotnull THEN 'not null' ELSE 'nullable' END),
              (pg_catalog.concat('storage ', CASE a.attstorage
                  WHEN 'p' THEN 'plain' WHEN 'm' THEN 'main' WHEN 'e' THEN 'external'
                  ELSE 'extended' END)),
              (pg_catalog.concat('compression ', COALESCE(NULLIF(a.attcompression::text, ''), 'default'))),
              (pg_catalog.format('comment %L', pg_catalog.col_description(m.oid, a.attnum)))
          ) v (p)
        UNION ALL
        SELECT pg_catalog.format('%s: clustered on %s', m.relname, i.indexrelid::pg_catalog.regclass)
          FROM members m JOIN pg_catalog.pg_index i
            ON i.indrelid OPERATOR(pg_catalog.=) m.oid AND i.indisclustered
        UNION ALL
        SELECT pg_catalog.format('%s: trigger %s fires %s', m.relname, t.tgname,
                                 CASE t.tgenabled WHEN 'D' THEN 'never' WHEN 'R' THEN 'on replicas only'
                                 ELSE 'always' END)
          FROM members m JOIN pg_catalog.pg_trigger t
            ON t.tgrelid OPERATOR(pg_catalog.=) m.oid AND t.tgenabled OPERATOR(pg_catalog.<>) 'O'
    )
    SELECT pg_catalog.array_agg(line ORDER BY line) INTO properties FROM lines;
    IF TG_EVENT OPERATOR(pg_catalog.=) 'ddl_command_start' THEN
        PERFORM pg_catalog.set_config('dealcards.table_properties', properties::text, true);
        RETURN;
    END IF;
    before := NULLIF(pg_catalog.current_setting('dealcards.table_properties', true), '')::text[];
    IF before IS NOT NULL
       AND pg_catalog.current_setting('dealcards.allow_own_objects', true)
           IS DISTINCT FROM 'on'
       AND EXISTS (SELECT FROM pg_catalog.pg_event_trigger_ddl_commands() WHERE NOT in_extension) THEN
        -- A line that is new for a table or column that was there: a column added or dropped
        -- is dealcards_keep_table_columns' to refuse, and a property back at its default
        -- (a comment removed, a trigger enabled again) loses nothing.
        SELECT pg_catalog.string_agg(p, '; ') INTO changed
          FROM pg_catalog.unnest(properties) p
         WHERE p OPERATOR(pg_catalog.<>) ALL (before)
           AND pg_catalog.split_part(p, ': ', 1) OPERATOR(pg_catalog.=) ANY
               (ARRAY(SELECT pg_catalog.split_part(b, ': ', 1) FROM pg_catalog.unnest(before) b));
        IF changed IS NOT NULL THEN
            RAISE EXCEPTION 'this change to dealcards'' tables is refused: %', changed
                USING ERRCODE = 'feature_not_supported',
                      DETAIL = 'pg_dump does not keep a table''s own properties for an extension''s '
                               'tables: a restored database would lack the change without a word. '
                               'Storage parameters (fillfactor, autovacuum_*) and statistics '
                               'targets are kept (dealcards_table_setting); the persistence, '
                               'tablespace, replica identity, row level security, clustering, '
                               'column defaults, NOT NULL, storage, compression, disabled triggers '
                               'and comments are not.',
                      HINT = 'To make it anyway, and make it again after every restore: '
                             'SET dealcards.allow_own_objects = on.';
        END IF;
    END IF;
    -- The kept settings, recorded as they now are (a table back at its defaults has no row),
    -- when the command changed a table of the extension: a role altering a table of its own
    -- needs no privilege on dealcards_table_setting. The recording's writes do not apply the
    -- settings back (dealcards_apply_table_setting).
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger_ddl_commands() cmd
                     JOIN pg_catalog.pg_depend d
                       ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                      AND d.objid OPERATOR(pg_catalog.=) cmd.objid
                      AND d.deptype OPERATOR(pg_catalog.=) 'e'
                     JOIN pg_catalog.pg_extension e
                       ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                      AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
                    WHERE cmd.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass) THEN
        RETURN;
    END IF;
    PERFORM pg_catalog.set_config('dealcards.recording_table_settings', 'on', true);
    EXECUTE pg_catalog.format($record$
        WITH members AS (
            SELECT c.oid, c.relname, c.reltoastrelid, c.reloptions
              FROM pg_catalog.pg_depend d
              JOIN pg_catalog.pg_extension e
                ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
              JOIN pg_catalog.pg_class c
                ON c.oid OPERATOR(pg_catalog.=) d.objid AND c.relkind OPERATOR(pg_catalog.=) 'r'
             WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
               AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               AND d.deptype OPERATOR(pg_catalog.=) 'e'
        ), settings AS (
            SELECT m.relname AS table_name,
                   pg_catalog.array_cat(
                       COALESCE(m.reloptions, '{}'),
                       ARRAY(SELECT 'toast.' OPERATOR(pg_catalog.||) o
                               FROM pg_catalog.pg_class t, pg_catalog.unnest(t.reloptions) o
                              WHERE t.oid OPERATOR(pg_catalog.=) m.reltoastrelid)) AS options,
                   COALESCE((SELECT pg_catalog.jsonb_object_agg(a.attname, a.attstattarget)
                               FROM pg_catalog.pg_attribute a
                              WHERE a.attrelid OPERATOR(pg_catalog.=) m.oid
                                AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                                AND a.attstattarget OPERATOR(pg_catalog.>=) 0), '{}') AS column_statistics
              FROM members m
        ), gone AS (
            DELETE FROM %1$I.dealcards_table_setting s
             WHERE NOT EXISTS (SELECT FROM settings n
                                WHERE n.table_name OPERATOR(pg_catalog.=) s.table_name
                                  AND (n.options OPERATOR(pg_catalog.<>) '{}'
                                       OR n.column_statistics OPERATOR(pg_catalog.<>) '{}'))
        )
        INSERT INTO %1$I.dealcards_table_setting AS s (table_name, options, column_statistics)
        SELECT table_name, options, column_statistics FROM settings
         WHERE options OPERATOR(pg_catalog.<>) '{}' OR column_statistics OPERATOR(pg_catalog.<>) '{}'
        ON CONFLICT (table_name) DO UPDATE
           SET options = excluded.options, column_statistics = excluded.column_statistics
         WHERE (s.options, s.column_statistics)
               IS DISTINCT FROM (excluded.options, excluded.column_statistics)
        $record$, ext_schema);
    PERFORM pg_catalog.set_config('dealcards.recording_table_settings', 'off', true);
END
$$;

CREATE EVENT TRIGGER dealcards_keep_table_settings_start ON ddl_command_start
    WHEN TAG IN ('ALTER TABLE', 'COMMENT') EXECUTE FUNCTION @extschema@.dealcards_keep_table_settings();
CREATE EVENT TRIGGER dealcards_keep_table_settings_end ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE', 'COMMENT') EXECUTE FUNCTION @extschema@.dealcards_keep_table_settings();

-- A row of dealcards_table_setting written (by a restore, or by hand) applies its settings to
-- its table. Only names of the extension's tables and
-- columns, storage parameters of the form name=value and integer targets are taken.
CREATE FUNCTION @extschema@.dealcards_apply_table_setting() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ext_schema name;
    option text;
    col text;
    target text;
BEGIN
    IF pg_catalog.current_setting('dealcards.recording_table_settings', true) OPERATOR(pg_catalog.=) 'on' THEN
        RETURN NULL;
    END IF;
    SELECT n.nspname INTO ext_schema
      FROM pg_catalog.pg_extension e
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'dealcards';
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_depend d
                     JOIN pg_catalog.pg_extension e
                       ON e.oid OPERATOR(pg_catalog.=) d.refobjid
                      AND e.extname OPERATOR(pg_catalog.=) 'dealcards'
                     JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid
                    WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                      AND d.deptype OPERATOR(pg_catalog.=) 'e'
                      AND c.relkind OPERATOR(pg_catalog.=) 'r'
                      AND c.relname OPERATOR(pg_catalog.=) NEW.table_name) THEN
        RAISE EXCEPTION 'dealcards has no table %', NEW.table_name
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOREACH option IN ARRAY NEW.options LOOP
        IF option IS NULL OR option OPERATOR(pg_catalog.!~) '^(toast\.)?[a-z_]+=[A-Za-z0-9_.+-]+$' THEN
            RAISE EXCEPTION 'not a storage parameter: %', option
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'Options are written name=value, as pg_class.reloptions holds them.';
        END IF;
    END LOOP;
    IF pg_catalog.cardinality(NEW.options) OPERATOR(pg_catalog.>) 0 THEN
        EXECUTE pg_catalog.format('ALTER TABLE %I.%I SET (%s)', ext_schema, NEW.table_name,
                                  pg_catalog.array_to_string(NEW.options, ', '));
    END IF;
    IF pg_catalog.jsonb_typeof(NEW.column_statistics) OPERATOR(pg_catalog.<>) 'object' THEN
        RAISE EXCEPTION 'column_statistics must be an object of column names and targets'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR col, target IN SELECT key, value FROM pg_catalog.jsonb_each_text(NEW.column_statistics) LOOP
        IF target OPERATOR(pg_catalog.!~) '^[0-9]{1,5}$' THEN
            RAISE EXCEPTION 'not a statistics target: % for column %', target, col
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        EXECUTE pg_catalog.format('ALTER TABLE %I.%I ALTER COLUMN %I SET STATISTICS %s',
                                  ext_schema, NEW.table_name, col, target);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER dealcards_apply_table_setting
    AFTER INSERT OR UPDATE ON @extschema@.dealcards_table_setting
    FOR EACH ROW EXECUTE FUNCTION @extschema@.dealcards_apply_table_setting();
