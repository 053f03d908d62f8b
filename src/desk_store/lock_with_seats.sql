-- lock.sql that also reads the desk's seats in the same statement, so that a provably fair deal
-- reads them at no statement more: one row per seated player (or one row with no seat), with the
-- client seed the player in the seat set under the desk's round (NULL if none: a seed set by
-- another player id does not count, whoever rewrote the seat), and the seat row's xmin (a
-- deal refuses a seat, or a seed, its own transaction wrote: see docs/provably_fair.md). The
-- seats are read with the snapshot of the statement's start. Column `fresh` says whether that is
-- the state the lock was granted on: no transaction but the one that wrote the desk row's
-- version has locked it (its xmax is none or the writer's, since a deal's update keeps its lock
-- on the new version). It is computed below the lock, from the version the snapshot sees; if the
-- row was updated meanwhile, the lock re-reads the newest version, which then carries this
-- transaction's own lock, so `fresh` is false. Otherwise too the deal may have waited for a
-- transaction that changed the seats (one that locked the desk row, then seated a player), and
-- the seats are read again once the lock is held. Every table is
-- filtered by the desk given ($1), so that Citus routes the statement to the desk's worker.
SELECT d.fair_round, d.fair_commitment, d.fair_nonce, d.fair_chain_head, d.fresh,
       p.player_no, p.player_id, p.xmin AS seat_xmin,
       CASE WHEN p.seed_round OPERATOR(pg_catalog.=) d.fair_round
                 AND p.seed_player OPERATOR(pg_catalog.=) p.player_id
            THEN pg_catalog.convert_to(p.client_seed, 'UTF8') END AS client_seed
  FROM (SELECT fair_round, fair_commitment, fair_nonce, fair_chain_head,
               xmax OPERATOR(pg_catalog.=) '0'::pg_catalog.xid
               OR xmax OPERATOR(pg_catalog.=) xmin AS fresh
          FROM @extschema@.desk WHERE desk_id OPERATOR(pg_catalog.=) $1
           FOR UPDATE) d
  LEFT JOIN @extschema@.desk_player p ON p.desk_id OPERATOR(pg_catalog.=) $1
