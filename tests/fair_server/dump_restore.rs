//! A dump and restore keeps the commitment in force, its nonce and its seed.

use crate::desks::{
    all_verified, all_verified_or_pending, assert_games_recompute, database_with_extension, deal,
    hex, parse_dealt, seat, shown_seed,
};
use crate::server;

#[test]
fn dump_and_restore_keep_the_commitment_its_nonce_and_its_seed() {
    const DESK: i32 = 5;
    let from = "dealcards_fair_dumped";
    let into = "dealcards_fair_restored";
    let mut original = database_with_extension(from);
    seat(&mut original, DESK, &[1, 2, 3]);
    // Each statement its own transaction: a deal uses seeds committed before it.
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
        original.execute(sql, &[&DESK]).unwrap();
    }
    let in_force: Vec<u8> = original
        .query_one(
            "SELECT fair_commitment FROM desk WHERE desk_id = $1",
            &[&DESK],
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

    // Dealing goes on under the same commitment with the next nonce and the same client seeds,
    // and the reveal shows the same seed.
    let result = deal(&mut copy, DESK);
    let (_, game, commitment, nonce) = parse_dealt(&result);
    assert_eq!(commitment, hex(&in_force));
    assert_eq!(nonce, 2);
    let seeds: serde_json::Value = serde_json::from_str(&result).unwrap();
    assert_eq!(
        seeds["client_seeds"],
        serde_json::json!(["", hex("牌".as_bytes()), ""])
    );
    assert!(
        game > *before.iter().max().unwrap(),
        "game numbering restarted"
    );
    let row = copy
        .query_one("SELECT round, commitment FROM fair_reveal($1)", &[&DESK])
        .unwrap();
    assert_eq!(row.get::<_, Vec<u8>>(1), in_force);
    assert_eq!(
        shown_seed(&mut copy, DESK, row.get(0)),
        Some(secret.clone())
    );
    assert_games_recompute(&mut copy, DESK, &in_force, &secret, 3);
    let mut all = before.clone();
    all.push(game);
    assert_eq!(all_verified(&mut copy, DESK), all);
    // The next commitment starts at nonce 0.
    assert_eq!(parse_dealt(&deal(&mut copy, DESK)).3, 0);
    drop(copy);
    original
        .batch_execute(&format!("DROP DATABASE {into} WITH (FORCE)"))
        .unwrap();
}
