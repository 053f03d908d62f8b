//! Random rows: `TABLESAMPLE sparse_bernoulli (p)` and `sample_rows(relation, k)` on the live
//! server's OS-keyed generator, judged by the inclusion tests of crates/fairness (rows.rs) on
//! tables whose pages hold very different numbers of rows (with deleted rows and rows updated
//! in place), plain and partitioned; then the broken samplers, which the same tests must reject:
//! TABLESAMPLE SYSTEM and tsm_system_rows (whole pages), BERNOULLI and an acceptance sampler
//! that never look past a page's first 3 line pointers, and a page uniformly then a row of it.

use std::error::Error;

use postgres::{Client, NoTls};

use dealcards_core::rng::Stream;
use dealcards_fairness::rows::{
    pairs_table, uneven_table, BernoulliSamples, BrokenRowSampler, Layout, RowOutcome,
    SubsetSamples, FIRST_LINES, LAYOUT_QUERY,
};
use dealcards_fairness::ALPHA;

use crate::progress::Progress;
use crate::report;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The rate of the Bernoulli samples, in percent.
const PERCENT: f64 = 20.0;
/// The tables, made in the report's database and dropped at the end.
const UNEVEN: &str = "dealcards_fairness_rows";
const UNEVEN_PARTED: &str = "dealcards_fairness_rows_parted";
const PAIRS: &str = "dealcards_fairness_row_pairs";
const PAIRS_PARTED: &str = "dealcards_fairness_row_pairs_parted";

/// What the random rows part of the report found.
pub struct RowReport {
    /// Every live sampler passed every test.
    pub live_ok: bool,
    /// (broken sampler, tests that rejected it, tests).
    pub broken: Vec<(String, usize, usize)>,
}

fn layout(client: &mut Client, table: &str) -> Result<Layout> {
    let rows = client
        .query(&LAYOUT_QUERY.replace("{table}", table), &[])?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get::<_, i32>(2) as u32))
        .collect::<Vec<_>>();
    Ok(Layout::new(rows)?)
}

fn ids(client: &mut Client, statement: &postgres::Statement) -> Result<Vec<i32>> {
    Ok(client
        .query(statement, &[])?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

fn bernoulli(
    client: &mut Client,
    layout: &Layout,
    label: &str,
    query: &str,
    trials: u64,
) -> Result<BernoulliSamples> {
    let mut samples = BernoulliSamples::new(layout.clone(), PERCENT / 100.0);
    let statement = client.prepare(query)?;
    let mut progress = Progress::start(label, "samples", trials);
    for _ in 0..trials {
        samples.record(&ids(client, &statement)?)?;
        progress.advance(1);
    }
    progress.finish();
    Ok(samples)
}

fn subsets(
    client: &mut Client,
    layout: &Layout,
    label: &str,
    query: &str,
    trials: u64,
) -> Result<SubsetSamples> {
    let mut samples = SubsetSamples::new(layout.clone(), 2);
    let statement = client.prepare(query)?;
    let mut progress = Progress::start(label, "samples", trials);
    for _ in 0..trials {
        samples.record(&ids(client, &statement)?)?;
        progress.advance(1);
    }
    progress.finish();
    Ok(samples)
}

fn table(outcomes: &[RowOutcome]) {
    println!(
        "{:<40} {:>12} {:>6} {:>10}  result",
        "test", "statistic", "df", "p-value"
    );
    for o in outcomes {
        println!(
            "{:<40} {:>12.1} {:>6} {:>10}  {}",
            o.test,
            o.result.statistic,
            o.result.df,
            report::p_value(o.result.p_value),
            if o.result.p_value >= ALPHA {
                "pass"
            } else {
                "FAIL"
            }
        );
    }
}

fn describe(layout: &Layout) -> String {
    let sizes = layout.page_sizes();
    format!(
        "{} visible rows on {} pages, {} to {} a page",
        layout.len(),
        layout.pages(),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0)
    )
}

/// Runs the random rows part of the report: `trials` samples of each sampler.
pub fn run(dsn: &str, trials: u64) -> Result<Option<RowReport>> {
    let mut client = Client::connect(dsn, NoTls)?;
    let schema: String = client
        .query_one(
            "SELECT quote_ident(n.nspname) FROM pg_extension e \
               JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'dealcards'",
            &[],
        )?
        .get(0);
    let has_sample_rows: bool = client
        .query_one(
            "SELECT to_regprocedure($1 || '.sample_rows(anyelement,integer,bytea)') IS NOT NULL",
            &[&schema],
        )?
        .get(0);
    report::section("random rows: TABLESAMPLE sparse_bernoulli and sample_rows");
    if !has_sample_rows {
        println!("SKIPPED: sample_rows is not installed in this database (before 0.7.0)");
        return Ok(None);
    }
    let system_rows = make_tables(&mut client)?;
    println!(
        "sizes: {} samples of each sampler; sparse_bernoulli at {PERCENT}%, sample_rows of 2 \
         rows; alpha = {ALPHA:e}",
        report::count(trials)
    );
    let live_ok = judge_live(&mut client, &schema, trials)?;

    // The broken samplers, at the same sizes, on the same tables.
    let mut broken = Vec::new();
    judge_broken_on_server(&mut client, system_rows, trials, &mut broken)?;
    judge_broken_here(&mut client, trials, &mut broken)?;
    client.batch_execute(&format!(
        "DROP TABLE {UNEVEN}, {UNEVEN_PARTED}, {PAIRS}, {PAIRS_PARTED}"
    ))?;
    Ok(Some(RowReport { live_ok, broken }))
}

/// Makes the tables; whether tsm_system_rows is there.
fn make_tables(client: &mut Client) -> Result<bool> {
    client.batch_execute("SET client_min_messages = warning")?;
    let system_rows = client
        .batch_execute("CREATE EXTENSION IF NOT EXISTS tsm_system_rows")
        .is_ok();
    for (name, partitioned) in [(UNEVEN, false), (UNEVEN_PARTED, true)] {
        client.batch_execute(&uneven_table(name, partitioned))?;
    }
    for (name, partitioned) in [(PAIRS, false), (PAIRS_PARTED, true)] {
        client.batch_execute(&pairs_table(name, partitioned))?;
    }
    Ok(system_rows)
}

/// Samples and tests sparse_bernoulli and sample_rows; whether every test passed.
fn judge_live(client: &mut Client, schema: &str, trials: u64) -> Result<bool> {
    let sparse =
        |t: &str| format!("SELECT id FROM {t} TABLESAMPLE {schema}.sparse_bernoulli ({PERCENT})");
    let sample_rows = |t: &str| format!("SELECT id FROM {schema}.sample_rows(NULL::{t}, 2)");
    let mut live_ok = true;
    for (name, label) in [(UNEVEN, "a table"), (UNEVEN_PARTED, "a partitioned table")] {
        let layout = layout(client, name)?;
        println!("\n{label}: {}", describe(&layout));
        let samples = bernoulli(
            client,
            &layout,
            &format!("sparse_bernoulli on {label}"),
            &sparse(name),
            trials,
        )?;
        println!("TABLESAMPLE sparse_bernoulli ({PERCENT}):");
        let outcomes = samples.outcomes();
        table(&outcomes);
        live_ok &= outcomes.iter().all(|o| o.result.p_value >= ALPHA);
        let samples = subsets(
            client,
            &layout,
            &format!("sample_rows on {label}"),
            &sample_rows(name),
            trials,
        )?;
        println!("sample_rows(NULL::{name}, 2):");
        let outcomes = samples.outcomes();
        table(&outcomes);
        live_ok &= outcomes.iter().all(|o| o.result.p_value >= ALPHA);
    }
    for (name, label) in [
        (PAIRS, "10 rows"),
        (PAIRS_PARTED, "10 rows in two partitions"),
    ] {
        let layout = layout(client, name)?;
        println!("\n{label}: {}", describe(&layout));
        let samples = subsets(
            client,
            &layout,
            &format!("sample_rows on {label}"),
            &sample_rows(name),
            trials,
        )?;
        println!("sample_rows(NULL::{name}, 2):");
        let outcomes = samples.outcomes();
        table(&outcomes);
        live_ok &= outcomes.iter().all(|o| o.result.p_value >= ALPHA);
    }
    Ok(live_ok)
}

/// Prints a broken sampler's outcomes and adds (name, tests that rejected it, tests) to
/// `broken`.
fn judge(
    broken: &mut Vec<(String, usize, usize)>,
    name: String,
    fault: &str,
    outcomes: Vec<RowOutcome>,
) {
    report::section(&format!("broken: {name}, must fail"));
    println!("its fault: {fault}");
    table(&outcomes);
    let failed = outcomes.iter().filter(|o| o.result.p_value < ALPHA).count();
    println!("rejected by {failed} of {} tests", outcomes.len());
    broken.push((name, failed, outcomes.len()));
}

/// The broken samplers the server has: TABLESAMPLE system, BERNOULLI of the first line
/// pointers and, when `system_rows`, tsm_system_rows.
fn judge_broken_on_server(
    client: &mut Client,
    system_rows: bool,
    trials: u64,
    broken: &mut Vec<(String, usize, usize)>,
) -> Result<()> {
    let uneven = layout(client, UNEVEN)?;
    let pairs = layout(client, PAIRS)?;
    let system = bernoulli(
        client,
        &uneven,
        "TABLESAMPLE system",
        &format!("SELECT id FROM {UNEVEN} TABLESAMPLE system ({PERCENT})"),
        trials,
    )?;
    judge(
        broken,
        format!("TABLESAMPLE system ({PERCENT})"),
        "takes whole pages: every row with probability p, but a page's rows together",
        system.outcomes(),
    );
    let eligible = uneven
        .rows()
        .iter()
        .filter(|r| r.line <= FIRST_LINES)
        .count();
    let first_lines = bernoulli(
        client,
        &uneven,
        "BERNOULLI of the first line pointers",
        &format!(
            "SELECT id FROM {UNEVEN} TABLESAMPLE bernoulli ({}) WHERE (ctid::text::point)[1] <= {FIRST_LINES}",
            (PERCENT * uneven.len() as f64 / eligible as f64).min(100.0)
        ),
        trials,
    )?;
    judge(
        broken,
        format!("BERNOULLI, line pointers 1 to {FIRST_LINES} only"),
        "never looks past a page's first line pointers: the rows after them never come",
        first_lines.outcomes(),
    );
    if !system_rows {
        println!("\ntsm_system_rows: SKIPPED: the contrib extension is not available");
        return Ok(());
    }
    for (layout, table, label, name) in [
        (&uneven, UNEVEN, "tsm_system_rows", "tsm_system_rows (2)"),
        (
            &pairs,
            PAIRS,
            "tsm_system_rows on 10 rows",
            "tsm_system_rows (2), 10 rows",
        ),
    ] {
        let samples = subsets(
            client,
            layout,
            label,
            &format!("SELECT id FROM {table} TABLESAMPLE system_rows (2)"),
            trials,
        )?;
        judge(
            broken,
            name.into(),
            "takes the rows of a page at random: the 2 rows come from one page",
            samples.outcomes(),
        );
    }
    Ok(())
}

/// The broken samplers of crates/fairness, run here on the uneven table's layout.
fn judge_broken_here(
    client: &mut Client,
    trials: u64,
    broken: &mut Vec<(String, usize, usize)>,
) -> Result<()> {
    let uneven = layout(client, UNEVEN)?;
    for sampler in BrokenRowSampler::ALL {
        let mut stream = Stream::from_os()?;
        let mut samples = SubsetSamples::new(uneven.clone(), 2);
        for _ in 0..trials {
            samples.record(&sampler.sample(&uneven, 2, &mut stream))?;
        }
        let fault = match sampler {
            BrokenRowSampler::PageThenRow => {
                "a row of a sparse page comes more often than one of a dense page"
            }
            BrokenRowSampler::FirstLines => {
                "acceptance and rejection over the first line pointers only: the rows after them never come"
            }
        };
        judge(
            broken,
            format!("2 rows: {}", sampler.name()),
            fault,
            samples.outcomes(),
        );
    }
    Ok(())
}
