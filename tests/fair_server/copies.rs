//! A copy of a database (`CREATE DATABASE ... TEMPLATE`) keeps the server's token and timeline
//! with its rounds, but it is another place: it deals nothing under the round that was in force
//! when it was copied (the original may have revealed it since, its seed public) until that
//! round is revealed in the copy. The original deals on under the round, and once the copy has
//! revealed it, the copy deals under a round of its own.
//!
//! The copy of a whole data directory (a base backup started as a primary) is in the operations
//! suite (tests/ops/standby.rs); a crash and a restart keep the place (tests/ops/crash.rs).

use crate::desks::{all_verified, all_verified_or_pending, deal, parse_dealt, seat};
use crate::server;

#[test]
fn a_template_copy_deals_nothing_under_the_round_in_force_until_revealed_there() {
    const DESK: i32 = 7;
    let from = "dealcards_fair_template_source";
    let into = "dealcards_fair_template_copy";
    let mut original = crate::desks::database_with_extension(from);
    seat(&mut original, DESK, &[1, 2, 3]);
    original
        .execute("SELECT fair_mode_on($1, seeds_required => false)", &[&DESK])
        .unwrap();
    assert_eq!(parse_dealt(&deal(&mut original, DESK)).3, 0);
    // The copy: CREATE DATABASE wants no other connection to its template.
    drop(original);
    let mut admin = server::connect();
    for sql in [
        format!("DROP DATABASE IF EXISTS {into} WITH (FORCE)"),
        format!("CREATE DATABASE {into} TEMPLATE {from}"),
    ] {
        admin
            .batch_execute(&sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let user = server::dsn_setting("user");
    let mut original = server::connect_as(from, &user);
    let mut copy = server::connect_as(into, &user);
    let same =
        "SELECT token::text || ' ' || (SELECT string_agg(timeline::text, ',') FROM fair_seed)
                  FROM dealcards_instance";
    let token: String = original.query_one(same, &[]).unwrap().get(0);
    assert_eq!(
        copy.query_one(same, &[]).unwrap().get::<_, String>(0),
        token
    );

    // The original deals on under its round, then reveals it: its seed is public.
    assert_eq!(parse_dealt(&deal(&mut original, DESK)).3, 1);
    original
        .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    let before = all_verified_or_pending(&mut copy, DESK);
    let refused = copy
        .query("SELECT deal_cards($1)", &[&DESK])
        .expect_err("the copy dealt under the round in force at the copy");
    let db = refused.as_db_error().unwrap();
    assert_eq!(db.code().code(), "55000", "{db:?}");
    assert!(
        db.message().contains("another database or data directory"),
        "{db:?}"
    );
    assert!(db.hint().unwrap().contains("fair_reveal(7)"), "{db:?}");
    assert_eq!(all_verified_or_pending(&mut copy, DESK), before);

    // The step after a copy: the reveal there, then the copy deals under a round of its own.
    copy.execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    assert_eq!(all_verified(&mut copy, DESK), before);
    assert_eq!(parse_dealt(&deal(&mut copy, DESK)).3, 0);
    assert_eq!(parse_dealt(&deal(&mut original, DESK)).3, 0);
    drop((original, copy));
    for db in [into, from] {
        admin
            .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
            .unwrap();
    }
}
