//! pg_dump as the game server's role prints no unrevealed server seed.

use crate::secrecy::{pg_dump_as, FairDesks};

/// pg_dump as the role may fail, but prints no seed, in its output or its errors.
#[test]
fn pg_dump_as_the_game_server_prints_no_unrevealed_seed() {
    let FairDesks {
        db,
        role,
        notices,
        mut received,
        commitments,
        secrets,
        ..
    } = FairDesks::new("dealcards_fair_dump", "dealcards_fair_dump_server");
    // pg_dump as the role: it may fail, but must not print a seed, in its output or its errors.
    // Without its sequences (the role has USAGE on them, not SELECT) a dump is refused
    // fair_seed, whose rows come before the desks that refer to them; without fair_seed too it
    // stops at the first table with row security (pg_dump refuses to dump part of a table),
    // and with --enable-row-security it copies the desks, with their commitments.
    let mut reached_commitments = false;
    for extra in [
        &[][..],
        &["--exclude-table=*_seq"],
        &["--exclude-table=*_seq", "--data-only"],
        &["--exclude-table=*_seq", "--exclude-table=fair_seed"],
        &[
            "--exclude-table=*_seq",
            "--exclude-table=fair_seed",
            "--enable-row-security",
        ],
        &["--table=fair_seed"],
        &["--table=fair_commitment"],
    ] {
        let (ok, out, err) = pg_dump_as(db, role, extra);
        if extra.contains(&"--table=fair_seed") {
            assert!(
                !ok && err.contains("permission denied for table fair_seed"),
                "{err}"
            );
        }
        reached_commitments |= out.contains(&hex::encode(&commitments[&1]));
        received.add(format!("pg_dump {extra:?} (succeeded: {ok})"), out);
        received.add(format!("pg_dump {extra:?} errors"), err);
    }
    assert!(
        reached_commitments,
        "no dump as the role got to the tables' data: the check would prove little"
    );

    for notice in notices.lock().unwrap().drain(..) {
        received.add("a notice", notice);
    }
    received.assert_none_of(&secrets);
}
