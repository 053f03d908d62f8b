-- lock.sql as the tables of releases before 0.3.0 take it (no provably fair columns).
SELECT FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1 FOR UPDATE
