//! The privileges of a game server's role: none at all on fair_seed, the table of the server
//! seeds.

use postgres::Client;

use crate::desks::database_with_extension;
use crate::server;

/// The privileges of a game server's role (`game_server` here), and no more, as
/// docs/provably_fair.md recommends. It reads every table and view but fair_seed; it opens desks
/// and may lock them (UPDATE on desk's cur_game_id: every function that deals, commits, reveals
/// or sets a seed locks the desk first, and then writes as the tables' owner); it seats players
/// and takes them away; it plays the bidding that follows a deal (a game's state, bids, notes).
/// It has no UPDATE or DELETE on games, none on the desk's provably fair columns, and nothing on
/// fair_seed, and it cannot write a player's client seed. It calls the extension's functions with
/// the EXECUTE every role has on a function by default. The extension is in schema public.
pub const GAME_SERVER_GRANTS: &str = "\
GRANT USAGE ON SCHEMA public TO game_server;
GRANT SELECT ON public.desk, public.desk_player, public.game, public.bid_record, public.note,
                public.fair_commitment, public.v_player_id_in_room TO game_server;
GRANT INSERT (desk_id), UPDATE (cur_game_id) ON public.desk TO game_server;
GRANT INSERT (desk_id, player_no, player_id), DELETE ON public.desk_player TO game_server;
GRANT UPDATE (state_no, lord_no) ON public.game TO game_server;
GRANT INSERT, UPDATE ON public.bid_record, public.note TO game_server;
GRANT USAGE ON SEQUENCE public.note_note_id_seq TO game_server;
";

/// `role`, created anew as a plain login role holding exactly [`GAME_SERVER_GRANTS`] in the
/// database `admin` is connected to.
pub fn create_game_server_role(admin: &mut Client, role: &str) {
    server::fresh_role(
        admin,
        role,
        "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
    );
    admin
        .batch_execute(&GAME_SERVER_GRANTS.replace("game_server", role))
        .unwrap();
}

/// A role holding exactly [`GAME_SERVER_GRANTS`] has no privilege on fair_seed, by table or by
/// column: what the secrecy tests' game server may do, it does through the functions alone.
#[test]
fn the_game_servers_role_has_no_privilege_on_fair_seed() {
    let db = "dealcards_fair_grants";
    let role = "dealcards_fair_grants_server";
    let mut admin = database_with_extension(db);
    create_game_server_role(&mut admin, role);
    for privilege in [
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "REFERENCES",
        "TRIGGER",
    ] {
        let has: bool = admin
            .query_one(
                "SELECT has_table_privilege($1, 'public.fair_seed', $2)
                     OR coalesce(CASE WHEN $2 IN ('SELECT', 'INSERT', 'UPDATE', 'REFERENCES')
                                      THEN has_any_column_privilege($1, 'public.fair_seed', $2)
                                 END, false)",
                &[&role, &privilege],
            )
            .unwrap()
            .get(0);
        assert!(!has, "{role} has {privilege} on fair_seed");
    }
}
