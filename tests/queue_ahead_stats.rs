#![cfg(feature = "server_tests")]
//! Drawing ahead leaves what a queue plays as it was. For each kind of queue (plain shuffle,
//! random with its window, weighted, spread by group) a listener presses Next thousands of times
//! and looks at `shuffle_queue_upcoming` between the presses (the next few tracks, a later page,
//! now and then far ahead), so that most tracks played come from steps drawn ahead; the tracks
//! played then go through the chi-square tests of crates/fairness against what
//! docs/playlist.md promises for that kind. Each test also feeds a bad queue's tracks through the
//! same statistic, and the statistic must reject them: the negative control that shows the test
//! would catch a look ahead that changed the distribution.
//!
//! A statistic passes at the battery's significance level (`dealcards_fairness::passes`, 1e-4);
//! a test whose statistic fails takes a second, fresh sample, and fails only if that fails too:
//! a fair queue fails a test about once in 10^8 runs. The samples are large enough that the bad
//! queues get p-values below 1e-80: they are rejected every time.
//!
//! `make test` runs the server tests on every PostgreSQL major from 14 to 18; these statistics
//! run on one major (16 when the run has it) and are left out by name on the others, as its
//! summary says. What they measure is the distribution the Rust code draws, the same whatever
//! the major (the major only changes how the SQL layer reaches the queue's rows, and the other
//! server tests check that on every major), so one major is enough and the others save the time.
//! Needs DEALCARDS_TEST_DSN.

mod server;

// Every test here is a statistic, named queue_statistics::...: scripts/test.sh runs them on one
// major and leaves them out by that prefix on the others (the header above says why).
mod queue_statistics {
    use std::collections::{BTreeMap, VecDeque};
    use std::fmt::Write;

    use crate::server::queues::{database, twice_if_failing};
    use dealcards_core::rng::Stream;
    use dealcards_fairness::stats::{self, ChiSquare};
    use dealcards_fairness::{order_index, passes};
    use postgres::{Client, SimpleQueryMessage};

    /// Presses of Next sent in one round trip, each with the look ahead before it.
    const PRESSES_PER_ROUND_TRIP: usize = 100;

    /// The rows of each statement of `sql`, as text: the simple query protocol runs the statements
    /// one after the other, in order, and ends each one's rows with its CommandComplete.
    fn statements(client: &mut Client, sql: &str) -> Vec<Vec<Vec<String>>> {
        let mut results = vec![Vec::new()];
        for message in client.simple_query(sql).unwrap() {
            match message {
                SimpleQueryMessage::Row(row) => results.last_mut().unwrap().push(
                    (0..row.len())
                        .map(|i| row.get(i).unwrap().to_string())
                        .collect(),
                ),
                SimpleQueryMessage::CommandComplete(_) => results.push(Vec::new()),
                _ => {}
            }
        }
        results.pop();
        results
    }

    /// A new queue and the tape it starts from, front first, as shuffle_queue_save gives it.
    fn new_queue(client: &mut Client, sql: &str) -> (i64, Vec<i64>) {
        let queue: i64 = client.query_one(sql, &[]).unwrap().get(0);
        (queue, saved_tape(client, queue))
    }

    fn saved_tape(client: &mut Client, queue: i64) -> Vec<i64> {
        client
            .query_one(
                "SELECT array_agg(t::bigint ORDER BY i)
               FROM jsonb_array_elements_text(shuffle_queue_save($1) -> 'tape')
                    WITH ORDINALITY AS e(t, i)",
                &[&queue],
            )
            .unwrap()
            .get(0)
    }

    /// A call of `shuffle_queue_upcoming(queue, n, offset)` before a press of Next.
    #[derive(Debug, Clone, Copy)]
    struct Look {
        n: usize,
        offset: usize,
    }

    /// What the listener looks at before each of `presses` presses: half the time the next few
    /// tracks (none to three), sometimes a later page (1 to 3 tracks from place 2 to 11), now and
    /// then far ahead (20 to 60 tracks), otherwise nothing: about 5 presses in 6 play a step drawn
    /// ahead, and the others draw at once. From a fixed stream, so that the server's queue and the
    /// bad queues of the negative controls are looked at in the same pattern.
    fn looks(presses: usize) -> Vec<Option<Look>> {
        let mut stream = Stream::from_seed([7; 32]);
        (0..presses)
            .map(|_| match stream.below(100) {
                0..=49 => Some(Look {
                    n: stream.below(4) as usize,
                    offset: 0,
                }),
                50..=54 => Some(Look {
                    n: 1 + stream.below(3) as usize,
                    offset: 1 + stream.below(10) as usize,
                }),
                55 => Some(Look {
                    n: 20 + stream.below(41) as usize,
                    offset: 0,
                }),
                _ => None,
            })
            .collect()
    }

    /// How many presses play a step drawn ahead: a look keeps the first `offset + n` steps drawn,
    /// and each press plays the first step kept.
    fn presses_drawn_ahead(looks: &[Option<Look>]) -> usize {
        let mut kept = 0;
        let mut ahead = 0;
        for look in looks {
            if let Some(look) = look {
                kept = kept.max(look.offset + look.n);
            }
            if kept > 0 {
                ahead += 1;
                kept -= 1;
            }
        }
        ahead
    }

    /// Presses Next once after each look and returns the tracks played, `PRESSES_PER_ROUND_TRIP`
    /// presses a round trip. On the way it checks the promise: each track a look shows is the one
    /// Next plays at that place, and the steps the queue keeps at the end are those the looks drew.
    fn listen(client: &mut Client, queue: i64, looks: &[Option<Look>]) -> Vec<i64> {
        let mut played = Vec::with_capacity(looks.len());
        // What the looks showed, for the next press first (None: a place no look showed).
        let mut shown: VecDeque<Option<i64>> = VecDeque::new();
        let mut kept = 0;
        for batch in looks.chunks(PRESSES_PER_ROUND_TRIP) {
            let mut sql = String::new();
            for look in batch {
                if let Some(Look { n, offset }) = look {
                    write!(
                        sql,
                        "SELECT place, track, source
                       FROM shuffle_queue_upcoming({queue}, {n}, {offset}) ORDER BY place;"
                    )
                    .unwrap();
                }
                write!(sql, "SELECT shuffle_queue_next({queue});").unwrap();
            }
            let mut results = statements(client, &sql).into_iter();
            for look in batch {
                if let Some(look) = look {
                    let rows = results.next().unwrap();
                    assert_eq!(rows.len(), look.n, "{look:?}");
                    for (i, row) in rows.iter().enumerate() {
                        let place: usize = row[0].parse().unwrap();
                        let track: i64 = row[1].parse().unwrap();
                        assert_eq!(place, look.offset + i + 1, "{look:?}");
                        assert_eq!(row[2], "shuffle", "{look:?}");
                        if shown.len() < place {
                            shown.resize(place, None);
                        }
                        let promised = shown[place - 1].get_or_insert(track);
                        assert_eq!(
                            *promised, track,
                            "two looks showed place {place} differently"
                        );
                    }
                    kept = kept.max(look.offset + look.n);
                }
                let track: i64 = results.next().unwrap()[0][0].parse().unwrap();
                if let Some(Some(promised)) = shown.pop_front() {
                    assert_eq!(track, promised, "press {}", played.len() + 1);
                }
                kept = kept.saturating_sub(1);
                played.push(track);
            }
        }
        let left: i64 = client
            .query_one(
                "SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1",
                &[&queue],
            )
            .unwrap()
            .get(0);
        assert_eq!(left as usize, kept, "steps kept drawn ahead at the end");
        played
    }

    /// A plain or random queue's tape, front first, as docs/playlist.md specifies it: a pick at
    /// place `i` plays the track there, the track at the front takes its place, and the track played
    /// goes to the end. A shuffle queue draws its place among the first `window`; a random one among
    /// all but its last `window` plays (once that many have played: the last places of the tape).
    #[derive(Debug, Clone)]
    struct Tape {
        tracks: Vec<i64>,
        random: bool,
        window: usize,
        picks: usize,
    }

    impl Tape {
        fn new(tracks: Vec<i64>, random: bool, window: usize) -> Self {
            Tape {
                tracks,
                random,
                window,
                picks: 0,
            }
        }

        /// How many places the next pick draws from.
        fn places(&self) -> usize {
            if self.random {
                self.tracks.len() - self.picks.min(self.window)
            } else {
                self.window
            }
        }

        fn pick(&mut self, place: usize) -> i64 {
            let track = self.tracks[place];
            self.tracks[place] = self.tracks[0];
            self.tracks.remove(0);
            self.tracks.push(track);
            self.picks += 1;
            track
        }
    }

    /// One pick read off the tracks played: the tracks at the places it drew from, in the tape's
    /// order, and the place it took.
    struct Pick {
        allowed: Vec<i64>,
        place: usize,
    }

    /// The picks of the tracks played, from the tape the queue started with: each track played must
    /// be at one of the places its pick draws from (else the queue played it too soon again), and
    /// the tape moves on as the queue's does. Also returns the tape at the end.
    fn picks(start: &Tape, played: &[i64]) -> (Vec<Pick>, Tape) {
        let mut tape = start.clone();
        let picks = played
            .iter()
            .enumerate()
            .map(|(i, &track)| {
                let allowed = tape.tracks[..tape.places()].to_vec();
                let place = allowed
                    .iter()
                    .position(|&t| t == track)
                    .unwrap_or_else(|| panic!("pick {i}: track {track} is not among {allowed:?}"));
                tape.pick(place);
                Pick { allowed, place }
            })
            .collect();
        (picks, tape)
    }

    /// Successive pairs of picks (the 1st and 2nd, the 3rd and 4th, ...) counted by the places they
    /// drew, once every pick draws from the same number of places `e` (a random queue draws from
    /// more until its window has filled): every pick draws its place uniformly and afresh, so the
    /// e² pairs are equally likely. Pairs catch both a place drawn too often and a place that
    /// depends on the one before (such as the same values drawn again by each look ahead).
    fn pairs_of_places(start: &Tape, played: &[i64]) -> ChiSquare {
        let (picks, _) = picks(start, played);
        let e = picks.last().unwrap().allowed.len();
        let first = picks.iter().position(|p| p.allowed.len() == e).unwrap();
        let mut counts = vec![0u64; e * e];
        for pair in picks[first..].chunks_exact(2) {
            assert!(pair.iter().all(|p| p.allowed.len() == e));
            counts[pair[0].place * e + pair[1].place] += 1;
        }
        stats::chi_square_uniform(&counts)
    }

    /// Each pick counted by the set of tracks it could play and the track it played, against
    /// `weight`: within a set, a track plays with probability its weight over the set's total. The
    /// sets' Pearson statistics and degrees of freedom are added up (Anderson and Goodman's test of
    /// a chain's transitions: given all that played before, a pick depends only on its set). A set
    /// whose smallest expected count is below 5 is left out, as too few for the approximation;
    /// choosing the sets by how often they came, not by what they played, keeps the test's level.
    fn picks_by_weight(start: &Tape, played: &[i64], weight: impl Fn(i64) -> f64) -> ChiSquare {
        let mut counts: BTreeMap<Vec<i64>, BTreeMap<i64, u64>> = BTreeMap::new();
        for (pick, &track) in picks(start, played).0.into_iter().zip(played) {
            let mut allowed = pick.allowed;
            allowed.sort_unstable();
            *counts.entry(allowed).or_default().entry(track).or_default() += 1;
        }
        let (mut statistic, mut df) = (0.0, 0);
        for (allowed, picked) in counts {
            let observed: Vec<u64> = allowed
                .iter()
                .map(|t| picked.get(t).copied().unwrap_or(0))
                .collect();
            let weights: Vec<f64> = allowed.iter().map(|&t| weight(t)).collect();
            let (total, sum) = (
                observed.iter().sum::<u64>() as f64,
                weights.iter().sum::<f64>(),
            );
            let lightest = weights.iter().copied().fold(f64::INFINITY, f64::min);
            if total * lightest / sum < 5.0 {
                continue;
            }
            let set = stats::chi_square_expected(&observed, &weights);
            statistic += set.statistic;
            df += set.df;
        }
        assert!(df >= 10, "too few sets of tracks counted: df {df}");
        ChiSquare {
            statistic,
            df,
            p_value: stats::chi_square_sf(statistic, df as f64),
        }
    }

    /// A bad queue from the same tape, looked at in the same pattern: every look draws the steps it
    /// adds from a stream started anew with one key, so each look draws the same values again (the
    /// fault the core's unit test of drawing ahead takes as its control). A press with no step kept
    /// draws as it should. Returns the tracks it plays.
    fn queue_whose_looks_restart_their_stream(start: &Tape, looks: &[Option<Look>]) -> Vec<i64> {
        let mut tape = start.clone();
        let mut live = Stream::from_seed([1; 32]);
        let mut kept: VecDeque<usize> = VecDeque::new();
        looks
            .iter()
            .map(|look| {
                if let Some(look) = look {
                    let mut ahead = tape.clone();
                    for &place in &kept {
                        ahead.pick(place);
                    }
                    let mut restarted = Stream::from_seed([2; 32]);
                    while kept.len() < look.offset + look.n {
                        let place = restarted.below(ahead.places() as u32) as usize;
                        ahead.pick(place);
                        kept.push_back(place);
                    }
                }
                let place = kept
                    .pop_front()
                    .unwrap_or_else(|| live.below(tape.places() as u32) as usize);
                tape.pick(place)
            })
            .collect()
    }

    /// Rejection sampling as a weighted queue picks: a place among those allowed, taken with
    /// probability its track's weight over the heaviest.
    fn weighted_place(tape: &Tape, stream: &mut Stream, weight: &dyn Fn(i64) -> u32) -> usize {
        let heaviest = tape.tracks.iter().map(|&t| weight(t)).max().unwrap();
        loop {
            let place = stream.below(tape.places() as u32) as usize;
            if stream.below(heaviest) < weight(tape.tracks[place]) {
                return place;
            }
        }
    }

    /// A bad weighted queue from the same tape, looked at in the same pattern: the steps its looks
    /// draw forget the weights (each allowed track equally likely); a press with no step kept picks
    /// by weight as it should. Returns the tracks it plays.
    fn queue_whose_looks_forget_the_weights(
        start: &Tape,
        looks: &[Option<Look>],
        weight: &dyn Fn(i64) -> u32,
    ) -> Vec<i64> {
        let mut tape = start.clone();
        let mut stream = Stream::from_seed([3; 32]);
        let mut kept: VecDeque<usize> = VecDeque::new();
        looks
            .iter()
            .map(|look| {
                if let Some(look) = look {
                    let mut ahead = tape.clone();
                    for &place in &kept {
                        ahead.pick(place);
                    }
                    while kept.len() < look.offset + look.n {
                        let place = stream.below(ahead.places() as u32) as usize;
                        ahead.pick(place);
                        kept.push_back(place);
                    }
                }
                let place = kept
                    .pop_front()
                    .unwrap_or_else(|| weighted_place(&tape, &mut stream, weight));
                tape.pick(place)
            })
            .collect()
    }

    /// The looks before `presses` presses, checked to make most presses play a step drawn ahead.
    fn checked_looks(presses: usize) -> Vec<Option<Look>> {
        let looks = looks(presses);
        let ahead = presses_drawn_ahead(&looks);
        assert!(ahead * 10 >= presses * 7, "{ahead} of {presses}");
        eprintln!("{ahead} of {presses} presses play a step drawn ahead");
        looks
    }

    /// A plain queue (`random` or not, of `window`) made by `sql`: 3,000 presses with looks between
    /// them; each pick's place tested in pairs of places (`pairs_of_places`), the queue's tape
    /// checked against the one its picks give. Control: a queue whose looks restart their stream.
    fn plain_queue_places(db: &str, sql: &str, random: bool, window: usize) {
        twice_if_failing(|| {
            let mut client = database(db);
            let (queue, tape) = new_queue(&mut client, sql);
            let start = Tape::new(tape, random, window);
            let looks = checked_looks(3000);
            let played = listen(&mut client, queue, &looks);
            assert_eq!(
                picks(&start, &played).1.tracks,
                saved_tape(&mut client, queue)
            );
            let fair = pairs_of_places(&start, &played);
            let bad = queue_whose_looks_restart_their_stream(&start, &looks);
            let caught = pairs_of_places(&start, &bad);
            assert!(!passes(&caught), "{caught:?}");
            eprintln!("{db}: {fair:?}; control: {caught:?}");
            fair
        });
    }

    /// A plain shuffle queue of 6 tracks (window 3, the default): each pick takes one of the first
    /// 3 places of the tape uniformly, the steps drawn ahead too. 1,500 pairs of places over 9
    /// cells.
    #[test]
    fn a_shuffle_queue_draws_its_places_uniformly_with_steps_drawn_ahead() {
        plain_queue_places(
            "dealcards_ahead_stats_shuffle",
            "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[])",
            false,
            3,
        );
    }

    /// A random queue of 6 tracks, window 2: each pick takes one of the 4 tracks not among the last
    /// 2 played, uniformly by its place, the steps drawn ahead too. 1,499 pairs over 16 cells.
    #[test]
    fn a_random_queue_picks_uniformly_outside_its_window_with_steps_drawn_ahead() {
        plain_queue_places(
            "dealcards_ahead_stats_random",
            "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6]::bigint[], 'random', 2)",
            true,
            2,
        );
    }

    /// A weighted random queue of 5 tracks, track t of weight t, window 2: each pick is one of the 3
    /// tracks not among the last 2 played, with probability its weight over theirs, the steps
    /// drawn ahead too. 3,000 presses over the 10 sets of 3 tracks (df 20). Control: a queue whose
    /// looks forget the weights.
    #[test]
    fn a_weighted_queue_picks_by_weight_with_steps_drawn_ahead() {
        twice_if_failing(|| {
            let mut client = database("dealcards_ahead_stats_weighted");
            let (queue, tape) = new_queue(
                &mut client,
                "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5]::bigint[], 'random', 2,
                                  weights => ARRAY[1, 2, 3, 4, 5])",
            );
            let start = Tape::new(tape, true, 2);
            let weight = |track: i64| track as u32;
            let looks = checked_looks(3000);
            let played = listen(&mut client, queue, &looks);
            assert_eq!(
                picks(&start, &played).1.tracks,
                saved_tape(&mut client, queue)
            );
            let fair = picks_by_weight(&start, &played, |t| weight(t) as f64);
            let bad = queue_whose_looks_forget_the_weights(&start, &looks, &weight);
            let caught = picks_by_weight(&start, &bad, |t| weight(t) as f64);
            assert!(!passes(&caught), "{caught:?}");
            eprintln!("weighted: {fair:?}; control: {caught:?}");
            fair
        });
    }

    /// The groups of the spread queue's tracks 1 to 8: A holds 1 to 4.
    const SPREAD_GROUPS: [&str; 8] = ["A", "A", "A", "A", "B", "B", "C", "C"];
    const SPREAD_PASSES: usize = 600;

    /// Group A's tracks in each pass after the first, each named by its place among A's tracks in
    /// the pass before (0 for the first to play there, 3 for the last), as an order of 0..4:
    /// docs/playlist.md promises the 18 orders that do not open with 3 (the track that closed A's
    /// pass before) equally likely, whatever came before. `order_index` ranks the orders
    /// lexicographically, so those opening with 3 are the last 6; any of them played fails the test
    /// outright.
    fn orders_within_a(played: &[i64]) -> ChiSquare {
        let a: Vec<Vec<i64>> = played
            .chunks_exact(SPREAD_GROUPS.len())
            .map(|pass| pass.iter().copied().filter(|&t| t <= 4).collect())
            .collect();
        let mut counts = [0u64; 24];
        for pair in a.windows(2) {
            let order: Vec<usize> = pair[1]
                .iter()
                .map(|t| pair[0].iter().position(|x| x == t).unwrap())
                .collect();
            counts[order_index(&order)] += 1;
        }
        let result = stats::chi_square_uniform(&counts[..18]);
        if counts[18..].iter().any(|&c| c > 0) {
            ChiSquare {
                p_value: 0.0,
                ..result
            }
        } else {
            result
        }
    }

    /// The same passes with group A's tracks put in other orders by a bad draw: A's slots as the
    /// queue keeps them (docs/playlist.md: slot `d` drawn among those left to place, the first of a
    /// later pass never the slot of the track that closed the pass before), but a draw that never
    /// returns the top of its range. The other groups' tracks and every group's places stay.
    fn passes_with_a_drawn_never_top(played: &[i64]) -> Vec<i64> {
        let mut stream = Stream::from_seed([4; 32]);
        let mut slots = [1, 2, 3, 4];
        let mut bad = played.to_vec();
        for (pass, tracks) in bad.chunks_mut(SPREAD_GROUPS.len()).enumerate() {
            let mut to_place = slots.len();
            for track in tracks.iter_mut().filter(|t| **t <= 4) {
                let skip_closer = usize::from(pass > 0 && to_place == slots.len());
                let range = to_place - skip_closer;
                let d = skip_closer + stream.below(range.saturating_sub(1).max(1) as u32) as usize;
                slots.swap(d, to_place - 1);
                *track = slots[to_place - 1];
                to_place -= 1;
            }
        }
        bad
    }

    /// A queue spread by group over 8 tracks (A 4, B 2, C 2): every pass plays each track once, no
    /// two neighbours of one group, and A's tracks come in each pass in an order uniform over those
    /// the docs allow, the steps drawn ahead too, across the ends of passes. 600 passes (4,800
    /// presses): 599 orders over 18 cells. Control: the same passes with A's orders from a draw
    /// that never returns the top of its range.
    #[test]
    fn a_spread_queue_orders_each_group_uniformly_with_steps_drawn_ahead() {
        twice_if_failing(|| {
            let mut client = database("dealcards_ahead_stats_spread");
            let groups: Vec<String> = SPREAD_GROUPS.iter().map(|g| format!("'{g}'")).collect();
            let sql = format!(
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[], groups => ARRAY[{}])",
        groups.join(", ")
    );
            let queue: i64 = client.query_one(&sql, &[]).unwrap().get(0);
            let looks = checked_looks(SPREAD_PASSES * SPREAD_GROUPS.len());
            let played = listen(&mut client, queue, &looks);
            for (i, pass) in played.chunks_exact(SPREAD_GROUPS.len()).enumerate() {
                let mut tracks = pass.to_vec();
                tracks.sort_unstable();
                assert_eq!(tracks, [1, 2, 3, 4, 5, 6, 7, 8], "pass {i}: {pass:?}");
            }
            let group = |t: i64| SPREAD_GROUPS[t as usize - 1];
            let neighbours = played
                .windows(2)
                .filter(|w| group(w[0]) == group(w[1]))
                .count();
            assert_eq!(neighbours, 0, "same-group neighbours");
            let fair = orders_within_a(&played);
            let caught = orders_within_a(&passes_with_a_drawn_never_top(&played));
            assert!(!passes(&caught), "{caught:?}");
            eprintln!("spread: {fair:?}; control: {caught:?}");
            fair
        });
    }

    /// The groups of the new spread queues' tracks 1 to 10: 4, 3, 2 and 1 tracks.
    const OPENING_GROUPS: [&str; 10] = ["A", "A", "A", "A", "B", "B", "B", "C", "C", "D"];

    /// A new queue spread by group opens with each of its tracks equally often (no group holds more
    /// than half) when its first step is drawn ahead: 2,000 new queues, each looked at (1 to 10
    /// tracks) before its first Next, in one DO block (its statements run in order). Control: a
    /// queue that draws its opening group uniformly, whatever the groups' sizes, then a track of it.
    #[test]
    fn a_new_spread_queue_opens_uniformly_with_its_first_step_drawn_ahead() {
        twice_if_failing(|| {
            let mut client = database("dealcards_ahead_stats_opening");
            let queues = 2000;
            let groups: Vec<String> = OPENING_GROUPS.iter().map(|g| format!("'{g}'")).collect();
            client
                .batch_execute(&format!(
                    "CREATE TEMP TABLE openings (shown bigint, played bigint);
             DO $$
             DECLARE
               queue bigint;
               shown bigint;
             BEGIN
               FOR i IN 1..{queues} LOOP
                 queue := shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint),
                                            groups => ARRAY[{}]);
                 SELECT track INTO shown
                   FROM shuffle_queue_upcoming(queue, 1 + i % 10) WHERE place = 1;
                 INSERT INTO openings VALUES (shown, shuffle_queue_next(queue));
               END LOOP;
             END $$;",
                    groups.join(", ")
                ))
                .unwrap();
            let mut counts = vec![0u64; 10];
            for row in client
                .query("SELECT shown, played FROM openings", &[])
                .unwrap()
            {
                let (shown, played): (i64, i64) = (row.get(0), row.get(1));
                assert_eq!(
                    played, shown,
                    "the first Next played another track than shown"
                );
                counts[played as usize - 1] += 1;
            }
            assert_eq!(counts.iter().sum::<u64>(), queues);
            let fair = stats::chi_square_uniform(&counts);
            let mut stream = Stream::from_seed([5; 32]);
            let mut bad = vec![0u64; 10];
            for _ in 0..queues {
                let group = ["A", "B", "C", "D"][stream.below(4) as usize];
                let tracks: Vec<usize> = (0..10).filter(|&t| OPENING_GROUPS[t] == group).collect();
                bad[tracks[stream.below(tracks.len() as u32) as usize]] += 1;
            }
            let caught = stats::chi_square_uniform(&bad);
            assert!(!passes(&caught), "{caught:?} {bad:?}");
            eprintln!("opening: {fair:?}; control: {caught:?}");
            fair
        });
    }
}
