//! A dump and restore keeps every round, the commitment in force, its nonce and its seed; the
//! restored database deals nothing under a round that was in force in the dump until that round
//! is revealed there (at the source it may have been revealed since the dump, its seed public),
//! whether the restore goes to another database or over the source with --clean, and whatever a
//! connection kept of the round.

use crate::desks::{
    all_verified, all_verified_or_pending, assert_games_recompute, database_with_extension, deal,
    parse_dealt, seat, shown_seed,
};
use crate::server;
use postgres::Client;

#[test]
fn dump_and_restore_keep_the_commitment_its_nonce_and_its_seed() {
    const DESK: i32 = 5;
    let from = "dealcards_fair_dumped";
    let into = "dealcards_fair_restored";
    let mut original = database_with_extension(from);
    seat(&mut original, DESK, &[1, 2, 3]);
    let (in_force, secret) = deal_two_rounds(&mut original, DESK);
    let acl = "SELECT relacl::text FROM pg_class WHERE oid = 'public.fair_seed'::regclass";
    let original_acl: Option<String> = original.query_one(acl, &[]).unwrap().get(0);
    let before = all_verified_or_pending(&mut original, DESK);
    assert_eq!(before.len(), 5);

    server::fresh_database(into);
    server::dump_and_restore(from, into);
    let mut copy = server::connect_as(into, &server::dsn_setting("user"));
    // The seeds stay the owner's only.
    let copy_acl: Option<String> = copy.query_one(acl, &[]).unwrap().get(0);
    assert_eq!(copy_acl, original_acl);
    let public_may: bool = copy
        .query_one(
            "SELECT has_table_privilege('public', 'public.fair_seed', 'SELECT')",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(!public_may);
    assert_eq!(all_verified_or_pending(&mut copy, DESK), before);

    // At the source, the round in force is revealed after the dump: its seed is public.
    original
        .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    // The copy deals nothing under it: whoever read the seed would know every deal to come.
    let refused = copy.query("SELECT deal_cards($1)", &[&DESK]).unwrap_err();
    let db = refused.as_db_error().unwrap();
    assert_eq!(db.code().code(), "55000", "{db:?}");
    assert!(
        db.message().contains("committed on another server"),
        "{db:?}"
    );
    assert!(db.hint().unwrap().contains("fair_reveal(5)"), "{db:?}");
    assert_eq!(all_verified_or_pending(&mut copy, DESK), before);

    reveal_in_the_copy_and_deal_on(&mut copy, DESK, &in_force, &secret, &before);
    drop(copy);
    original
        .batch_execute(&format!("DROP DATABASE {into} WITH (FORCE)"))
        .unwrap();
}

/// Two rounds at `desk`, the first revealed: each statement its own transaction, since a deal
/// uses seeds committed before it. The commitment in force and its server seed.
fn deal_two_rounds(original: &mut Client, desk: i32) -> (Vec<u8>, Vec<u8>) {
    for sql in [
        "SELECT fair_mode_on($1, seeds_required => false)",
        "SELECT set_client_seed($1, 1, 'Zoë')",
        "SELECT deal_cards($1)",
        "SELECT deal_cards($1)",
        "SELECT deal_cards($1)",
        "SELECT * FROM fair_reveal($1)",
        "SELECT set_client_seed($1, 2, '牌')",
        "SELECT deal_cards($1)",
        "SELECT deal_cards($1)",
    ] {
        original.execute(sql, &[&desk]).unwrap();
    }
    let in_force: Vec<u8> = original
        .query_one(
            "SELECT fair_commitment FROM desk WHERE desk_id = $1",
            &[&desk],
        )
        .unwrap()
        .get(0);
    let secret: Vec<u8> = original
        .query_one(
            "SELECT server_seed FROM fair_seed WHERE commitment = $1 AND revealed_at IS NULL",
            &[&in_force],
        )
        .unwrap()
        .get(0);
    (in_force, secret)
}

/// The step after a restore: the reveal ends the round and commits to the next one, here.
fn reveal_in_the_copy_and_deal_on(
    copy: &mut Client,
    desk: i32,
    in_force: &[u8],
    secret: &[u8],
    before: &[i64],
) {
    let row = copy
        .query_one("SELECT round, commitment FROM fair_reveal($1)", &[&desk])
        .unwrap();
    assert_eq!(row.get::<_, Vec<u8>>(1), in_force);
    assert_eq!(shown_seed(copy, desk, row.get(0)), Some(secret.to_vec()));
    assert_games_recompute(copy, desk, in_force, secret, 2);
    assert_eq!(all_verified(copy, desk), before);
    // The next commitment starts at nonce 0, with the numbering going on.
    let result = deal(copy, desk);
    let (_, game, commitment, nonce) = parse_dealt(&result);
    assert_ne!(commitment, hex::encode(in_force));
    assert_eq!(nonce, 0);
    assert!(
        game > *before.iter().max().unwrap(),
        "game numbering restarted"
    );
}

#[test]
fn a_restore_over_the_source_deals_nothing_under_the_round_a_connection_kept() {
    const DESK: i32 = 6;
    let db = "dealcards_fair_restored_over";
    let mut dealer = database_with_extension(db);
    seat(&mut dealer, DESK, &[1, 2, 3]);
    for sql in [
        "SELECT fair_mode_on($1, seeds_required => false)",
        "SELECT deal_cards($1)",
    ] {
        dealer.execute(sql, &[&DESK]).unwrap();
    }
    // This connection dealt under the round, and keeps its seed for the next deal. The database
    // is dumped and restored over itself (--clean), the connection still open.
    let dump = std::env::temp_dir().join(format!("dealcards-{db}-{}.dump", std::process::id()));
    let mut args = server::program_args(db);
    args.extend([
        "--format=custom".into(),
        format!("--file={}", dump.display()),
    ]);
    server::run_program("pg_dump", &args);
    let mut args = server::program_args(db);
    args.extend([
        "--clean".into(),
        "--if-exists".into(),
        "--exit-on-error".into(),
        dump.display().to_string(),
    ]);
    server::run_program("pg_restore", &args);
    std::fs::remove_file(&dump).unwrap();
    let refused = dealer.query("SELECT deal_cards($1)", &[&DESK]).unwrap_err();
    let error = refused.as_db_error().unwrap();
    assert_eq!(error.code().code(), "55000", "{error:?}");
    assert!(
        error.message().contains("committed on another server"),
        "{error:?}"
    );
    // A new connection alike; after the reveal, both deal.
    let mut other = server::connect_as(db, &server::dsn_setting("user"));
    let refused = other.query("SELECT deal_cards($1)", &[&DESK]).unwrap_err();
    assert_eq!(refused.code().unwrap().code(), "55000");
    other
        .execute("SELECT * FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    assert_eq!(parse_dealt(&deal(&mut dealer, DESK)).3, 0);
    assert_eq!(parse_dealt(&deal(&mut other, DESK)).3, 1);
    drop((dealer, other));
    let mut admin = server::connect_as("postgres", &server::dsn_setting("user"));
    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .unwrap();
}
