//! The dealcards fairness report (`make fairness`).
//!
//! Runs the battery of crates/fairness (dealcards-fairness) against a live server with the extension
//! installed (its OS-keyed generator, through `shuffle_ints` and `deal_cards`), then the same
//! battery, at the same sizes, on deliberately broken shuffles that must fail, and draws the
//! card-by-position matrices of `shuffle_ints`, the naive shuffle and Sattolo's as heat maps.
//! Then random rows (rows.rs): the inclusion tests of `TABLESAMPLE sparse_bernoulli` and
//! `sample_rows` on tables of uneven pages, and the broken samplers of rows they must reject.
//! Then card rooms (rooms.rs): every built-in kind of hand dealt by the server, the card at each
//! slot tested, and the broken dealers of hands they must reject.
//!
//! Usage: `dealcards-fairness-report [CONNECTION-STRING]`, the connection string as libpq takes it
//! (default: FAIRNESS_DSN). Sizes and paths come from the environment, see [`Config`].
//! Exit status: 0 when the live generator passes every test and every broken shuffle (and
//! sampler of rows) is rejected, 1 when not, 2 on an error.

mod heatmap;
mod live;
mod progress;
mod report;
mod rooms;
mod rows;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use dealcards_core::rng::Stream;
use dealcards_fairness::{Battery, BrokenShuffle, CardByPosition, Outcome, Sizes, Test, ALPHA};

/// What to run, from the environment:
///
/// | variable | default | meaning |
/// |---|---|---|
/// | FAIRNESS_ORDERS | 10,000,000 | shuffles of 3, of 4 and of 5 cards (each) for order frequency |
/// | FAIRNESS_DECKS | 4,000,000 | 54-card shuffles for card by position and successive deals |
/// | FAIRNESS_DEALS | 200,000 | `deal_cards` calls for card by destination and first bidder |
/// | FAIRNESS_BACKENDS | 8 | backends started together |
/// | FAIRNESS_BACKEND_DECKS | 20,000 | 54-card shuffles each of those backends deals |
/// | FAIRNESS_ROWS | 10,000 | samples of each sampler of random rows (TABLESAMPLE, sample_rows) |
/// | FAIRNESS_HANDS | 10,000 | hands of each card room kind (and of each broken dealer) |
/// | FAIRNESS_PNG | target/fairness.png | where the heat map is written |
/// | FAIRNESS_FONT | DejaVuSans.ttf of fonts-dejavu-core | the font of the picture's text |
pub struct Config {
    pub dsn: String,
    pub sizes: Sizes,
    pub backends: usize,
    pub backend_decks: u64,
    pub row_samples: u64,
    pub room_hands: u64,
    pub png: PathBuf,
    pub font: PathBuf,
}

fn size(name: &str, default: u64, minimum: u64) -> Result<u64, Box<dyn Error>> {
    let value = match std::env::var(name) {
        Ok(text) => text
            .replace(['_', ','], "")
            .parse::<u64>()
            .map_err(|_| format!("{name} must be a whole number, got {text:?}"))?,
        Err(_) => default,
    };
    if value < minimum {
        return Err(format!(
            "{name} = {value} is too small: at least {minimum}, so every expected count of its \
             chi-square test is large enough for the test to hold"
        )
        .into());
    }
    Ok(value)
}

impl Config {
    pub fn from_env() -> Result<Config, Box<dyn Error>> {
        let dsn = std::env::args()
            .nth(1)
            .or_else(|| std::env::var("FAIRNESS_DSN").ok())
            .ok_or("give a connection string as the argument or in FAIRNESS_DSN")?;
        let sizes = Sizes {
            // 120 orders of 5 cards: at least 40 of each expected.
            orders: size("FAIRNESS_ORDERS", 10_000_000, 4_800)?,
            // 2916 cells: at least 18 in each expected.
            decks: size("FAIRNESS_DECKS", 4_000_000, 1_000)?,
            // The extra cards take 3 of 54: at least 55 deals of each card there expected.
            deals: size("FAIRNESS_DEALS", 200_000, 1_000)?,
        };
        let backends = size("FAIRNESS_BACKENDS", 8, 2)? as usize;
        let backend_decks = size("FAIRNESS_BACKEND_DECKS", 20_000, 1)?;
        if (backends as u64 - 1) * backend_decks < 1_000 {
            return Err(format!(
                "FAIRNESS_BACKENDS = {backends} backends of FAIRNESS_BACKEND_DECKS = \
                 {backend_decks} decks give {} pairs of decks; at least 1000 are needed",
                (backends as u64 - 1) * backend_decks
            )
            .into());
        }
        // 45 pairs of 10 rows: at least 20 of each expected.
        let row_samples = size("FAIRNESS_ROWS", 10_000, 900)?;
        // 136 tiles a riichi slot: at least 14 of each expected.
        let room_hands = size(
            "FAIRNESS_HANDS",
            dealcards_fairness::rooms::DEFAULT_HANDS,
            2_000,
        )?;
        Ok(Config {
            dsn,
            sizes,
            backends,
            backend_decks,
            row_samples,
            room_hands,
            png: std::env::var_os("FAIRNESS_PNG")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("target/fairness.png")),
            font: std::env::var_os("FAIRNESS_FONT")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(heatmap::DEJAVU_SANS)),
        })
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            // The causes too: a server error's own message is in the source of the client's.
            let mut message = e.to_string();
            let mut cause = e.source();
            while let Some(c) = cause {
                message.push_str(&format!(": {c}"));
                cause = c.source();
            }
            eprintln!("fairness: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, Box<dyn Error>> {
    let config = Config::from_env()?;
    // Fail on a missing font before minutes of sampling, not after.
    heatmap::register_font(&config.font)?;
    let mut server = live::Server::connect(&config.dsn)?;
    print_header(&server, &config);

    let live = sample_live(&mut server, &config)?;
    let mut live_ok = report_live(&live);

    // The broken shuffles run here, on OS-keyed streams, at exactly the live sizes: the
    // battery's power is shown at the sample sizes it judged the server with.
    let mut heat_maps = vec![(
        format!(
            "shuffle_ints (live, {} decks)",
            report::count(live.card_by_position.decks())
        ),
        live.card_by_position.clone(),
    )];
    let caught_counts = run_broken_shuffles(&config.sizes, &mut heat_maps)?;
    let mut all_caught = caught_counts.iter().all(|(_, failed, _)| *failed > 0);

    heatmap::draw(&config.png, &heat_maps)?;

    eprintln!("sampling random rows");
    let rows = rows::run(&config.dsn, config.row_samples)?;
    let rooms = rooms::run_report(&config.dsn, config.room_hands)?;

    report::section("verdict");
    print_verdict(&live, &caught_counts);
    if let Some(rows) = &rows {
        all_caught &= print_rows_verdict(rows);
        live_ok &= rows.live_ok;
    }
    all_caught &= print_rooms_verdict(&rooms);
    live_ok &= rooms.live_ok;
    println!("heat map: {}", config.png.display());
    if !live_ok {
        println!(
            "The live generator failed a test. A fair generator fails one of these tests in \
             about a thousand runs; run again, and if it fails again the generator is suspect."
        );
    }
    if !all_caught {
        println!("A broken shuffle passed every test: raise the sample sizes.");
    }
    Ok(live_ok && all_caught)
}

/// The report's first lines: the server and the sizes.
fn print_header(server: &live::Server, config: &Config) {
    let sizes = config.sizes;
    println!("dealcards fairness report");
    println!("server: {}", server.description());
    println!(
        "sizes: {} shuffles for each permutation test, {} decks, {} deals, {} backends x {} decks",
        report::count(sizes.orders),
        report::count(sizes.decks),
        report::count(sizes.deals),
        config.backends,
        report::count(config.backend_decks)
    );
    println!("alpha = {ALPHA:e}: a test passes when its p-value is at least alpha");
}

/// What the live generator gave: its outcomes and the samples the report shows beside them.
struct Live {
    outcomes: Vec<Outcome>,
    card_by_position: CardByPosition,
    deal_sample: Option<live::DealSample>,
    backends: live::BackendSample,
    row_aggregates: bool,
}

/// Samples the live generator: every test of the battery the server can take.
fn sample_live(server: &mut live::Server, config: &Config) -> Result<Live, Box<dyn Error>> {
    let sizes = config.sizes;
    eprintln!("sampling the live generator");
    let mut outcomes: Vec<Outcome> = Vec::new();
    for n in dealcards_fairness::ORDER_SIZES {
        let frequency = server.orders(n, sizes.orders)?;
        outcomes.push(Outcome {
            test: Test::Orders(n),
            result: frequency.test(),
        });
    }
    let (card_by_position, successive_deals) = server.decks(sizes.decks)?;
    outcomes.push(Outcome {
        test: Test::CardByPosition,
        result: card_by_position.test(),
    });

    let deal_sample = if server.has_deal_cards()? {
        Some(server.deals(sizes.deals)?)
    } else {
        None
    };
    if let Some(deals) = &deal_sample {
        outcomes.push(Outcome {
            test: Test::Destinations,
            result: deals.destinations.test(),
        });
        outcomes.push(Outcome {
            test: Test::Leader,
            result: deals.leaders.test(),
        });
    }
    outcomes.push(Outcome {
        test: Test::SuccessiveDeals,
        result: successive_deals.test(),
    });
    let backends = live::backends(&config.dsn, config.backends, config.backend_decks)?;
    outcomes.push(Outcome {
        test: Test::Backends,
        result: backends.pairs.test(),
    });

    let row_aggregates = server.has_row_aggregates()?;
    if row_aggregates {
        let (uniform, weighted, orders) = server.row_samples(sizes.orders)?;
        outcomes.push(Outcome {
            test: Test::RowSamples { n: 5, k: 3 },
            result: uniform.test(),
        });
        outcomes.push(Outcome {
            test: Test::WeightedRowSamples { n: 5, k: 2 },
            result: weighted.test(),
        });
        outcomes.push(Outcome {
            test: Test::RowShuffles(4),
            result: orders.test(),
        });
    }
    Ok(Live {
        outcomes,
        card_by_position,
        deal_sample,
        backends,
        row_aggregates,
    })
}

/// Prints the live generator's section; whether it passed every test and left nothing behind.
fn report_live(live: &Live) -> bool {
    report::section("live generator: shuffle_ints, deal_cards and the row aggregates");
    if !live.row_aggregates {
        println!(
            "row aggregates: SKIPPED: sample_agg is not installed in this database (before 0.5.0)"
        );
    }
    report::table(&live.outcomes);
    let mut live_ok = live.outcomes.iter().all(Outcome::passes);
    match &live.deal_sample {
        Some(deals) => {
            let [p1, p2, p3] = deals.leaders.counts();
            println!(
                "deal_cards: {} deals on {} scratch desks (ids from {}), each batch rolled back; \
                 first bidders p1 {p1}, p2 {p2}, p3 {p3}; rows left in the extension's tables: {}",
                report::count(deals.destinations.deals()),
                deals.scratch_desks,
                live::FIRST_SCRATCH_DESK,
                deals.rows_left_behind
            );
            if deals.rows_left_behind != 0 {
                println!("FAIL: the deal tests left rows behind");
                live_ok = false;
            }
        }
        None => println!(
            "deal_cards: SKIPPED card by destination and first bidder: the function \
             deal_cards(int) is not installed in this database"
        ),
    }
    let backends = &live.backends;
    println!(
        "backends: {} started together ({} distinct backend pids), {} decks each; \
         decks dealt twice across all of them: {}",
        backends.backends,
        backends.distinct_pids,
        report::count(backends.decks_each),
        backends.repeated_decks
    );
    if backends.repeated_decks != 0 || backends.distinct_pids != backends.backends {
        println!("FAIL: backends repeated a deck or shared a process");
        live_ok = false;
    }
    live_ok
}

/// A broken shuffle, the tests that reject it and the tests.
type Caught = (BrokenShuffle, usize, usize);

/// The battery on each broken shuffle. Adds the heat maps of the naive shuffle and Sattolo's
/// to `heat_maps`.
fn run_broken_shuffles(
    sizes: &Sizes,
    heat_maps: &mut Vec<(String, CardByPosition)>,
) -> Result<Vec<Caught>, Box<dyn Error>> {
    eprintln!("running the battery on the broken shuffles");
    let mut caught_counts = Vec::new();
    for broken in BrokenShuffle::ALL {
        let started = std::time::Instant::now();
        let mut dealer = broken.dealer(Stream::from_os()?);
        let battery = Battery::run(&mut dealer, sizes);
        eprintln!(
            "  battery on the {} shuffle: done in {:.1} s",
            broken.name(),
            started.elapsed().as_secs_f64()
        );
        let outcomes = battery.outcomes();
        report::section(&format!("broken: {}, must fail", broken.name()));
        println!("its fault: {}", broken.fault());
        report::table(&outcomes);
        let failed = outcomes.iter().filter(|o| !o.passes()).count();
        println!("rejected by {failed} of {} tests", outcomes.len());
        caught_counts.push((broken, failed, outcomes.len()));
        if matches!(broken, BrokenShuffle::NaiveSwap | BrokenShuffle::Sattolo) {
            heat_maps.push((
                format!("{} (same size)", broken.name()),
                battery.card_by_position,
            ));
        }
    }
    Ok(caught_counts)
}

/// The verdict on the live generator and on each broken shuffle.
fn print_verdict(live: &Live, caught_counts: &[Caught]) {
    let live_tests = live.outcomes.len();
    let live_failed = live.outcomes.iter().filter(|o| !o.passes()).count();
    println!(
        "live generator: {} of {live_tests} tests pass{}",
        live_tests - live_failed,
        if live.deal_sample.is_none() {
            " (deal tests skipped)"
        } else {
            ""
        }
    );
    for (broken, failed, tests) in caught_counts {
        println!(
            "{}: {} ({failed} of {tests} tests reject it)",
            broken.name(),
            if *failed > 0 { "caught" } else { "NOT CAUGHT" }
        );
    }
}

/// Prints the verdict on random rows; whether every broken sampler of rows was caught.
fn print_rooms_verdict(rooms: &rooms::RoomReport) -> bool {
    println!(
        "card rooms (every built-in kind): {}",
        if rooms.live_ok {
            "every kind passes"
        } else {
            "a kind FAILED"
        }
    );
    let mut all_caught = true;
    for (name, failed, kinds) in &rooms.broken {
        println!(
            "{name}: {} ({failed} of {kinds} kinds reject it)",
            if failed == kinds {
                "caught"
            } else {
                "NOT CAUGHT"
            }
        );
        all_caught &= failed == kinds;
    }
    all_caught
}

fn print_rows_verdict(rows: &rows::RowReport) -> bool {
    println!(
        "random rows (sparse_bernoulli, sample_rows): {}",
        if rows.live_ok {
            "every test passes"
        } else {
            "a test FAILED"
        }
    );
    let mut all_caught = true;
    for (name, failed, tests) in &rows.broken {
        println!(
            "{name}: {} ({failed} of {tests} tests reject it)",
            if *failed > 0 { "caught" } else { "NOT CAUGHT" }
        );
        all_caught &= *failed > 0;
    }
    all_caught
}
