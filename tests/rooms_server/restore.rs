//! A dump of the database keeps its hands, their cards and keys, and the numbering: a restored
//! hand deals on with the cards of its key.

use dealcards_core::rooms::kinds;

use crate::hands::{core_cards, deal, key_of, room, start, stored_cards, Call};
use crate::server;

#[test]
fn a_restored_hand_deals_on_with_its_key() {
    let db = "dealcards_rooms_dumped";
    // The restored database of an earlier run holds grants to the role, which room() makes anew.
    let into = "dealcards_rooms_restored";
    server::fresh_database(into);
    let (mut admin, mut game_server) = room(db, "dealcards_rooms_dumped_server");
    let hand = start(&mut game_server, "'holdem', 4");
    deal(&mut game_server, hand, None);
    deal(&mut game_server, hand, None);
    let before = stored_cards(&mut admin, hand);
    let key = key_of(&mut admin, hand);
    server::dump_and_restore(db, into);
    let user = server::dsn_setting("user");
    let mut restored = server::connect_as(into, &user);
    assert_eq!(stored_cards(&mut restored, hand), before);
    assert_eq!(key_of(&mut restored, hand), key);
    assert_eq!(deal(&mut restored, hand, None), ("turn".to_string(), 2));
    let expected = core_cards(kinds::holdem(4).unwrap(), 1, key, &[Call::Deal; 3]);
    assert_eq!(stored_cards(&mut restored, hand), expected);
    let next = start(&mut restored, "'holdem', 2");
    assert!(next > hand, "hand {next} numbered after hand {hand}");
}
