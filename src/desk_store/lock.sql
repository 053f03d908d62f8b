-- Locks a desk's row: concurrent deals at one desk wait here, one after the other. Returns its
-- provably fair state as it is once the lock is granted.
SELECT fair_round, fair_commitment, fair_nonce, fair_chain_head
  FROM @extschema@.desk
 WHERE desk_id OPERATOR(pg_catalog.=) $1
   FOR UPDATE
