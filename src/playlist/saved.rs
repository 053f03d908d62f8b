//! A queue's whole state as JSON (shuffle_queue_save) and a queue made from it
//! (shuffle_queue_restore): the format, and the checks a state must pass before it becomes a
//! queue. docs/playlist.md describes the format.
//!
//! The format is one struct per shape ([`Format`], [`SpreadFormat`], [`GroupFormat`],
//! [`SkippedFormat`], [`WeightsFormat`]), written and read by serde. Every field is required
//! (`null` where it has no value) except `weights`, `listener` and `plays`, and no other field
//! is accepted. Each field is read by a function that names it in its error, so that a state
//! refused says which field is wrong and why.

use std::collections::{HashMap, HashSet};

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use dealcards_core::playlist::groups::{Lookahead, SpreadQueue, Unit};
use dealcards_core::playlist::{Mode, Queue, MAX_WEIGHT};

use super::store::{Extra, NamedUnit, State};
use dealcards_core::playlist::ahead::Ahead;

/// The format's version, the value of "format".
pub const FORMAT: i64 = 1;

/// Everything a queue is.
#[derive(Debug, Clone)]
pub struct Saved {
    pub state: State,
    pub extra: Extra,
    /// A plain queue's tape from its front; a spread queue's history from its front.
    pub tape: Vec<i64>,
    pub up_next: Vec<i64>,
    /// Tracks skipped when shuffling, with the unit a track of a spread queue goes back to.
    pub skipped: Vec<(i64, Option<i64>)>,
    pub units: Vec<NamedUnit>,
    /// A weighted queue's weights by track.
    pub weights: Vec<(i64, i64)>,
    /// The steps of Next drawn ahead, in order.
    pub ahead: Vec<Ahead>,
    /// A queue of whole albums' tracks, album k + 1's at index k (its place in the album is
    /// `extra.album_place`); empty for the other queues.
    pub albums: Vec<Vec<i64>>,
}

/// A saved state as its JSON has it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a JSON object")]
struct Format {
    #[serde(deserialize_with = "field_format")]
    format: i64,
    #[serde(deserialize_with = "field_mode")]
    mode: String,
    #[serde(deserialize_with = "field_window")]
    window: Option<u64>,
    #[serde(deserialize_with = "field_tracks")]
    tracks: u64,
    #[serde(deserialize_with = "field_front")]
    front: i64,
    #[serde(deserialize_with = "field_history")]
    history: u64,
    #[serde(deserialize_with = "field_behind")]
    behind: u64,
    #[serde(deserialize_with = "field_tape")]
    tape: Vec<i64>,
    #[serde(deserialize_with = "field_up_next")]
    up_next: Vec<i64>,
    #[serde(deserialize_with = "field_skipped")]
    skipped: Vec<SkippedFormat>,
    #[serde(deserialize_with = "field_seed")]
    seed: Option<String>,
    #[serde(deserialize_with = "field_draws")]
    draws: Option<i64>,
    #[serde(deserialize_with = "field_spread")]
    spread: Option<SpreadFormat>,
    #[serde(default, deserialize_with = "field_weights")]
    weights: Option<WeightsFormat>,
    #[serde(default, deserialize_with = "field_listener")]
    listener: Option<i64>,
    #[serde(default, deserialize_with = "field_plays")]
    plays: Option<i64>,
    /// A seeded queue's rule (2: a Next that replays is not an operation); absent for rule 1,
    /// and for a queue without a seed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "field_seed_rule"
    )]
    seed_rule: Option<i64>,
    /// The steps of Next drawn ahead, in order; absent for none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "field_ahead"
    )]
    ahead: Option<Vec<AheadFormat>>,
    /// A queue of whole albums: its albums' tracks and the place in the album playing; absent
    /// for the other queues.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "field_albums"
    )]
    albums: Option<AlbumsFormat>,
}

/// A queue of whole albums' own fields: album k + 1's tracks at index k, in the order they play,
/// and the place of the track playing in the album playing.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AlbumsFormat {
    #[serde(deserialize_with = "albums_place")]
    place: i64,
    #[serde(deserialize_with = "albums_tracks")]
    tracks: Vec<Vec<i64>>,
}

/// A step of Next drawn ahead: the track it plays, whether it is the first track up next, and
/// the values its draws returned (shuffle_queue_ahead's columns).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AheadFormat {
    #[serde(deserialize_with = "ahead_track")]
    track: i64,
    #[serde(deserialize_with = "ahead_up_next")]
    up_next: bool,
    #[serde(deserialize_with = "ahead_draws")]
    draws: Vec<i64>,
}

/// A track skipped when shuffling, and the group of a spread queue it goes back into.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SkippedFormat {
    #[serde(deserialize_with = "integer")]
    track: i64,
    #[serde(deserialize_with = "nullable_integer")]
    group: Option<i64>,
}

/// A spread queue's own fields and its groups.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpreadFormat {
    #[serde(deserialize_with = "field_levels")]
    levels: u8,
    #[serde(deserialize_with = "field_pass")]
    pass: i64,
    #[serde(deserialize_with = "field_pass_left")]
    pass_left: u64,
    #[serde(deserialize_with = "field_last_group")]
    last_group: i64,
    #[serde(deserialize_with = "field_next_unit")]
    next_unit: i64,
    #[serde(deserialize_with = "field_groups")]
    groups: Vec<GroupFormat>,
}

/// A group (a unit) of a spread queue: the columns of shuffle_queue_unit and its tracks by
/// slot.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupFormat {
    #[serde(deserialize_with = "group_id")]
    id: i64,
    #[serde(deserialize_with = "group_parent")]
    parent: i64,
    #[serde(deserialize_with = "group_name")]
    name: Option<String>,
    #[serde(deserialize_with = "group_size")]
    size: u64,
    #[serde(deserialize_with = "group_to_place")]
    to_place: u64,
    #[serde(deserialize_with = "group_placed")]
    placed: u64,
    #[serde(deserialize_with = "group_pass")]
    pass: i64,
    #[serde(deserialize_with = "group_shift")]
    shift: u64,
    #[serde(deserialize_with = "group_target")]
    target: i64,
    #[serde(deserialize_with = "group_last_child")]
    last_child: i64,
    #[serde(deserialize_with = "group_tracks")]
    tracks: Vec<i64>,
}

/// A weighted queue's heaviest weight, and its weights as `[track, weight]` pairs.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightsFormat {
    #[serde(deserialize_with = "weights_heaviest")]
    heaviest: u64,
    #[serde(deserialize_with = "weights_tracks")]
    tracks: Vec<(i64, i64)>,
}

// What one value must be; each says why it is not.

fn integer_value(value: &Value) -> Result<i64, String> {
    value.as_i64().ok_or_else(|| "is not an integer".into())
}

fn count_value(value: &Value) -> Result<u64, String> {
    u64::try_from(integer_value(value)?).map_err(|_| "is negative".into())
}

fn integers_value(value: &Value) -> Result<Vec<i64>, String> {
    value
        .as_array()
        .ok_or("is not an array")?
        .iter()
        .map(|t| {
            t.as_i64()
                .ok_or_else(|| "holds a value that is not an integer".into())
        })
        .collect()
}

/// Null for None, else a value `read` accepts.
fn nullable<T>(
    read: impl Fn(&Value) -> Result<T, String>,
) -> impl Fn(&Value) -> Result<Option<T>, String> {
    move |value| match value {
        Value::Null => Ok(None),
        v => read(v).map(Some),
    }
}

/// A count, or `null`.
fn nullable_count(value: &Value) -> Result<Option<i64>, String> {
    match value {
        Value::Null => Ok(None),
        v => v
            .as_i64()
            .filter(|&c| c >= 0)
            .map(Some)
            .ok_or_else(|| "is not a count".into()),
    }
}

/// An object (`name`) read as `T`, serde's errors of its fields prefixed with `context`. Only
/// an object: serde would also read a struct from an array of its fields in order.
fn object_of<T: for<'de> Deserialize<'de>>(
    value: &Value,
    name: &str,
    context: &str,
) -> Result<T, String> {
    if !value.is_object() {
        return Err(format!("{name} is not an object"));
    }
    T::deserialize(value).map_err(|e| reason(&e.to_string(), context))
}

/// The message of an error of a struct's fields, with the struct named by `context`: serde
/// names a missing or unknown field in its own words, the field readers in this file's.
fn reason(message: &str, context: &str) -> String {
    let quoted = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_owned)
    };
    if let Some(field) = quoted("missing field `") {
        format!("{context}\"{field}\" is missing")
    } else if let Some(field) = quoted("unknown field `") {
        format!("{context}\"{field}\" is not a field of the format")
    } else {
        message.to_owned()
    }
}

/// A reader of values of `T`, as the readers below are: its type given, so that a closure's is
/// known.
fn reader<T>(read: impl Fn(&Value) -> Result<T, String>) -> impl Fn(&Value) -> Result<T, String> {
    read
}

/// Functions that read one field with a reader of this file, naming the field (as `name`) in
/// the error: serde calls them through `deserialize_with`.
macro_rules! field_readers {
    ($($function:ident -> $type:ty = $read:expr, $name:literal;)*) => {
        $(
            fn $function<'de, D: Deserializer<'de>>(d: D) -> Result<$type, D::Error> {
                let value = Value::deserialize(d)?;
                reader::<$type>($read)(&value).map_err(|why: String| D::Error::custom(format!("{} {why}", $name)))
            }
        )*
    };
}

/// Functions that read a field holding objects, whose readers say the whole error.
macro_rules! nested_readers {
    ($($function:ident -> $type:ty = $read:expr;)*) => {
        $(
            fn $function<'de, D: Deserializer<'de>>(d: D) -> Result<$type, D::Error> {
                let value = Value::deserialize(d)?;
                reader::<$type>($read)(&value).map_err(D::Error::custom)
            }
        )*
    };
}

nested_readers! {
    field_skipped -> Vec<SkippedFormat> = |v: &Value| {
        v.as_array()
            .ok_or("\"skipped\" is not an array")?
            .iter()
            .map(|entry| {
                object_of(entry, "", "").map_err(|_| {
                    "\"skipped\" holds an entry that is not {\"track\", \"group\"}".to_owned()
                })
            })
            .collect::<Result<_, String>>()
    };
    field_ahead -> Option<Vec<AheadFormat>> = nullable(|v: &Value| {
        v.as_array()
            .ok_or("\"ahead\" is not an array")?
            .iter()
            .map(|step| object_of(step, "a step of \"ahead\"", "a step of \"ahead\": "))
            .collect::<Result<_, String>>()
    });
    field_albums -> Option<AlbumsFormat> = nullable(|v: &Value| {
        object_of(v, "\"albums\"", "\"albums\".")
    });
    field_weights -> Option<WeightsFormat> = nullable(|v: &Value| {
        object_of(v, "\"weights\"", "\"weights\".")
    });
    field_spread -> Option<SpreadFormat> = nullable(|v: &Value| {
        object_of(v, "\"spread\"", "\"spread\".")
    });
    field_groups -> Vec<GroupFormat> = |v: &Value| {
        v.as_array()
            .ok_or("\"spread\".\"groups\" is not an array")?
            .iter()
            .map(|group| object_of(group, "a group", "a group's "))
            .collect::<Result<_, String>>()
    };
}

field_readers! {
    field_format -> i64 = |v: &Value| match integer_value(v)? {
        FORMAT => Ok(FORMAT),
        _ => Err(format!("is not {FORMAT}")),
    }, "\"format\"";
    field_mode -> String = |v: &Value| {
        v.as_str().map(str::to_owned).ok_or_else(|| "is not a string".to_owned())
    }, "\"mode\"";
    field_window -> Option<u64> = nullable(|v: &Value| {
        v.as_u64()
            .filter(|&w| w <= i32::MAX as u64)
            .ok_or_else(|| "is not a window".to_owned())
    }), "\"window\"";
    field_tracks -> u64 = count_value, "\"tracks\"";
    field_front -> i64 = integer_value, "\"front\"";
    field_history -> u64 = count_value, "\"history\"";
    field_behind -> u64 = count_value, "\"behind\"";
    field_tape -> Vec<i64> = integers_value, "\"tape\"";
    field_up_next -> Vec<i64> = integers_value, "\"up_next\"";
    field_seed -> Option<String> = |v: &Value| match v {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text.clone())),
        _ => Err("is not a string".to_owned()),
    }, "\"seed\"";
    field_draws -> Option<i64> = nullable_count, "\"draws\"";
    field_listener -> Option<i64> = nullable(integer_value), "\"listener\"";
    field_plays -> Option<i64> = nullable_count, "\"plays\"";
    field_seed_rule -> Option<i64> = nullable(|v: &Value| match integer_value(v)? {
        2 => Ok(2),
        _ => Err("is not 2".to_owned()),
    }), "\"seed_rule\"";
    albums_place -> i64 = |v: &Value| {
        count_value(v)?
            .try_into()
            .ok()
            .filter(|&p: &i64| p <= i32::MAX as i64)
            .ok_or_else(|| "is not a place".to_owned())
    }, "\"albums\".\"place\"";
    albums_tracks -> Vec<Vec<i64>> = |v: &Value| {
        v.as_array()
            .ok_or("is not an array")?
            .iter()
            .map(|album| integers_value(album).map_err(|_| "holds an entry that is not an array of tracks".to_owned()))
            .collect()
    }, "\"albums\".\"tracks\"";
    ahead_track -> i64 = integer_value, "a step's \"track\"";
    ahead_up_next -> bool = |v: &Value| v.as_bool().ok_or_else(|| "is not true or false".to_owned()),
        "a step's \"up_next\"";
    ahead_draws -> Vec<i64> = |v: &Value| {
        let draws = integers_value(v)?;
        if draws.iter().any(|&d| d < 0) {
            return Err("holds a negative value".into());
        }
        Ok(draws)
    }, "a step's \"draws\"";
    field_levels -> u8 = |v: &Value| {
        u8::try_from(integer_value(v)?).map_err(|_| "is not 1 or 2".into())
    }, "\"spread\".\"levels\"";
    field_pass -> i64 = integer_value, "\"spread\".\"pass\"";
    field_pass_left -> u64 = count_value, "\"spread\".\"pass_left\"";
    field_last_group -> i64 = integer_value, "\"spread\".\"last_group\"";
    field_next_unit -> i64 = integer_value, "\"spread\".\"next_unit\"";
    group_id -> i64 = integer_value, "a group's \"id\"";
    group_parent -> i64 = integer_value, "a group's \"parent\"";
    group_name -> Option<String> = |v: &Value| match v {
        Value::Null => Ok(None),
        Value::String(name) => Ok(Some(name.clone())),
        _ => Err("is not a string or null".to_owned()),
    }, "a group's \"name\"";
    group_size -> u64 = count_value, "a group's \"size\"";
    group_to_place -> u64 = count_value, "a group's \"to_place\"";
    group_placed -> u64 = count_value, "a group's \"placed\"";
    group_pass -> i64 = integer_value, "a group's \"pass\"";
    group_shift -> u64 = count_value, "a group's \"shift\"";
    group_target -> i64 = integer_value, "a group's \"target\"";
    group_last_child -> i64 = integer_value, "a group's \"last_child\"";
    group_tracks -> Vec<i64> = integers_value, "a group's \"tracks\"";
    weights_heaviest -> u64 = |v: &Value| {
        v.as_u64()
            .filter(|h| (1..=MAX_WEIGHT).contains(h))
            .ok_or_else(|| "is not a weight".to_owned())
    }, "\"weights\".\"heaviest\"";
    weights_tracks -> Vec<(i64, i64)> = |v: &Value| {
        v.as_array()
            .ok_or("is not an array")?
            .iter()
            .map(|pair| match pair.as_array().map(|p| &p[..]) {
                Some([track, weight]) => track.as_i64().zip(weight.as_i64()),
                _ => None,
            }
            .ok_or_else(|| "holds an entry that is not [track, weight]".to_owned()))
            .collect()
    }, "\"weights\".\"tracks\"";
}

/// A track, or a group of a spread queue, read by [`SkippedFormat`].
fn integer<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    integer_value(&Value::deserialize(d)?).map_err(D::Error::custom)
}

fn nullable_integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    nullable(integer_value)(&Value::deserialize(d)?).map_err(D::Error::custom)
}

/// A seed's 64 hexadecimal digits as its 32 bytes.
fn seed_of(text: &str) -> Result<[u8; 32], String> {
    let mut seed = [0u8; 32];
    hex::decode_to_slice(text, &mut seed)
        .map(|()| seed)
        .map_err(|_| "\"seed\" is not 64 hexadecimal digits".into())
}

impl Saved {
    pub fn to_json(&self) -> Value {
        let (mode, window, tracks, front, history, behind) = match &self.state {
            State::Tape(q) => (
                q.mode.name(),
                q.window,
                q.tracks,
                q.front,
                q.history,
                q.behind,
            ),
            State::Spread(q) => ("spread", None, q.tracks, q.front, q.history, q.behind),
        };
        let format = Format {
            format: FORMAT,
            mode: mode.to_owned(),
            window,
            tracks,
            front,
            history,
            behind,
            tape: self.tape.clone(),
            up_next: self.up_next.clone(),
            skipped: (self.skipped.iter())
                .map(|&(track, group)| SkippedFormat { track, group })
                .collect(),
            seed: self.extra.seed.map(hex::encode),
            draws: self.extra.seed.map(|_| self.extra.draws),
            spread: match &self.state {
                State::Tape(_) => None,
                State::Spread(q) => Some(self.spread_format(q)),
            },
            weights: self.extra.weight_max.map(|heaviest| WeightsFormat {
                heaviest,
                tracks: self.weights.clone(),
            }),
            listener: self.extra.listener,
            plays: self.extra.listener.map(|_| self.extra.plays),
            seed_rule: (self.extra.seed.and(self.extra.seed_rule)).map(i64::from),
            ahead: (!self.ahead.is_empty()).then(|| {
                (self.ahead.iter())
                    .map(|step| AheadFormat {
                        track: step.track,
                        up_next: step.up_next,
                        draws: step.draws.iter().map(|&d| d as i64).collect(),
                    })
                    .collect()
            }),
            albums: self.extra.album_place.map(|place| AlbumsFormat {
                place: place as i64,
                tracks: self.albums.clone(),
            }),
        };
        serde_json::to_value(format).expect("a saved state is JSON")
    }

    fn spread_format(&self, q: &SpreadQueue) -> SpreadFormat {
        SpreadFormat {
            levels: q.levels,
            pass: q.pass,
            pass_left: q.pass_left,
            last_group: q.last_group,
            next_unit: q.next_unit,
            groups: (self.units.iter())
                .map(|s| GroupFormat {
                    id: s.unit.id,
                    parent: s.unit.parent,
                    name: s.name.clone(),
                    size: s.unit.size,
                    to_place: s.unit.left,
                    placed: s.unit.placed,
                    pass: s.unit.pass,
                    shift: s.unit.offset,
                    target: s.unit.target,
                    last_child: s.unit.last_child,
                    tracks: s.tracks.clone(),
                })
                .collect(),
        }
    }

    /// Reads and checks a saved state: every field there and of its type, and a state a queue
    /// reaches (the core's checks). The error says what is wrong.
    pub fn from_json(value: &Value) -> Result<Saved, String> {
        if !value.is_object() {
            return Err("it is not a JSON object".into());
        }
        let format: Format = object_of(value, "it", "")?;
        let mut extra = format.extra()?;
        extra.album_place = format.albums.as_ref().map(|a| a.place as i32);
        let units: Vec<NamedUnit> = match &format.spread {
            Some(spread) => spread.groups.iter().map(GroupFormat::named_unit).collect(),
            None => Vec::new(),
        };
        let state = format.state(&units)?;
        let skipped: Vec<(i64, Option<i64>)> =
            format.skipped.iter().map(|s| (s.track, s.group)).collect();
        let weights = format.weights.map_or_else(Vec::new, |w| w.tracks);
        let ahead = (format.ahead.unwrap_or_default().into_iter())
            .map(|step| Ahead {
                track: step.track,
                up_next: step.up_next,
                draws: step.draws.into_iter().map(|d| d as u64).collect(),
            })
            .collect();
        let saved = Saved {
            state,
            extra,
            tape: format.tape,
            up_next: format.up_next,
            skipped,
            units,
            weights,
            ahead,
            albums: format.albums.map_or_else(Vec::new, |a| a.tracks),
        };
        saved.check_up_next_and_skipped()?;
        saved.check_albums()?;
        saved.check_ahead()?;
        saved.check_weights()?;
        Ok(saved)
    }

    /// The steps drawn ahead that play tracks up next come first, and play them in order (the
    /// core checks the others' draws when the queue is restored).
    fn check_ahead(&self) -> Result<(), String> {
        let from_up_next = self.ahead.iter().take_while(|s| s.up_next).count();
        if self.ahead[from_up_next..].iter().any(|s| s.up_next) {
            return Err(
                "a step of \"ahead\" plays a track up next after one of the shuffle".into(),
            );
        }
        if from_up_next > self.up_next.len()
            || (self.ahead.iter().zip(&self.up_next)).any(|(s, &t)| s.up_next && s.track != t)
        {
            return Err("the steps of \"ahead\" do not play the tracks up next in order".into());
        }
        Ok(())
    }

    /// Tracks up next are in the shuffle; skipped ones are not, and skip into a unit there is.
    fn check_up_next_and_skipped(&self) -> Result<(), String> {
        let in_shuffle: HashSet<i64> = match &self.state {
            State::Tape(_) => self.tape.iter().copied().collect(),
            State::Spread(_) => (self.units.iter())
                .flat_map(|s| s.tracks.iter().copied())
                .collect(),
        };
        if let Some(t) = self.up_next.iter().find(|t| !in_shuffle.contains(t)) {
            return Err(format!("track {t} is up next but not in the shuffle"));
        }
        let mut skipped_tracks = HashSet::new();
        for &(t, unit) in &self.skipped {
            if in_shuffle.contains(&t) || !skipped_tracks.insert(t) {
                return Err(format!(
                    "track {t} is skipped and in the shuffle, or skipped twice"
                ));
            }
            let leaf_exists = unit.is_some_and(|u| {
                (self.units.iter())
                    .any(|s| s.unit.id == u && self.units.iter().all(|c| c.unit.parent != u))
            });
            if matches!(self.state, State::Spread(_)) != leaf_exists {
                return Err(format!(
                    "track {t} is skipped into no group of the last level"
                ));
            }
        }
        Ok(())
    }

    /// A queue of whole albums: a spread queue of album numbers 1 to n (its tracks, in its
    /// groups and its history), n albums of tracks none twice, nothing up next or skipped, no
    /// weights nor listener, and the place in the album playing one of its tracks (0 before the
    /// first Next).
    fn check_albums(&self) -> Result<(), String> {
        let Some(place) = self.extra.album_place else {
            return Ok(());
        };
        let State::Spread(queue) = &self.state else {
            return Err("\"albums\" are for a queue spread by group".into());
        };
        if !self.up_next.is_empty() || !self.skipped.is_empty() || self.extra.listener.is_some() {
            return Err(
                "a queue of albums has no tracks up next or skipped, and no listener".into(),
            );
        }
        let n = self.albums.len() as i64;
        let mut numbers: Vec<i64> = (self.units.iter())
            .flat_map(|u| u.tracks.iter().copied())
            .collect();
        numbers.sort_unstable();
        if numbers != (1..=n).collect::<Vec<_>>() || self.tape.iter().any(|&a| a < 1 || a > n) {
            return Err(format!(
                "its groups do not hold the album numbers 1 to {n} of its {n} albums"
            ));
        }
        let mut tracks: Vec<i64> = self.albums.iter().flatten().copied().collect();
        tracks.sort_unstable();
        if self.albums.iter().any(Vec::is_empty) || tracks.windows(2).any(|w| w[0] == w[1]) {
            return Err("\"albums\".\"tracks\" holds an empty album or a track twice".into());
        }
        let playing = queue.playing().map(|p| (p - queue.front) as usize);
        let fits = match playing.and_then(|i| self.tape.get(i)) {
            Some(&album) => (place as usize) < self.albums[album as usize - 1].len(),
            None => place == 0,
        };
        if !fits {
            return Err(format!(
                "\"albums\".\"place\" {place} is not a place of the album playing"
            ));
        }
        Ok(())
    }

    /// A weighted queue: random play, one weight from 1 to its heaviest for every track it
    /// holds.
    fn check_weights(&self) -> Result<(), String> {
        let Some(heaviest) = self.extra.weight_max else {
            return Ok(());
        };
        if (self.weights.iter()).any(|&(_, w)| w < 1 || w as u64 > heaviest) {
            return Err("\"weights\".\"tracks\" holds an entry that is not [track, weight]".into());
        }
        if !matches!(&self.state, State::Tape(q) if q.mode == Mode::Random) {
            return Err("only a queue of random play has weights".into());
        }
        let mut held: Vec<i64> = (self.tape.iter().copied())
            .chain(self.skipped.iter().map(|s| s.0))
            .collect();
        let mut weighed: Vec<i64> = self.weights.iter().map(|w| w.0).collect();
        held.sort_unstable();
        weighed.sort_unstable();
        if held != weighed {
            return Err("its weights are not one for each of its tracks".into());
        }
        Ok(())
    }
}

impl Format {
    /// The queue row's other columns: a seed with its draws, weights, a listener with its
    /// plays.
    fn extra(&self) -> Result<Extra, String> {
        let seed = self.seed.as_deref().map(seed_of).transpose()?;
        let draws = match (seed, self.draws) {
            (None, None) => 0,
            (Some(_), Some(draws)) => draws,
            (Some(_), None) => return Err("\"draws\" is not a count".into()),
            (None, Some(_)) => {
                return Err("\"draws\" counts draws of a queue without a seed".into())
            }
        };
        let plays = match (self.listener, self.plays) {
            (None, None) => 0,
            (Some(_), Some(plays)) => plays,
            (Some(_), None) => return Err("\"plays\" is not a count".into()),
            (None, Some(_)) => {
                return Err("\"plays\" counts plays of a queue without a listener".into())
            }
        };
        if seed.is_none() && self.seed_rule.is_some() {
            return Err("\"seed_rule\" is the rule of a queue without a seed".into());
        }
        Ok(Extra {
            up_next: self.up_next.len() as i64,
            seed,
            draws,
            weight_max: self.weights.as_ref().map(|w| w.heaviest),
            listener: self.listener,
            plays,
            ahead_steps: 0,
            seed_rule: self.seed_rule.map(|r| r as i16),
            album_place: None,
        })
    }

    /// The queue's state, checked by the core: a plain queue's, or a spread queue's with its
    /// units.
    fn state(&self, units: &[NamedUnit]) -> Result<State, String> {
        match (self.mode.as_str(), &self.spread) {
            ("spread", None) => Err("\"spread\" is not an object".into()),
            ("spread", Some(spread)) => {
                let queue = SpreadQueue {
                    levels: spread.levels,
                    tracks: self.tracks,
                    pass: spread.pass,
                    pass_left: spread.pass_left,
                    last_group: spread.last_group,
                    next_unit: spread.next_unit,
                    top: Lookahead::default(),
                    front: self.front,
                    history: self.history,
                    behind: self.behind,
                };
                let slots: HashMap<i64, Vec<i64>> = (units.iter())
                    .filter(|s| !s.tracks.is_empty())
                    .map(|s| (s.unit.id, s.tracks.clone()))
                    .collect();
                let plain: Vec<Unit> = units.iter().map(|s| s.unit.clone()).collect();
                queue.validate(&plain, &slots, &self.tape)?;
                Ok(State::Spread(queue))
            }
            (mode, None) => {
                let queue = Queue {
                    mode: Mode::parse(mode).map_err(|e| e.message)?,
                    window: self.window,
                    tracks: self.tracks,
                    front: self.front,
                    history: self.history,
                    behind: self.behind,
                };
                queue.validate(&self.tape)?;
                Ok(State::Tape(queue))
            }
            (_, Some(_)) => Err("\"spread\" is given for a queue not spread by group".into()),
        }
    }
}

impl GroupFormat {
    fn named_unit(&self) -> NamedUnit {
        NamedUnit {
            unit: Unit {
                id: self.id,
                parent: self.parent,
                size: self.size,
                left: self.to_place,
                placed: self.placed,
                pass: self.pass,
                offset: self.shift,
                target: self.target,
                last_child: self.last_child,
                children: Lookahead::default(),
            },
            name: self.name.clone(),
            tracks: self.tracks.clone(),
        }
    }
}
