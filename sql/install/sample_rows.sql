-- sample_rows(relation, k [, seed]): exactly k rows of a table, every k-subset of its visible
-- rows equally likely (docs/rows.md). The table is named by its row type, as in
-- `SELECT * FROM sample_rows(NULL::big, 10)`.
--
-- Each try takes a Bernoulli sample with TABLESAMPLE sparse_bernoulli at a rate a little above
-- k / rows and keeps it only if it holds k rows or more; k of them, ordered by shuffle_key under
-- a key of the try's own, are then a uniformly random k-subset (a Bernoulli sample of m rows is
-- a uniformly random m-subset). A try that comes back short is thrown away, and the next, at
-- four times the rate, draws afresh: the rows kept depend on the last try alone. A try at 100%
-- is the whole table, where fewer than k rows are all of them. Partitions and Citus shards each
-- get the TABLESAMPLE clause and draw their own sample of the same rate: together a Bernoulli
-- sample of the whole.
--
-- Without a seed, a try's key is sha256 of two gen_random_uuid() (pg_strong_random), and its
-- sample is drawn from the backend's OS-keyed stream. With a seed (32 bytes), try i takes the
-- key sha256(seed || i) and the first 52 bits of that key as its REPEATABLE value, and the
-- rates come from the table's pages: the same seed gives the same rows from the same rows in
-- the same places.
CREATE FUNCTION @extschema@.sample_rows(relation anyelement, k integer, seed bytea DEFAULT NULL)
RETURNS SETOF anyelement
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema text;
    rel regclass;
    kind "char";
    estimate float8;
    bytes float8;
    percent float8;
    try int := 0;
    key bytea;
    repeatable text := '';
    alias text := 'sampled';
    got bigint;
BEGIN
    IF k IS NULL OR k < 0 THEN
        RAISE EXCEPTION 'k must be 0 or more, got %', coalesce(k::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF seed IS NOT NULL AND octet_length(seed) <> 32 THEN
        RAISE EXCEPTION 'seed must be exactly 32 bytes, got %', octet_length(seed)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT t.typrelid, c.relkind INTO rel, kind
      FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid
     WHERE t.oid = pg_typeof(relation);
    IF kind IS NULL OR kind NOT IN ('r', 'p', 'm') THEN
        RAISE EXCEPTION 'sample_rows samples tables: % is not the row type of a table or materialized view',
                        pg_typeof(relation)
            USING ERRCODE = 'wrong_object_type',
                  HINT = 'Name the table by its row type, as in sample_rows(NULL::my_table, 10); to sample a view or a query, aggregate it with sample_agg.';
    END IF;
    IF k = 0 THEN
        RETURN;
    END IF;
    -- The extension's schema as it is named now (it may have been renamed since the install).
    SELECT n.nspname INTO ext_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dealcards';
    -- The rows and bytes of the table, or of its partitions, as the catalog knows them
    -- (pg_partition_tree lists nothing for a relation that is neither partitioned nor a
    -- partition).
    SELECT sum(greatest(c.reltuples, 0)), sum(pg_relation_size(c.oid)) INTO estimate, bytes
      FROM pg_class c
     WHERE c.relkind IN ('r', 'm')
       AND (c.oid = rel OR c.oid IN (SELECT p.relid FROM pg_partition_tree(rel) p));
    IF seed IS NOT NULL OR coalesce(estimate, 0) < 1 THEN
        -- From the pages alone, where the table was never analyzed, and always with a seed (whose
        -- rows then depend on the table's pages, not on its statistics, which ANALYZE changes
        -- and pg_upgrade does not keep): at most 291 rows a page (MaxHeapTuplesPerPage of 8 kB
        -- pages), which errs towards a rate too low. A table whose pages the catalog does not
        -- see (the coordinator's of a Citus table) is taken for a million rows.
        estimate := coalesce(bytes, 0) / current_setting('block_size')::float8 * 291;
        IF estimate < 1 THEN
            estimate := 1e6;
        END IF;
    END IF;
    -- The table's alias in the query names its whole row: it must not be a column's name.
    WHILE EXISTS (SELECT FROM pg_attribute WHERE attrelid = rel AND attname = alias) LOOP
        alias := alias || '_';
    END LOOP;
    -- k + 4 sqrt(k) + 4 rows expected: a try comes back short about once in a thousand or less.
    percent := least(100, 100 * (k + 4 * sqrt(k) + 4) / estimate);
    LOOP
        IF seed IS NULL THEN
            key := sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));
        ELSE
            key := sha256(seed || int4send(try));
            repeatable := format('REPEATABLE (%s)',
                                 ('x' || substr(encode(key, 'hex'), 1, 13))::bit(52)::bigint);
        END IF;
        -- A row's order is shuffle_key of its relation (a partition's, a shard's) and place.
        RETURN QUERY EXECUTE format(
            'WITH tried AS MATERIALIZED (
                 SELECT %4$I AS r, %1$I.shuffle_key($3, %4$I.tableoid::regclass::text || %4$I.ctid::text) AS o
                   FROM %2$s AS %4$I TABLESAMPLE %1$I.sparse_bernoulli ($1) %3$s)
             SELECT (tried.r).* FROM tried
              WHERE $1 >= 100 OR (SELECT count(*) FROM tried) >= $2
              ORDER BY tried.o LIMIT $2',
            ext_schema, rel, repeatable, alias)
            USING percent::float4, k, key;
        GET DIAGNOSTICS got = ROW_COUNT;
        IF got > 0 OR percent >= 100 THEN
            RETURN;
        END IF;
        percent := least(100, percent * 4);
        try := try + 1;
    END LOOP;
END
$$;
