//! A queue's whole state as JSON (shuffle_queue_save) and a queue made from it
//! (shuffle_queue_restore): the format, and the checks a state must pass before it becomes a
//! queue. docs/playlist.md describes the format.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use dealcards_core::playlist::groups::{Lookahead, SpreadQueue, Unit};
use dealcards_core::playlist::{Mode, Queue, MAX_WEIGHT};

use super::store::{Extra, NamedUnit, State};

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
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
        let mut out = Map::new();
        out.insert("format".into(), json!(FORMAT));
        out.insert("mode".into(), json!(mode));
        out.insert("window".into(), json!(window));
        out.insert("tracks".into(), json!(tracks));
        out.insert("front".into(), json!(front));
        out.insert("history".into(), json!(history));
        out.insert("behind".into(), json!(behind));
        out.insert("tape".into(), json!(self.tape));
        out.insert("up_next".into(), json!(self.up_next));
        out.insert(
            "skipped".into(),
            Value::Array(
                self.skipped
                    .iter()
                    .map(|(track, unit)| json!({"track": track, "group": unit}))
                    .collect(),
            ),
        );
        out.insert("seed".into(), json!(self.extra.seed.map(|s| hex(&s))));
        out.insert(
            "draws".into(),
            json!(self.extra.seed.map(|_| self.extra.draws)),
        );
        let spread = match &self.state {
            State::Tape(_) => Value::Null,
            State::Spread(q) => json!({
                "levels": q.levels,
                "pass": q.pass,
                "pass_left": q.pass_left,
                "last_group": q.last_group,
                "next_unit": q.next_unit,
                "groups": self.units.iter().map(|s| {
                    let u = &s.unit;
                    json!({
                        "id": u.id, "parent": u.parent, "name": s.name, "size": u.size,
                        "to_place": u.left, "placed": u.placed, "pass": u.pass,
                        "shift": u.offset, "target": u.target, "last_child": u.last_child,
                        "tracks": s.tracks,
                    })
                }).collect::<Vec<_>>(),
            }),
        };
        out.insert("spread".into(), spread);
        let weights = match self.extra.weight_max {
            None => Value::Null,
            Some(heaviest) => json!({
                "heaviest": heaviest,
                "tracks": self.weights.iter().map(|&(t, w)| json!([t, w])).collect::<Vec<_>>(),
            }),
        };
        out.insert("weights".into(), weights);
        out.insert("listener".into(), json!(self.extra.listener));
        out.insert(
            "plays".into(),
            json!(self.extra.listener.map(|_| self.extra.plays)),
        );
        Value::Object(out)
    }

    /// Reads and checks a saved state: every field there and of its type, and a state a queue
    /// reaches (the core's checks). The error says what is wrong.
    pub fn from_json(value: &Value) -> Result<Saved, String> {
        let object = value.as_object().ok_or("it is not a JSON object")?;
        let field = |name: &str| object.get(name).ok_or(format!("\"{name}\" is missing"));
        let int = |name: &str| -> Result<i64, String> {
            field(name)?
                .as_i64()
                .ok_or(format!("\"{name}\" is not an integer"))
        };
        let count = |name: &str| -> Result<u64, String> {
            u64::try_from(int(name)?).map_err(|_| format!("\"{name}\" is negative"))
        };
        let ints = |v: &Value, name: &str| -> Result<Vec<i64>, String> {
            v.as_array()
                .ok_or(format!("\"{name}\" is not an array"))?
                .iter()
                .map(|t| {
                    t.as_i64()
                        .ok_or(format!("\"{name}\" holds a value that is not an integer"))
                })
                .collect()
        };
        if int("format")? != FORMAT {
            return Err(format!("\"format\" is not {FORMAT}"));
        }
        let mode = field("mode")?.as_str().ok_or("\"mode\" is not a string")?;
        let window = match field("window")? {
            Value::Null => None,
            v => Some(
                v.as_u64()
                    .filter(|&w| w <= i32::MAX as u64)
                    .ok_or("\"window\" is not a window")?,
            ),
        };
        let (tracks, front, history, behind) = (
            count("tracks")?,
            int("front")?,
            count("history")?,
            count("behind")?,
        );
        let tape = ints(field("tape")?, "tape")?;
        let up_next = ints(field("up_next")?, "up_next")?;
        let skipped = field("skipped")?
            .as_array()
            .ok_or("\"skipped\" is not an array")?
            .iter()
            .map(|s| {
                let track = s.get("track").and_then(Value::as_i64);
                let group = s.get("group").map(|g| (g.is_null(), g.as_i64()));
                match (track, group) {
                    (Some(t), Some((true, _))) => Ok((t, None)),
                    (Some(t), Some((false, Some(g)))) => Ok((t, Some(g))),
                    _ => Err(
                        "\"skipped\" holds an entry that is not {\"track\", \"group\"}".to_string(),
                    ),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let seed = match field("seed")? {
            Value::Null => None,
            Value::String(text) => {
                let bytes = (0..text.len())
                    .step_by(2)
                    .map(|i| {
                        text.get(i..i + 2)
                            .and_then(|h| u8::from_str_radix(h, 16).ok())
                    })
                    .collect::<Option<Vec<u8>>>()
                    .filter(|b| b.len() == 32 && text.len() == 64)
                    .ok_or("\"seed\" is not 64 hexadecimal digits")?;
                Some(<[u8; 32]>::try_from(bytes).expect("32 bytes"))
            }
            _ => return Err("\"seed\" is not a string".into()),
        };
        let draws = match (seed, field("draws")?) {
            (None, Value::Null) => 0,
            (Some(_), d) => d
                .as_i64()
                .filter(|&d| d >= 0)
                .ok_or("\"draws\" is not a count")?,
            (None, _) => return Err("\"draws\" counts draws of a queue without a seed".into()),
        };
        let (weight_max, weights) = match object.get("weights").unwrap_or(&Value::Null) {
            Value::Null => (None, Vec::new()),
            w => {
                let heaviest = w
                    .get("heaviest")
                    .and_then(Value::as_u64)
                    .filter(|h| (1..=MAX_WEIGHT).contains(h))
                    .ok_or("\"weights\".\"heaviest\" is not a weight")?;
                let pairs = w
                    .get("tracks")
                    .and_then(Value::as_array)
                    .ok_or("\"weights\".\"tracks\" is not an array")?
                    .iter()
                    .map(|p| {
                        match (
                            p.get(0).and_then(Value::as_i64),
                            p.get(1).and_then(Value::as_i64),
                        ) {
                            (Some(t), Some(w))
                                if w >= 1
                                    && w as u64 <= heaviest
                                    && p.as_array().is_some_and(|a| a.len() == 2) =>
                            {
                                Ok((t, w))
                            }
                            _ => Err(
                                "\"weights\".\"tracks\" holds an entry that is not [track, weight]"
                                    .to_string(),
                            ),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (Some(heaviest), pairs)
            }
        };
        let listener = match object.get("listener").unwrap_or(&Value::Null) {
            Value::Null => None,
            v => Some(v.as_i64().ok_or("\"listener\" is not an integer")?),
        };
        let plays = match (listener, object.get("plays").unwrap_or(&Value::Null)) {
            (None, Value::Null) => 0,
            (Some(_), p) => p
                .as_i64()
                .filter(|&p| p >= 0)
                .ok_or("\"plays\" is not a count")?,
            (None, _) => return Err("\"plays\" counts plays of a queue without a listener".into()),
        };
        let extra = Extra {
            up_next: up_next.len() as i64,
            seed,
            draws,
            weight_max,
            listener,
            plays,
        };
        let mut units = Vec::new();
        let state = match (mode, field("spread")?) {
            ("spread", spread) => {
                let s = spread.as_object().ok_or("\"spread\" is not an object")?;
                let get = |name: &str| -> Result<i64, String> {
                    s.get(name)
                        .and_then(Value::as_i64)
                        .ok_or(format!("\"spread\".\"{name}\" is not an integer"))
                };
                let groups = s
                    .get("groups")
                    .and_then(Value::as_array)
                    .ok_or("\"spread\".\"groups\" is not an array")?;
                for g in groups {
                    let at = |name: &str| -> Result<i64, String> {
                        g.get(name)
                            .and_then(Value::as_i64)
                            .ok_or(format!("a group's \"{name}\" is not an integer"))
                    };
                    let non_negative = |name: &str| -> Result<u64, String> {
                        u64::try_from(at(name)?)
                            .map_err(|_| format!("a group's \"{name}\" is negative"))
                    };
                    let name = match g.get("name") {
                        Some(Value::Null) => None,
                        Some(Value::String(n)) => Some(n.clone()),
                        _ => return Err("a group's \"name\" is not a string or null".into()),
                    };
                    let tracks = ints(g.get("tracks").unwrap_or(&Value::Null), "tracks")?;
                    units.push(NamedUnit {
                        unit: Unit {
                            id: at("id")?,
                            parent: at("parent")?,
                            size: non_negative("size")?,
                            left: non_negative("to_place")?,
                            placed: non_negative("placed")?,
                            pass: at("pass")?,
                            offset: non_negative("shift")?,
                            target: at("target")?,
                            last_child: at("last_child")?,
                            children: Lookahead::default(),
                        },
                        name,
                        tracks,
                    });
                }
                let queue = SpreadQueue {
                    levels: u8::try_from(get("levels")?).map_err(|_| "\"levels\" is not 1 or 2")?,
                    tracks,
                    pass: get("pass")?,
                    pass_left: u64::try_from(get("pass_left")?)
                        .map_err(|_| "\"pass_left\" is negative")?,
                    last_group: get("last_group")?,
                    next_unit: get("next_unit")?,
                    top: Lookahead::default(),
                    front,
                    history,
                    behind,
                };
                let slots: HashMap<i64, Vec<i64>> = units
                    .iter()
                    .filter(|s| !s.tracks.is_empty())
                    .map(|s| (s.unit.id, s.tracks.clone()))
                    .collect();
                let plain: Vec<Unit> = units.iter().map(|s| s.unit.clone()).collect();
                queue.validate(&plain, &slots, &tape)?;
                State::Spread(queue)
            }
            (_, Value::Null) => {
                let mode = Mode::parse(mode).map_err(|e| e.message)?;
                let queue = Queue {
                    mode,
                    window,
                    tracks,
                    front,
                    history,
                    behind,
                };
                queue.validate(&tape)?;
                State::Tape(queue)
            }
            _ => return Err("\"spread\" is given for a queue not spread by group".into()),
        };
        // Tracks up next are in the shuffle; skipped ones are not, and skip into a unit there is.
        let in_shuffle: std::collections::HashSet<i64> = match &state {
            State::Tape(_) => tape.iter().copied().collect(),
            State::Spread(_) => units
                .iter()
                .flat_map(|s| s.tracks.iter().copied())
                .collect(),
        };
        if let Some(t) = up_next.iter().find(|t| !in_shuffle.contains(t)) {
            return Err(format!("track {t} is up next but not in the shuffle"));
        }
        let mut skipped_tracks = std::collections::HashSet::new();
        for &(t, unit) in &skipped {
            if in_shuffle.contains(&t) || !skipped_tracks.insert(t) {
                return Err(format!(
                    "track {t} is skipped and in the shuffle, or skipped twice"
                ));
            }
            let leaf_exists = unit.is_some_and(|u| {
                units
                    .iter()
                    .any(|s| s.unit.id == u && units.iter().all(|c| c.unit.parent != u))
            });
            if matches!(state, State::Spread(_)) != leaf_exists {
                return Err(format!(
                    "track {t} is skipped into no group of the last level"
                ));
            }
        }
        // A weighted queue: random play, one weight for every track it holds.
        if extra.weight_max.is_some() {
            if !matches!(&state, State::Tape(q) if q.mode == Mode::Random) {
                return Err("only a queue of random play has weights".into());
            }
            let mut held: Vec<i64> = tape
                .iter()
                .copied()
                .chain(skipped.iter().map(|s| s.0))
                .collect();
            let mut weighed: Vec<i64> = weights.iter().map(|w| w.0).collect();
            held.sort_unstable();
            weighed.sort_unstable();
            if held != weighed {
                return Err("its weights are not one for each of its tracks".into());
            }
        }
        Ok(Saved {
            state,
            extra,
            tape,
            up_next,
            skipped,
            units,
            weights,
        })
    }
}
