//! No card reaches the game server before the transaction that dealt it commits, and no key
//! ever does; a rollback deals the same cards again.

use postgres::error::SqlState;
use postgres::Client;

use crate::hands::{deal, key_of, room, start, stored_cards};
use crate::server;

/// Runs `sql` and returns every value of every row as text (each column cast to text).
fn texts(client: &mut Client, sql: &str) -> Vec<String> {
    client
        .simple_query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .iter()
        .filter_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => Some(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("NULL").to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
            _ => None,
        })
        .collect()
}

/// The turn dealt in an open transaction: the game server's reads of the cards (the table, a
/// view of its own, the function's result, an error naming the stage) show none of it, nor do
/// they after a rollback; once dealt again and committed, the turn is there, and the same cards
/// as the owner saw dealt in a transaction it rolled back.
#[test]
fn the_game_server_sees_no_card_before_the_commit() {
    let (mut admin, mut server) = room("dealcards_rooms_unseen", "dealcards_rooms_unseen_server");
    let hand = start(&mut server, "'holdem', 9");
    deal(&mut server, hand, None);
    deal(&mut server, hand, None);
    // The owner deals the turn, reads it and rolls back: the cards the turn will be.
    admin.batch_execute("BEGIN").unwrap();
    deal(&mut admin, hand, None);
    let turn: Vec<_> = stored_cards(&mut admin, hand).split_off(22);
    assert_eq!(turn.len(), 2);
    admin.batch_execute("ROLLBACK").unwrap();

    server.batch_execute("BEGIN").unwrap();
    server
        .batch_execute("CREATE VIEW pg_temp.cards AS SELECT * FROM room_card")
        .unwrap();
    let mut received = texts(&mut server, &format!("SELECT * FROM hand_deal({hand})"));
    assert_eq!(received, ["turn|2|28|NULL"]);
    for sql in [
        format!("SELECT * FROM room_card WHERE hand_id = {hand}"),
        "SELECT * FROM pg_temp.cards".to_string(),
    ] {
        let rows = texts(&mut server, &sql);
        assert_eq!(rows.len(), 22, "{sql}: {rows:?}");
        received.extend(rows);
    }
    received.extend(texts(
        &mut server,
        &format!("SELECT * FROM room_hand WHERE hand_id = {hand}"),
    ));
    assert_eq!(stored_cards(&mut server, hand).len(), 22);
    server.batch_execute("SAVEPOINT again").unwrap();
    let err = server
        .batch_execute(&format!("SELECT * FROM hand_deal({hand}, 'turn')"))
        .expect_err("the turn dealt twice");
    assert_eq!(
        err.code(),
        Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)
    );
    let db = err.as_db_error().unwrap();
    received.push(format!(
        "{} {:?} {:?}",
        db.message(),
        db.detail(),
        db.hint()
    ));
    server.batch_execute("ROLLBACK").unwrap();
    for text in &received {
        let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        for card in &turn {
            assert!(
                !words.contains(&card.label.as_str()),
                "the turn's {} shows in {text}",
                card.label
            );
        }
    }
    // After the rollback the turn is dealt again, committed, and is the same.
    deal(&mut server, hand, None);
    let committed = stored_cards(&mut server, hand).split_off(22);
    assert_eq!(committed, turn);
}

/// A bridge board dealt in an open transaction: its PBN is refused there (55000, no card
/// shown), and after the commit it is written.
#[test]
fn a_board_has_no_pbn_before_its_deal_commits() {
    let (_admin, mut server) = room("dealcards_rooms_pbn", "dealcards_rooms_pbn_server");
    let hand = start(&mut server, "'bridge', board => 1");
    server.batch_execute("BEGIN").unwrap();
    deal(&mut server, hand, None);
    let err = server
        .batch_execute(&format!("SELECT hand_pbn({hand})"))
        .expect_err("a PBN before the commit");
    assert_eq!(
        err.code(),
        Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)
    );
    let db = err.as_db_error().unwrap();
    assert!(
        db.message().contains("shows 0 of its 52"),
        "{}",
        db.message()
    );
    server.batch_execute("ROLLBACK").unwrap();
    deal(&mut server, hand, None);
    let pbn: String = server
        .query_one("SELECT hand_pbn($1)", &[&hand])
        .unwrap()
        .get(0);
    assert!(
        pbn.starts_with("[Board \"1\"]\n[Dealer \"N\"]\n[Vulnerable \"None\"]\n[Deal \"N:"),
        "{pbn}"
    );
    let deal = pbn.rsplit_once("N:").unwrap().1;
    let ranks = deal
        .chars()
        .filter(|c| "AKQJT98765432".contains(*c))
        .count();
    assert_eq!(ranks, 52, "{pbn}");
}

/// The keys: the game server may not read them (42501), and a role given SELECT on every
/// table of the schema and pg_read_all_data reads no row, where the owner reads each.
#[test]
fn no_role_but_the_owner_reads_a_key() {
    let (mut admin, mut server) = room("dealcards_rooms_keys", "dealcards_rooms_keys_server");
    let hand = start(&mut server, "'bridge', board => 1");
    key_of(&mut admin, hand);
    let err = server
        .query("SELECT * FROM room_hand_key", &[])
        .expect_err("the game server read the keys");
    assert_eq!(err.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE));
    let reader = "dealcards_rooms_keys_reader";
    server::fresh_role(&mut admin, reader, "LOGIN");
    admin
        .batch_execute(&format!(
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader};
             GRANT pg_read_all_data TO {reader};"
        ))
        .unwrap();
    let mut reader = server::connect_as("dealcards_rooms_keys", reader);
    let keys: i64 = reader
        .query_one("SELECT count(*) FROM room_hand_key", &[])
        .unwrap()
        .get(0);
    assert_eq!(keys, 0);
    let owner: i64 = admin
        .query_one("SELECT count(*) FROM room_hand_key", &[])
        .unwrap()
        .get(0);
    assert_eq!(owner, 1);
}

/// A game server that can act as a role with BYPASSRLS (here by membership) could read the
/// cards in the transaction that dealt them: it is refused (42501), and nothing is dealt.
#[test]
fn a_session_that_could_see_the_cards_may_not_deal() {
    let db = "dealcards_rooms_seers";
    let (mut admin, mut server) = room(db, "dealcards_rooms_seers_server");
    let hand = start(&mut server, "'holdem', 2");
    let bypass = "dealcards_rooms_seers_bypass";
    server::fresh_role(&mut admin, bypass, "NOLOGIN BYPASSRLS");
    admin
        .batch_execute(&format!("GRANT {bypass} TO dealcards_rooms_seers_server"))
        .unwrap();
    let mut server = server::connect_as(db, "dealcards_rooms_seers_server");
    let err = server
        .query(&format!("SELECT * FROM hand_deal({hand})"), &[])
        .expect_err("a member of a BYPASSRLS role dealt");
    assert_eq!(err.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE));
    let message = err.as_db_error().unwrap().message();
    assert!(message.contains("BYPASSRLS"), "{message}");
    assert!(stored_cards(&mut admin, hand).is_empty());
}

/// A view of the owner's that is not security_invoker reads the cards with the owner's rights,
/// which row level security does not restrict: in the transaction that dealt, the game server's
/// read through it is refused (42501), and so is ANALYZE (55000); after the commit it reads the
/// cards.
#[test]
fn a_view_of_the_owner_shows_nothing_before_the_commit() {
    let db = "dealcards_rooms_owner_view";
    let (mut admin, mut server) = room(db, "dealcards_rooms_owner_view_server");
    admin
        .batch_execute(
            "CREATE VIEW public.every_card AS SELECT * FROM room_card;
             GRANT SELECT ON public.every_card TO dealcards_rooms_owner_view_server",
        )
        .unwrap();
    let hand = start(&mut server, "'holdem', 3");
    server.batch_execute("BEGIN").unwrap();
    deal(&mut server, hand, None);
    let err = server
        .query("SELECT count(*) FROM public.every_card", &[])
        .expect_err("the owner's view read the cards");
    assert_eq!(err.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE));
    server.batch_execute("ROLLBACK; BEGIN").unwrap();
    deal(&mut server, hand, None);
    let err = server
        .batch_execute("ANALYZE room_card")
        .expect_err("ANALYZE sampled the cards");
    assert_eq!(
        err.code(),
        Some(&SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE)
    );
    server.batch_execute("ROLLBACK").unwrap();
    deal(&mut server, hand, None);
    let seen: i64 = server
        .query_one("SELECT count(*) FROM public.every_card", &[])
        .unwrap()
        .get(0);
    assert_eq!(seen, 6);
}
