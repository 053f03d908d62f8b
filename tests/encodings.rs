#![cfg(feature = "server_tests")]
//! Text the extension returns is valid in the database's encoding, whatever it is: suits are
//! symbols in UTF8 and letters elsewhere, text arguments in other encodings give ordinary
//! errors, and a database that stored the extension's text dumps and restores whole.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN and
//! DEALCARDS_PG_BIN).

mod server;

use postgres::Client;

/// A database of `encoding`, with the extension.
fn database(name: &str, encoding: &str) -> Client {
    let mut client = server::fresh_database_in(name, encoding);
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    client
}

/// The labels a database of this encoding gets: a card, a hand, and the first card of
/// FreeCell's game 1 as its board shows it.
fn expected_labels(encoding: &str) -> (&'static str, &'static str, &'static str) {
    if encoding == "UTF8" {
        ("10♥", "3♣ 3♠ 10♥ A♣ 2♠ BJ RJ", " J♦ ")
    } else {
        ("10H", "3C 3S 10H AC 2S BJ RJ", " JD ")
    }
}

#[test]
fn labels_are_valid_in_every_encoding_and_survive_a_dump() {
    for encoding in ["UTF8", "LATIN1", "WIN1251", "EUC_JP", "SQL_ASCII"] {
        let db = format!("dealcards_enc_{}", encoding.to_lowercase());
        let mut client = database(&db, encoding);
        let (card, hand, first) = expected_labels(encoding);
        // The client reads UTF-8; the server converts from the database's encoding, which
        // fails on text that is not valid in it.
        let row = client
            .query_one(
                "SELECT card_label(39), hand_labels(ARRAY[54, 1, 9, 12, 8, 53, 39]),
                        (SELECT string_agg(r, '|') FROM freecell_board(1) r)",
                &[],
            )
            .unwrap_or_else(|e| panic!("{encoding}: {e}"));
        assert_eq!(row.get::<_, String>(0), card, "{encoding}");
        assert_eq!(row.get::<_, String>(1), hand, "{encoding}");
        let board: String = row.get(2);
        assert!(board.starts_with(first), "{encoding}: {board}");

        // Stored text, in a table of the user's and in the extension's own, dumped and restored.
        client
            .batch_execute(
                "CREATE TABLE shown AS
                   SELECT c, card_label(c) AS label, hand_labels(ARRAY[c, 54]) AS hand
                     FROM generate_series(1, 54) c;
                 INSERT INTO desk VALUES (1);
                 INSERT INTO desk_player VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3);
                 SELECT deal_cards(1);
                 INSERT INTO note (desk_id, player_no, note_type, flag, body)
                   SELECT 1, 1, 9, 'y', hand_labels(p1_cards) FROM game;",
            )
            .unwrap();
        let restored = format!("{db}_restored");
        database(&restored, encoding)
            .batch_execute("DROP EXTENSION dealcards")
            .unwrap();
        server::dump_and_restore(&db, &restored);
        let mut copy = server::connect_as(&restored, &server::dsn_setting("user"));
        let sql = "SELECT (SELECT string_agg(label || ':' || hand, ',' ORDER BY c) FROM shown),
                          (SELECT string_agg(body, ',' ORDER BY note_id) FROM note)";
        let original = client.query_one(sql, &[]).unwrap();
        let copied = copy.query_one(sql, &[]).unwrap();
        for column in 0..2 {
            let a: Option<String> = original.get(column);
            assert!(a.is_some(), "{encoding}: nothing stored");
            assert_eq!(a, copied.get::<_, Option<String>>(column), "{encoding}");
        }
    }
}

/// A queue mode given as bytes that are not UTF-8 (valid in the database's own encoding) is an
/// unknown mode, 22023, like any other.
#[test]
fn text_arguments_in_other_encodings_give_ordinary_errors() {
    for (encoding, bytes) in [("LATIN1", "e9"), ("EUC_JP", "a4a2"), ("SQL_ASCII", "ff")] {
        let db = format!("dealcards_enc_arg_{}", encoding.to_lowercase());
        let mut client = database(&db, encoding);
        let error = client
            .batch_execute(&format!(
                "SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[],
                        convert_from('\\x{bytes}'::bytea, '{encoding}'))"
            ))
            .unwrap_err();
        let error = error.as_db_error().expect("an error from the server");
        assert_eq!(
            error.code().code(),
            "22023",
            "{encoding}: {}",
            error.message()
        );
        assert!(
            error.message().starts_with("unknown shuffle queue mode"),
            "{}",
            error.message()
        );
        // The ASCII modes work in every encoding.
        let queue: i64 = client
            .query_one(
                "SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[], 'random', 1)",
                &[],
            )
            .unwrap()
            .get(0);
        assert!(queue > 0);
    }
}

/// A fair deal's client seeds are their UTF-8 bytes in every database encoding: the same deal
/// as in a UTF8 database (and as the independent implementation's golden deal), and a desk in
/// provably fair mode verifies after the reveal.
#[test]
fn client_seeds_are_utf8_in_every_encoding() {
    // From tests/reference/fair_golden.json: server seed 00 01 .. 1f, nonce 2.
    let golden_p1 = [
        31, 8, 28, 52, 18, 4, 26, 39, 10, 43, 13, 20, 6, 54, 53, 46, 37,
    ];
    let deal_of = |client: &mut Client, seeds: &[&str]| -> Vec<i32> {
        client
            .query_one(
                "SELECT p1_cards FROM fair_deal(decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex'), $1, 2)",
                &[&seeds],
            )
            .unwrap()
            .get(0)
    };
    let mut utf8 = database("dealcards_fair_reference", "UTF8");
    assert_eq!(deal_of(&mut utf8, &["alice", "", "Zoë"]), golden_p1);
    for (encoding, seed) in [
        ("UTF8", "Zoë"),
        ("LATIN1", "Zoë"),
        ("WIN1251", "Жора"),
        ("EUC_JP", "牌"),
        ("SQL_ASCII", "Zoë"),
    ] {
        let db = format!("dealcards_fair_{}", encoding.to_lowercase());
        let mut client = database(&db, encoding);
        let seeds = ["alice", "", seed];
        assert_eq!(
            deal_of(&mut client, &seeds),
            deal_of(&mut utf8, &seeds),
            "{encoding}: {seed}"
        );
        // Seat 2 is the house's (its seed the empty one); each statement its own transaction,
        // as a deal uses seeds committed before it.
        client
            .batch_execute(
                "INSERT INTO desk VALUES (1);
                 INSERT INTO desk_player VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3);
                 SELECT fair_mode_on(1, house_seats => '{2}');",
            )
            .unwrap();
        client
            .batch_execute("SELECT set_client_seed(1, 1, 'alice')")
            .unwrap();
        client
            .execute("SELECT set_client_seed(1, 3, $1)", &[&seed])
            .unwrap_or_else(|e| panic!("{encoding}: {e}"));
        for step in [
            "SELECT deal_cards(1)",
            "SELECT deal_cards(1)",
            "SELECT fair_reveal(1)",
        ] {
            client
                .batch_execute(step)
                .unwrap_or_else(|e| panic!("{encoding}: {step}: {e}"));
        }
        let stored: Vec<String> = client
            .query_one("SELECT client_seeds FROM game LIMIT 1", &[])
            .unwrap()
            .get(0);
        assert_eq!(stored, seeds, "{encoding}");
        let verified: Vec<Option<bool>> = client
            .query("SELECT verified FROM fair_verify_desk(1)", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(verified, [Some(true), Some(true)], "{encoding}");
    }
}

/// A spread queue's group names are stored as the text given, in every encoding: a track added
/// to a group by its name joins that group's unit (no new one), and the saved state names it in
/// UTF-8.
#[test]
fn group_names_in_other_encodings_are_stored_as_given() {
    for (encoding, bytes, utf8) in [
        ("LATIN1", "5a6feb", "Zoë"),
        ("EUC_JP", "a4a2", "あ"),
        ("UTF8", "5a6fc3ab", "Zoë"),
        ("SQL_ASCII", "41", "A"),
    ] {
        let db = format!("dealcards_enc_groups_{}", encoding.to_lowercase());
        let mut client = database(&db, encoding);
        let name = format!("convert_from('\\x{bytes}'::bytea, '{encoding}')");
        let queue: i64 = client
            .query_one(
                &format!(
                    "SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[],
                            groups => ARRAY[{name}, 'b', {name}])"
                ),
                &[],
            )
            .unwrap()
            .get(0);
        let units = |c: &mut Client| -> i64 {
            c.query_one(
                "SELECT count(*) FROM shuffle_queue_unit WHERE queue_id = $1",
                &[&queue],
            )
            .unwrap()
            .get(0)
        };
        assert_eq!(units(&mut client), 2, "{encoding}");
        client
            .execute(
                &format!("SELECT shuffle_queue_add($1, 4, {name})"),
                &[&queue],
            )
            .unwrap();
        assert_eq!(units(&mut client), 2, "{encoding}: the add made a new unit");
        let saved: String = client
            .query_one("SELECT shuffle_queue_save($1)::text", &[&queue])
            .unwrap()
            .get(0);
        assert!(
            saved.contains(&format!("\"name\": \"{utf8}\"")),
            "{encoding}: {saved}"
        );
    }
}
