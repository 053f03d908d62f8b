-- Whether the desk exists, and its chain head.
SELECT fair_chain_head FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1
