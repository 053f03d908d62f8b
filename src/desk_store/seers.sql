-- The roles among those the session could act as ($1 the session user, $2 the current user:
-- themselves and every role they are members of, with or without inheritance or the SET
-- option) that are the house (a superuser, or the tables' owner $3) or could see a deal before
-- it commits: BYPASSRLS skips row level security, REPLICATION streams the WAL,
-- pg_read_server_files and pg_execute_server_program read the WAL and data files, and where $4
-- (before PostgreSQL 16) CREATEROLE grants itself any of those but superusers.
SELECT r.rolname::pg_catalog.text AS role,
       r.rolsuper OR r.oid OPERATOR(pg_catalog.=) $3 AS house,
       CASE WHEN r.rolbypassrls THEN 'BYPASSRLS'
            WHEN r.rolreplication THEN 'REPLICATION'
            WHEN r.rolcreaterole THEN 'CREATEROLE'
            ELSE 'the privileges of ' OPERATOR(pg_catalog.||) r.rolname::pg_catalog.text
       END AS sees
  FROM pg_catalog.pg_roles r
 WHERE (r.rolsuper OR r.oid OPERATOR(pg_catalog.=) $3 OR r.rolbypassrls OR r.rolreplication
        OR (r.rolcreaterole AND $4)
        OR r.rolname OPERATOR(pg_catalog.=) ANY ('{pg_read_server_files,pg_execute_server_program}'::pg_catalog.name[]))
   AND (pg_catalog.pg_has_role($1, r.oid, 'MEMBER') OR pg_catalog.pg_has_role($2, r.oid, 'MEMBER'))
 ORDER BY house DESC, role
