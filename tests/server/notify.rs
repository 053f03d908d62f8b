//! The notifications a listening connection receives (shared by every suite of server tests).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::Client;

/// The notifications `client` receives until `quiet` passes without one, as (channel, payload).
pub fn notifications(client: &mut Client, quiet: Duration) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    let mut waiting = client.notifications();
    let mut iter = waiting.timeout_iter(quiet);
    while let Some(note) = iter.next().unwrap() {
        notes.push((note.channel().to_string(), note.payload().to_string()));
    }
    notes
}

/// The notifications `client` receives until `count` have come (or a minute passed: a loaded
/// machine delivers late, never a minute late), then any more that follow within `quiet`. For
/// notifications a test expects: a quiet period alone would end early on a slow machine.
pub fn expected_notifications(
    client: &mut Client,
    count: usize,
    quiet: Duration,
) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while notes.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let mut waiting = client.notifications();
        let next = waiting.timeout_iter(left).next().unwrap();
        match next {
            Some(note) => notes.push((note.channel().to_string(), note.payload().to_string())),
            None => break,
        }
    }
    notes.extend(notifications(client, quiet));
    notes
}
