-- No role but the tables' owner sees a deal before the transaction that dealt commits
-- (docs/provably_fair.md, "Nobody sees a deal before it commits"). A role that could read a deal
-- in its own transaction could deal, look, roll back, change one input in a committed step (a
-- player re-seated, a new client seed, a reveal) and deal again, until it liked what it saw.
--
-- Each policy hides the rows a deal writes (a game still in its opening state, its two opening
-- bid records, its leader note) from the transaction that wrote them: rows other transactions
-- committed are never hidden, and other sessions never see uncommitted rows anyway. A row being
-- checked before it is stored (the new row of an INSERT or UPDATE that needs SELECT rights) has
-- no tuple id yet, and no transaction id to look at: it passes. Not forced, so the owner, whom
-- the extension's functions write and read as, and superusers see every row; so does a role
-- with BYPASSRLS, which must not be a game server's.
ALTER TABLE @extschema@.game ENABLE ROW LEVEL SECURITY;
CREATE POLICY dealcards_deal_unseen ON @extschema@.game
    USING (fair_commitment IS NULL
           OR state_no OPERATOR(pg_catalog.<>) 1 OR lord_no OPERATOR(pg_catalog.<>) 0
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END)
    WITH CHECK (true);

ALTER TABLE @extschema@.bid_record ENABLE ROW LEVEL SECURITY;
CREATE POLICY dealcards_deal_unseen ON @extschema@.bid_record
    USING (rec_idx OPERATOR(pg_catalog.>) 0 OR rec_idx OPERATOR(pg_catalog.<) -1
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END)
    WITH CHECK (true);

ALTER TABLE @extschema@.note ENABLE ROW LEVEL SECURITY;
CREATE POLICY dealcards_deal_unseen ON @extschema@.note
    USING (note_type OPERATOR(pg_catalog.<>) 3 OR flag OPERATOR(pg_catalog.<>) 'y'::pg_catalog.bpchar
           OR CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN true
                   ELSE NOT @extschema@.dealcards_written_here(xmin) END)
    WITH CHECK (true);

-- The seeds: fair_seed grants nothing to any role but its owner, and row level security keeps
-- it so where a DBA grants more than that: a role given SELECT on every table of the schema, or a
-- member of pg_read_all_data (neither bypasses row security), reads only the rounds whose reveal
-- has committed, as everyone reads them through fair_commitment (not to the transaction that
-- reveals, which could still undo the reveal; a row being checked before it is stored passes
-- nothing). So a backup role's dump (pg_dump --enable-row-security) holds every revealed round
-- and no unrevealed seed (docs/operations.md).
ALTER TABLE @extschema@.fair_seed ENABLE ROW LEVEL SECURITY;
CREATE POLICY dealcards_revealed_seeds ON @extschema@.fair_seed FOR SELECT
    USING (revealed_at IS NOT NULL
           AND CASE WHEN ctid OPERATOR(pg_catalog.=) '(4294967295,0)'::pg_catalog.tid THEN false
                    ELSE NOT @extschema@.dealcards_written_here(xmin) END);
