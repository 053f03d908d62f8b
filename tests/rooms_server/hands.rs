//! A database with the extension, a game server's role, and the cards of a hand: as stored, and
//! as the core deals them from the hand's key.

use postgres::Client;

use dealcards_core::rooms::{Destination, Hand, Kind};

use crate::server;

/// The privileges of a game server's role (`game_server` here), and no more, as
/// docs/card_rooms.md gives them: it reads the hands and their cards, and may lock a hand's row
/// (UPDATE on room_hand's table_id), which every hand function asks before it writes as the
/// tables' owner. Nothing on room_hand_key. The extension is in schema public.
pub const GAME_SERVER_GRANTS: &str = "\
GRANT USAGE ON SCHEMA public TO game_server;
GRANT SELECT ON public.room_hand, public.room_card TO game_server;
GRANT UPDATE (table_id) ON public.room_hand TO game_server;
";

/// A database of its own with the extension, a game server's role holding exactly
/// [`GAME_SERVER_GRANTS`], and connections as the superuser and as that role.
pub fn room(db: &str, role: &str) -> (Client, Client) {
    let mut admin = server::fresh_database(db);
    admin.batch_execute("CREATE EXTENSION dealcards").unwrap();
    server::fresh_role(
        &mut admin,
        role,
        "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
    );
    admin
        .batch_execute(&GAME_SERVER_GRANTS.replace("game_server", role))
        .unwrap();
    let game_server = server::connect_as(db, role);
    (admin, game_server)
}

/// One card as dealt: its stage, seat or pile, face up, place in the deck's order, index and
/// label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub stage: String,
    pub seat: Option<i16>,
    pub pile: Option<String>,
    pub up: bool,
    pub position: i32,
    pub card: i32,
    pub label: String,
}

/// A hand's cards as stored, in the order dealt (their numbers checked to run 1, 2, 3, ...).
pub fn stored_cards(client: &mut Client, hand: i64) -> Vec<Card> {
    let rows = client
        .query(
            "SELECT dealt_no, stage, seat, pile, face_up, position, card, label
               FROM room_card WHERE hand_id = $1 ORDER BY dealt_no",
            &[&hand],
        )
        .unwrap();
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            assert_eq!(r.get::<_, i32>(0), i as i32 + 1, "hand {hand}: dealt_no");
            Card {
                stage: r.get(1),
                seat: r.get(2),
                pile: r.get(3),
                up: r.get(4),
                position: r.get(5),
                card: r.get(6),
                label: r.get(7),
            }
        })
        .collect()
}

/// A hand's key, read as the tables' owner.
pub fn key_of(admin: &mut Client, hand: i64) -> [u8; 32] {
    let key: Vec<u8> = admin
        .query_one("SELECT key FROM room_hand_key WHERE hand_id = $1", &[&hand])
        .unwrap()
        .get(0);
    key.try_into().expect("a key of 32 bytes")
}

/// A call the core makes on a hand: the next stage, or a draw of `n` cards to a seat.
#[derive(Clone, Copy, Debug)]
pub enum Call {
    Deal,
    Draw(usize, usize),
}

/// The cards the core deals for `key` with these calls, in order.
pub fn core_cards(kind: Kind, dealer: usize, key: [u8; 32], calls: &[Call]) -> Vec<Card> {
    let mut hand = Hand::new(kind, dealer, key).unwrap();
    let mut cards = Vec::new();
    for call in calls {
        let dealt = match *call {
            Call::Deal => hand.deal_next().unwrap(),
            Call::Draw(seat, n) => hand.draw(seat, n).unwrap(),
        };
        let stage = hand.kind().stages()[hand.stages_dealt() - 1].name.clone();
        cards.extend(dealt.iter().map(|d| Card {
            stage: stage.clone(),
            seat: match d.to {
                Destination::Seat(s) => Some(s as i16),
                Destination::Pile(_) => None,
            },
            pile: match d.to {
                Destination::Seat(_) => None,
                Destination::Pile(p) => Some(p.name().to_string()),
            },
            up: d.up,
            position: d.position as i32,
            card: d.card as i32,
            label: hand.label(d).to_string(),
        }));
    }
    cards
}

/// Asserts that no place in the deck and no card was dealt twice.
pub fn assert_each_once(cards: &[Card]) {
    let mut positions: Vec<i32> = cards.iter().map(|c| c.position).collect();
    let mut indexes: Vec<i32> = cards.iter().map(|c| c.card).collect();
    positions.sort_unstable();
    positions.dedup();
    indexes.sort_unstable();
    indexes.dedup();
    assert_eq!(positions.len(), cards.len(), "a place dealt twice");
    assert_eq!(indexes.len(), cards.len(), "a card dealt twice");
}

/// Deals the hand's next stage (or the stage named) and returns the stage and the count.
pub fn deal(client: &mut Client, hand: i64, stage: Option<&str>) -> (String, i32) {
    let row = client
        .query_one(
            "SELECT dealt_stage, cards FROM hand_deal($1, $2)",
            &[&hand, &stage],
        )
        .unwrap_or_else(|e| panic!("hand_deal({hand}, {stage:?}): {e}"));
    (row.get(0), row.get(1))
}

/// Draws `n` cards to `seat`; returns (cards, cards left, cut card out).
pub fn draw(client: &mut Client, hand: i64, seat: i32, n: i32) -> (i32, i32, Option<bool>) {
    let row = client
        .query_one(
            "SELECT cards, cards_left, cut_card_out FROM hand_draw($1, $2, $3)",
            &[&hand, &seat, &n],
        )
        .unwrap_or_else(|e| panic!("hand_draw({hand}, {seat}, {n}): {e}"));
    (row.get(0), row.get(1), row.get(2))
}

/// Starts a hand with the arguments of `hand_start` written out (after the table id).
pub fn start(client: &mut Client, args: &str) -> i64 {
    client
        .query_one(&format!("SELECT hand_start(1, {args})"), &[])
        .unwrap_or_else(|e| panic!("hand_start(1, {args}): {e}"))
        .get(0)
}
