//! Random rows of a table: inclusion tests for a sampler of rows, judged against where the
//! table's visible rows lie (their pages and line pointers), and broken samplers they must reject.
//!
//! Two kinds of sampler are judged:
//! - a Bernoulli sample at rate p (`TABLESAMPLE sparse_bernoulli (p)`): every visible row taken
//!   with probability p, independently of every other ([`BernoulliSamples`]);
//! - a sample of exactly k rows (`sample_rows(relation, k)`): every k-subset of the visible rows
//!   equally likely ([`SubsetSamples`]).
//!
//! Each test is a chi-square test of counts over many samples: how often each row came (by
//! row), how many rows each page gave (by page), and how often rows came together (by pairs).
//! A sampler that favours sparse pages fails by row and by page; one that takes whole pages
//! (TABLESAMPLE SYSTEM, tsm_system_rows) gives the right chance to each row but brings the rows
//! of a page together, and fails by pairs; one that never looks past a page's first line
//! pointers never takes the rows after them, and fails by row.
//!
//! The table the server tests and the fairness report sample is [`uneven_table`]: pages of 4
//! wide rows and pages of dozens of narrow ones, rows deleted and not vacuumed, rows updated in
//! place (HOT) and moved.

use std::collections::{BTreeMap, HashMap};

use dealcards_core::rng::Stream;

use crate::stats::{self, ChiSquare};

/// A visible row of the table: its id, its page (an index into [`Layout::pages`]) and its line
/// pointer number (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub id: i32,
    pub page: usize,
    pub line: u32,
}

/// Where the visible rows of a table are.
#[derive(Debug, Clone)]
pub struct Layout {
    rows: Vec<Row>,
    /// For each page, the indices (into `rows`) of its rows.
    pages: Vec<Vec<usize>>,
    page_names: Vec<String>,
    by_id: HashMap<i32, usize>,
    by_place: HashMap<(usize, u32), usize>,
}

impl Layout {
    /// The layout of rows given as (id, page, line pointer), the page by any name that tells
    /// pages apart (a relation or shard and a block number): what
    /// [`LAYOUT_QUERY`] returns. An id that comes twice is an error.
    pub fn new(rows: impl IntoIterator<Item = (i32, String, u32)>) -> Result<Layout, String> {
        let mut page_of: BTreeMap<String, usize> = BTreeMap::new();
        let mut layout = Layout {
            rows: Vec::new(),
            pages: Vec::new(),
            page_names: Vec::new(),
            by_id: HashMap::new(),
            by_place: HashMap::new(),
        };
        for (id, page_name, line) in rows {
            let page = *page_of.entry(page_name.clone()).or_insert_with(|| {
                layout.pages.push(Vec::new());
                layout.page_names.push(page_name.clone());
                layout.pages.len() - 1
            });
            let index = layout.rows.len();
            if layout.by_id.insert(id, index).is_some() {
                return Err(format!("row id {id} is not unique"));
            }
            if layout.by_place.insert((page, line), index).is_some() {
                return Err(format!("two rows at line {line} of page {page_name}"));
            }
            layout.rows.push(Row { id, page, line });
            layout.pages[page].push(index);
        }
        Ok(layout)
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The number of visible rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The number of pages holding a visible row.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// The visible rows of each page.
    pub fn page_sizes(&self) -> Vec<usize> {
        self.pages.iter().map(Vec::len).collect()
    }

    pub fn page_name(&self, page: usize) -> &str {
        &self.page_names[page]
    }

    /// The rows of a sample (ids) as indices into [`Layout::rows`]: an id that is not a visible
    /// row, or that comes twice, is an error.
    pub fn indices(&self, sample: &[i32]) -> Result<Vec<usize>, String> {
        let mut seen = vec![false; self.rows.len()];
        let mut indices = Vec::with_capacity(sample.len());
        for id in sample {
            let index = *self
                .by_id
                .get(id)
                .ok_or_else(|| format!("row {id} is not a visible row of the table: {sample:?}"))?;
            if std::mem::replace(&mut seen[index], true) {
                return Err(format!("row {id} came twice in one sample: {sample:?}"));
            }
            indices.push(index);
        }
        Ok(indices)
    }
}

/// The ids, pages and line pointers of a table's visible rows, `{table}` replaced by its name:
/// a page is named by its relation (a partition's own) and its block number.
pub const LAYOUT_QUERY: &str =
    "SELECT id, tableoid::regclass::text || ':' || (ctid::text::point)[0]::text, \
     (ctid::text::point)[1]::int FROM {table}";

/// How the test tables are stored: room for updates in place, and no autovacuum to clean up
/// the deleted rows.
const STORAGE: &str = "WITH (fillfactor = 90, autovacuum_enabled = off)";

/// The SQL that creates `name` empty (columns `part int, id int, pad text`), plain or partitioned
/// by list on `part` into `name`_1 and `name`_2.
pub fn create_table(name: &str, partitioned: bool) -> String {
    if partitioned {
        format!(
            "DROP TABLE IF EXISTS {name};
             CREATE TABLE {name} (part int, id int, pad text) PARTITION BY LIST (part);
             CREATE TABLE {name}_1 PARTITION OF {name} FOR VALUES IN (1) {STORAGE};
             CREATE TABLE {name}_2 PARTITION OF {name} FOR VALUES IN (2) {STORAGE};"
        )
    } else {
        format!(
            "DROP TABLE IF EXISTS {name};
             CREATE TABLE {name} (part int, id int, pad text) {STORAGE};"
        )
    }
}

/// The SQL that fills the table `name` of [`create_table`] so that its pages hold very
/// different numbers of rows: four rounds of 8 wide rows (1,728 bytes, stored in line: 4 a page)
/// and 160 narrow ones (dozens a page), then, without VACUUM, three narrow rows in four and
/// every seventh wide row deleted, and every fifth remaining row updated: the narrow ones in
/// place (HOT: no index, and the room fillfactor leaves), the wide ones moved to other pages.
/// About 190 visible rows on about 10 pages (of each partition: `part` is 1 + id % 2).
pub fn uneven_rows(name: &str) -> String {
    let mut sql = String::new();
    for round in 0..4 {
        let first = round * 168 + 1;
        sql.push_str(&format!(
            "INSERT INTO {name} SELECT 1 + i % 2, i, repeat(md5(i::text), 54)
               FROM generate_series({first}, {}) i;
             INSERT INTO {name} SELECT 1 + i % 2, i, ''
               FROM generate_series({}, {}) i;\n",
            first + 7,
            first + 8,
            first + 167
        ));
    }
    sql.push_str(&format!(
        "DELETE FROM {name} WHERE (pad = '' AND id % 4 <> 0) OR (pad <> '' AND id % 7 = 0);
         UPDATE {name} SET pad = pad || 'x' WHERE id % 5 = 0;"
    ));
    sql
}

/// [`create_table`] and [`uneven_rows`].
pub fn uneven_table(name: &str, partitioned: bool) -> String {
    create_table(name, partitioned) + &uneven_rows(name)
}

/// The SQL that fills the table `name` of [`create_table`] with 10 visible rows on 3 pages, for
/// the test of every pair of rows: 2 wide rows alone on a page, 6 narrow rows among 154 deleted
/// ones, 3 of them updated in place (HOT), then 2 wide rows alone again. Partitioned, the wide
/// rows are in `name`_1 and the narrow ones in `name`_2.
pub fn pairs_rows(name: &str) -> String {
    format!(
        "INSERT INTO {name} SELECT 1, i, repeat(md5(i::text), 54) FROM generate_series(1, 4) i;
         INSERT INTO {name} SELECT 2, i, '' FROM generate_series(101, 260) i;
         INSERT INTO {name} SELECT 1, i, repeat(md5(i::text), 54) FROM generate_series(5, 8) i;
         DELETE FROM {name} WHERE id IN (2, 3, 6, 7) OR (id > 100 AND id % 25 <> 0);
         UPDATE {name} SET pad = 'moved' WHERE id IN (125, 175, 225);"
    )
}

/// [`create_table`] and [`pairs_rows`].
pub fn pairs_table(name: &str, partitioned: bool) -> String {
    create_table(name, partitioned) + &pairs_rows(name)
}

/// Pearson's statistic of counts against expected proportions, with its degrees of freedom,
/// for counts of the rows a sampler without replacement drew: k distinct rows in each of the
/// samples, each of n rows equally likely, counted by row or by any grouping of rows (pages).
///
/// Over T samples of k of n rows, the counts' covariance is (n - k) / (n - 1) times that of a
/// multinomial of T k draws, so Pearson's sum, scaled by (n - 1) / (n - k), is a chi-square with
/// one degree of freedom less than the groups (exact for k = 1, where it is the multinomial).
fn without_replacement(counts: &[u64], weights: &[f64], n: usize, k: usize) -> ChiSquare {
    let pearson = stats::chi_square_expected(counts, weights);
    let statistic = if k < n {
        pearson.statistic * (n - 1) as f64 / (n - k) as f64
    } else {
        0.0
    };
    ChiSquare {
        statistic,
        df: pearson.df,
        p_value: stats::chi_square_sf(statistic, pearson.df as f64),
    }
}

/// A sum over independent groups of squared z-scores: a chi-square with a degree of freedom
/// each.
fn z_squares(terms: impl IntoIterator<Item = (f64, f64, f64)>) -> ChiSquare {
    let (mut statistic, mut df) = (0.0, 0u64);
    for (observed, mean, variance) in terms {
        statistic += (observed - mean).powi(2) / variance;
        df += 1;
    }
    ChiSquare {
        statistic,
        df,
        p_value: stats::chi_square_sf(statistic, df as f64),
    }
}

/// One test of a sampler of rows and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct RowOutcome {
    pub test: String,
    pub result: ChiSquare,
}

impl RowOutcome {
    fn new(test: impl Into<String>, result: ChiSquare) -> RowOutcome {
        RowOutcome {
            test: test.into(),
            result,
        }
    }
}

/// Disjoint pairs of rows of one page each: the first and second rows of every page, the
/// third and fourth, and so on.
fn pairs_within_pages(layout: &Layout) -> Vec<(usize, usize)> {
    layout
        .pages
        .iter()
        .flat_map(|rows| rows.chunks_exact(2).map(|pair| (pair[0], pair[1])))
        .collect()
}

/// Disjoint pairs of rows of two different pages: with the rows listed page after page and h
/// the most rows a page holds, row i is paired with row i + h (never of the same page) for i in
/// [0, h), [2h, 3h), ...
fn pairs_across_pages(layout: &Layout) -> Vec<(usize, usize)> {
    let listed: Vec<usize> = layout.pages.iter().flatten().copied().collect();
    let h = layout.pages.iter().map(Vec::len).max().unwrap_or(0);
    let mut pairs = Vec::new();
    if h == 0 {
        return pairs;
    }
    let mut start = 0;
    while start + h < listed.len() {
        for i in start..start + h {
            if i + h < listed.len() {
                pairs.push((listed[i], listed[i + h]));
            }
        }
        start += 2 * h;
    }
    pairs
}

/// Bernoulli samples at rate p of a table of known layout (one sample per trial), counted for
/// the tests by row, by page, by size and by pairs of rows.
#[derive(Debug, Clone)]
pub struct BernoulliSamples {
    layout: Layout,
    p: f64,
    trials: u64,
    row_counts: Vec<u64>,
    page_counts: Vec<u64>,
    /// How many samples had each size 0..=n.
    sizes: Vec<u64>,
    within: Vec<(usize, usize)>,
    across: Vec<(usize, usize)>,
    /// For each pair, the trials where neither, only the first, only the second, both came.
    within_cells: Vec<[u64; 4]>,
    across_cells: Vec<[u64; 4]>,
}

impl BernoulliSamples {
    /// Samples of `layout`'s rows, each row taken with probability `p` (0 < p < 1).
    pub fn new(layout: Layout, p: f64) -> BernoulliSamples {
        assert!(p > 0.0 && p < 1.0, "p must be within (0, 1), got {p}");
        let within = pairs_within_pages(&layout);
        let across = pairs_across_pages(&layout);
        BernoulliSamples {
            p,
            trials: 0,
            row_counts: vec![0; layout.len()],
            page_counts: vec![0; layout.pages()],
            sizes: vec![0; layout.len() + 1],
            within_cells: vec![[0; 4]; within.len()],
            across_cells: vec![[0; 4]; across.len()],
            within,
            across,
            layout,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Counts one sample (ids): rows that are not visible rows of the table, or that come
    /// twice, are an error.
    pub fn record(&mut self, sample: &[i32]) -> Result<(), String> {
        let indices = self.layout.indices(sample)?;
        let mut taken = vec![false; self.layout.len()];
        for &i in &indices {
            taken[i] = true;
            self.row_counts[i] += 1;
            self.page_counts[self.layout.rows[i].page] += 1;
        }
        self.sizes[indices.len()] += 1;
        for (pairs, cells) in [
            (&self.within, &mut self.within_cells),
            (&self.across, &mut self.across_cells),
        ] {
            for (&(a, b), cell) in pairs.iter().zip(cells.iter_mut()) {
                cell[taken[a] as usize + 2 * taken[b] as usize] += 1;
            }
        }
        self.trials += 1;
        Ok(())
    }

    /// Each row's count against T p: the rows are independent, a degree of freedom each.
    pub fn by_row(&self) -> ChiSquare {
        let (t, p) = (self.trials as f64, self.p);
        z_squares(
            self.row_counts
                .iter()
                .map(|&c| (c as f64, t * p, t * p * (1.0 - p))),
        )
    }

    /// Each page's count of rows taken against T m p, m its rows: Binomial(T m, p), the pages
    /// independent.
    pub fn by_page(&self) -> ChiSquare {
        let (t, p) = (self.trials as f64, self.p);
        z_squares(
            self.page_counts
                .iter()
                .zip(self.layout.page_sizes())
                .map(|(&c, m)| {
                    let tm = t * m as f64;
                    (c as f64, tm * p, tm * p * (1.0 - p))
                }),
        )
    }

    /// The samples' sizes against Binomial(n, p), tails pooled so that every bin expects 20 or
    /// more: rows that come or stay away together spread the sizes.
    pub fn by_size(&self) -> ChiSquare {
        let (n, p) = (self.layout.len(), self.p);
        let mut binomial = vec![0.0f64; n + 1];
        binomial[0] = (1.0 - p).powi(n as i32);
        for k in 1..=n {
            binomial[k] = binomial[k - 1] * (n + 1 - k) as f64 / k as f64 * p / (1.0 - p);
        }
        let enough = 20.0 / self.trials.max(1) as f64;
        let (mut bins, mut weights) = (Vec::new(), Vec::new());
        let (mut count, mut weight) = (0u64, 0.0);
        for k in 0..=n {
            count += self.sizes[k];
            weight += binomial[k];
            let rest: f64 = binomial[k + 1..].iter().sum();
            if weight >= enough && rest >= enough {
                bins.push(count);
                weights.push(weight);
                (count, weight) = (0, 0.0);
            }
        }
        bins.push(count);
        weights.push(weight);
        stats::chi_square_expected(&bins, &weights)
    }

    fn pairs(&self, cells: &[[u64; 4]]) -> ChiSquare {
        let p = self.p;
        let expected = [(1.0 - p) * (1.0 - p), p * (1.0 - p), (1.0 - p) * p, p * p];
        let (mut statistic, mut df) = (0.0, 0u64);
        for cell in cells {
            let one = stats::chi_square_expected(cell, &expected);
            statistic += one.statistic;
            df += one.df;
        }
        ChiSquare {
            statistic,
            df,
            p_value: stats::chi_square_sf(statistic, df as f64),
        }
    }

    /// Disjoint pairs of rows of one page: how often neither, either alone, or both came,
    /// against (1-p)^2, p(1-p), (1-p)p, p^2; the pairs independent, 3 degrees of freedom each.
    pub fn pairs_within_pages(&self) -> ChiSquare {
        self.pairs(&self.within_cells)
    }

    /// The same over disjoint pairs of rows of two different pages.
    pub fn pairs_across_pages(&self) -> ChiSquare {
        self.pairs(&self.across_cells)
    }

    /// Every test, named.
    pub fn outcomes(&self) -> Vec<RowOutcome> {
        vec![
            RowOutcome::new(
                format!("by row ({} rows)", self.layout.len()),
                self.by_row(),
            ),
            RowOutcome::new(
                format!("by page ({} pages)", self.layout.pages()),
                self.by_page(),
            ),
            RowOutcome::new("by sample size", self.by_size()),
            RowOutcome::new(
                format!("pairs in one page ({} pairs)", self.within.len()),
                self.pairs_within_pages(),
            ),
            RowOutcome::new(
                format!("pairs across pages ({} pairs)", self.across.len()),
                self.pairs_across_pages(),
            ),
        ]
    }
}

/// Samples of exactly k rows of a table of known layout, counted for the tests by row, by page
/// and (for k = 2) by pairs of pages and pairs of rows.
#[derive(Debug, Clone)]
pub struct SubsetSamples {
    layout: Layout,
    k: usize,
    trials: u64,
    row_counts: Vec<u64>,
    page_counts: Vec<u64>,
    /// For k = 2: how often each unordered pair of pages (a <= b) gave the pair.
    page_pairs: HashMap<(usize, usize), u64>,
    /// For k = 2: how often each pair of rows came, by its rank among the n (n - 1) / 2.
    row_pairs: Vec<u64>,
}

/// The rank of the pair of rows a < b among all pairs of n: (b (b - 1)) / 2 + a.
fn pair_rank(a: usize, b: usize) -> usize {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    b * (b - 1) / 2 + a
}

/// Pairs of rows are counted one by one up to this many rows (1,225 pairs).
const ROW_PAIRS_UP_TO: usize = 50;

impl SubsetSamples {
    /// Samples of `k` rows of `layout` (k at most its rows).
    pub fn new(layout: Layout, k: usize) -> SubsetSamples {
        assert!(
            k >= 1 && k <= layout.len(),
            "k = {k} of {} rows",
            layout.len()
        );
        let n = layout.len();
        SubsetSamples {
            k,
            trials: 0,
            row_counts: vec![0; n],
            page_counts: vec![0; layout.pages()],
            page_pairs: HashMap::new(),
            row_pairs: if k == 2 && n <= ROW_PAIRS_UP_TO {
                vec![0; n * (n - 1) / 2]
            } else {
                Vec::new()
            },
            layout,
        }
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Counts one sample (ids): anything but k distinct visible rows is an error.
    pub fn record(&mut self, sample: &[i32]) -> Result<(), String> {
        let indices = self.layout.indices(sample)?;
        if indices.len() != self.k {
            return Err(format!(
                "a sample of {} rows where {} were asked for: {sample:?}",
                indices.len(),
                self.k
            ));
        }
        for &i in &indices {
            self.row_counts[i] += 1;
            self.page_counts[self.layout.rows[i].page] += 1;
        }
        if self.k == 2 {
            let (a, b) = (indices[0], indices[1]);
            let (pa, pb) = (self.layout.rows[a].page, self.layout.rows[b].page);
            *self.page_pairs.entry((pa.min(pb), pa.max(pb))).or_default() += 1;
            if !self.row_pairs.is_empty() {
                self.row_pairs[pair_rank(a, b)] += 1;
            }
        }
        self.trials += 1;
        Ok(())
    }

    /// Each row's count against T k / n.
    pub fn by_row(&self) -> ChiSquare {
        let n = self.layout.len();
        without_replacement(&self.row_counts, &vec![1.0; n], n, self.k)
    }

    /// Each page's count of rows against T k m / n, m its rows.
    pub fn by_page(&self) -> ChiSquare {
        let weights: Vec<f64> = self.layout.page_sizes().iter().map(|&m| m as f64).collect();
        without_replacement(&self.page_counts, &weights, self.layout.len(), self.k)
    }

    /// For k = 2 (one pair a sample: a multinomial over the pairs), how often each pair of pages
    /// gave the pair, against m_a m_b pairs of rows (m (m - 1) / 2 within one page); pairs of
    /// pages expected fewer than 10 times are pooled, those of one page apart from those of two.
    pub fn pairs_by_page(&self) -> Option<ChiSquare> {
        if self.k != 2 {
            return None;
        }
        let sizes = self.layout.page_sizes();
        let all_pairs = (self.layout.len() * (self.layout.len() - 1) / 2) as f64;
        let t = self.trials as f64;
        let (mut counts, mut weights) = (Vec::new(), Vec::new());
        let mut pooled = [(0u64, 0.0f64); 2];
        for a in 0..sizes.len() {
            for b in a..sizes.len() {
                let weight = if a == b {
                    (sizes[a] * sizes[a].saturating_sub(1) / 2) as f64
                } else {
                    (sizes[a] * sizes[b]) as f64
                };
                let count = self.page_pairs.get(&(a, b)).copied().unwrap_or(0);
                if weight == 0.0 {
                    // A page of one row cannot give both rows of a pair.
                    if count > 0 {
                        return Some(ChiSquare {
                            statistic: f64::INFINITY,
                            df: 1,
                            p_value: 0.0,
                        });
                    }
                    continue;
                }
                if t * weight / all_pairs < 10.0 {
                    let bin = &mut pooled[(a == b) as usize];
                    bin.0 += count;
                    bin.1 += weight;
                } else {
                    counts.push(count);
                    weights.push(weight);
                }
            }
        }
        for (count, weight) in pooled {
            if weight > 0.0 {
                counts.push(count);
                weights.push(weight);
            }
        }
        Some(stats::chi_square_expected(&counts, &weights))
    }

    /// For k = 2 and a table of at most 50 rows, how often each pair of rows came: all equally
    /// often.
    pub fn pairs_by_row(&self) -> Option<ChiSquare> {
        if self.row_pairs.is_empty() {
            return None;
        }
        Some(stats::chi_square_uniform(&self.row_pairs))
    }

    /// Every test that applies, named.
    pub fn outcomes(&self) -> Vec<RowOutcome> {
        let mut outcomes = vec![
            RowOutcome::new(
                format!("by row ({} rows)", self.layout.len()),
                self.by_row(),
            ),
            RowOutcome::new(
                format!("by page ({} pages)", self.layout.pages()),
                self.by_page(),
            ),
        ];
        if let Some(result) = self.pairs_by_page() {
            outcomes.push(RowOutcome::new("pairs by page", result));
        }
        if let Some(result) = self.pairs_by_row() {
            outcomes.push(RowOutcome::new(
                format!("pairs by row ({} pairs)", self.row_pairs.len()),
                result,
            ));
        }
        outcomes
    }
}

/// The broken samplers of rows the tests must reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokenRowSampler {
    /// A page uniformly, then a row uniformly within it (repeated until k distinct rows): a row
    /// of a sparse page is favoured over one of a dense page.
    PageThenRow,
    /// Olken's acceptance and rejection (a page uniformly, a line pointer uniformly, kept if it
    /// holds a visible row) that never looks past a page's first [`FIRST_LINES`] line
    /// pointers: the rows after them never come.
    FirstLines,
}

/// The line pointers [`BrokenRowSampler::FirstLines`] looks at.
pub const FIRST_LINES: u32 = 3;

impl BrokenRowSampler {
    pub const ALL: [BrokenRowSampler; 2] =
        [BrokenRowSampler::PageThenRow, BrokenRowSampler::FirstLines];

    pub fn name(self) -> &'static str {
        match self {
            BrokenRowSampler::PageThenRow => "a page, then a row of it",
            BrokenRowSampler::FirstLines => "the first 3 line pointers of a page",
        }
    }

    /// k distinct rows (ids) of `layout`.
    pub fn sample(self, layout: &Layout, k: usize, stream: &mut Stream) -> Vec<i32> {
        let mut taken: Vec<usize> = Vec::with_capacity(k);
        let eligible = match self {
            BrokenRowSampler::PageThenRow => layout.len(),
            BrokenRowSampler::FirstLines => {
                layout.rows.iter().filter(|r| r.line <= FIRST_LINES).count()
            }
        };
        assert!(
            k <= eligible,
            "{} can give {eligible} rows, not {k}",
            self.name()
        );
        while taken.len() < k {
            let page = stream.below(layout.pages() as u32) as usize;
            let row = match self {
                BrokenRowSampler::PageThenRow => {
                    let rows = &layout.pages[page];
                    Some(rows[stream.below(rows.len() as u32) as usize])
                }
                BrokenRowSampler::FirstLines => {
                    let line = 1 + stream.below(FIRST_LINES);
                    layout.by_place.get(&(page, line)).copied()
                }
            };
            if let Some(row) = row.filter(|r| !taken.contains(r)) {
                taken.push(row);
            }
        }
        taken.iter().map(|&i| layout.rows[i].id).collect()
    }

    /// A Bernoulli sample of the rows it can see: for [`BrokenRowSampler::FirstLines`], each
    /// row within a page's first line pointers with the rate that expects n p rows in all; for
    /// [`BrokenRowSampler::PageThenRow`], each page with probability p, then each row of it
    /// with the rate that gives a page's rows one by one (1 / m).
    pub fn bernoulli(self, layout: &Layout, p: f64, stream: &mut Stream) -> Vec<i32> {
        let chance =
            |stream: &mut Stream, q: f64| (stream.next_u64() >> 11) as f64 * 2f64.powi(-53) < q;
        match self {
            BrokenRowSampler::FirstLines => {
                let eligible = layout.rows.iter().filter(|r| r.line <= FIRST_LINES).count();
                let rate = (p * layout.len() as f64 / eligible as f64).min(1.0);
                layout
                    .rows
                    .iter()
                    .filter(|r| r.line <= FIRST_LINES)
                    .filter(|_| chance(stream, rate))
                    .map(|r| r.id)
                    .collect()
            }
            BrokenRowSampler::PageThenRow => {
                let mut sample = Vec::new();
                for rows in &layout.pages {
                    if chance(stream, p) {
                        let row = rows[stream.below(rows.len() as u32) as usize];
                        sample.push(layout.rows[row].id);
                    }
                }
                sample
            }
        }
    }
}

/// The right samplers, for the battery's own tests: a Bernoulli sample at rate p, and k rows
/// drawn without replacement, from a stream.
pub fn fair_bernoulli(layout: &Layout, p: f64, stream: &mut Stream) -> Vec<i32> {
    layout
        .rows
        .iter()
        .filter(|_| ((stream.next_u64() >> 11) as f64 * 2f64.powi(-53)) < p)
        .map(|r| r.id)
        .collect()
}

/// k rows without replacement, every k-subset equally likely (a partial Fisher-Yates).
pub fn fair_subset(layout: &Layout, k: usize, stream: &mut Stream) -> Vec<i32> {
    let mut rows: Vec<i32> = layout.rows.iter().map(|r| r.id).collect();
    for i in 0..k {
        let j = i + stream.below((rows.len() - i) as u32) as usize;
        rows.swap(i, j);
    }
    rows.truncate(k);
    rows
}

/// Whole pages, as TABLESAMPLE SYSTEM takes them: each page with probability p, all its rows.
pub fn whole_pages(layout: &Layout, p: f64, stream: &mut Stream) -> Vec<i32> {
    let mut sample = Vec::new();
    for rows in &layout.pages {
        if ((stream.next_u64() >> 11) as f64 * 2f64.powi(-53)) < p {
            sample.extend(rows.iter().map(|&i| layout.rows[i].id));
        }
    }
    sample
}

/// k rows from whole pages, as tsm_system_rows takes them: pages in a random order, every row
/// of each until k.
pub fn whole_pages_rows(layout: &Layout, k: usize, stream: &mut Stream) -> Vec<i32> {
    let mut pages: Vec<usize> = (0..layout.pages()).collect();
    let mut sample = Vec::with_capacity(k);
    for i in 0..pages.len() {
        let j = i + stream.below((pages.len() - i) as u32) as usize;
        pages.swap(i, j);
        for &row in &layout.pages[pages[i]] {
            if sample.len() < k {
                sample.push(layout.rows[row].id);
            }
        }
    }
    sample
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes;

    /// Pages of 4 rows and pages of 60 (lines with gaps, as deleted rows leave), and a page of
    /// one row.
    fn layout() -> Layout {
        let mut rows = Vec::new();
        let mut id = 0;
        for page in 0..12u32 {
            let m = match page {
                3 | 8 => 60,
                11 => 1,
                _ => 4,
            };
            for j in 0..m {
                id += 1;
                rows.push((id, format!("t:{page}"), 1 + 2 * j));
            }
        }
        Layout::new(rows).unwrap()
    }

    fn stream(seed: u8) -> Stream {
        Stream::from_seed([seed; 32])
    }

    fn bernoulli(sampler: impl Fn(&Layout, &mut Stream) -> Vec<i32>) -> BernoulliSamples {
        let mut samples = BernoulliSamples::new(layout(), 0.2);
        let mut stream = stream(7);
        for _ in 0..1500 {
            let sample = sampler(samples.layout(), &mut stream);
            samples.record(&sample).unwrap();
        }
        samples
    }

    fn subsets(sampler: impl Fn(&Layout, &mut Stream) -> Vec<i32>) -> SubsetSamples {
        let mut samples = SubsetSamples::new(layout(), 2);
        let mut stream = stream(9);
        for _ in 0..3000 {
            let sample = sampler(samples.layout(), &mut stream);
            samples.record(&sample).unwrap();
        }
        samples
    }

    #[test]
    fn the_layout_refuses_what_is_not_a_sample_of_its_rows() {
        let layout = layout();
        assert_eq!(layout.len(), 4 * 9 + 120 + 1);
        assert_eq!(layout.pages(), 12);
        assert!(layout.indices(&[1, 2]).is_ok());
        assert!(layout.indices(&[1, 1]).is_err());
        assert!(layout.indices(&[0]).is_err());
        assert!(Layout::new([(1, "a".into(), 1), (1, "b".into(), 1)]).is_err());
        assert!(Layout::new([(1, "a".into(), 1), (2, "a".into(), 1)]).is_err());
        let mut subsets = SubsetSamples::new(layout, 2);
        assert!(subsets.record(&[1]).is_err());
        assert!(subsets.record(&[1, 2, 3]).is_err());
    }

    #[test]
    fn disjoint_pairs_are_within_a_page_or_across_two() {
        let layout = layout();
        let page = |i: usize| layout.rows[i].page;
        let within = pairs_within_pages(&layout);
        let across = pairs_across_pages(&layout);
        assert!(within.iter().all(|&(a, b)| page(a) == page(b)));
        assert!(across.iter().all(|&(a, b)| page(a) != page(b)));
        for pairs in [&within, &across] {
            let mut rows: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            let all = rows.len();
            rows.sort();
            rows.dedup();
            assert_eq!(rows.len(), all, "pairs that share a row");
        }
        assert!(within.len() >= 70 && across.len() >= 30);
    }

    #[test]
    fn a_fair_bernoulli_sample_passes_and_broken_ones_fail() {
        for outcome in bernoulli(|l, s| fair_bernoulli(l, 0.2, s)).outcomes() {
            assert!(passes(&outcome.result), "{outcome:?}");
        }
        let pages = bernoulli(|l, s| whole_pages(l, 0.2, s));
        assert!(passes(&pages.by_row()), "{:?}", pages.by_row());
        assert!(!passes(&pages.pairs_within_pages()));
        assert!(!passes(&pages.by_size()));
        for broken in BrokenRowSampler::ALL {
            let samples = bernoulli(|l, s| broken.bernoulli(l, 0.2, s));
            assert!(!passes(&samples.by_row()), "{}", broken.name());
        }
    }

    #[test]
    fn a_fair_subset_passes_and_broken_ones_fail() {
        for outcome in subsets(|l, s| fair_subset(l, 2, s)).outcomes() {
            assert!(passes(&outcome.result), "{outcome:?}");
        }
        let pages = subsets(|l, s| whole_pages_rows(l, 2, s));
        assert!(!passes(&pages.pairs_by_page().unwrap()));
        let sparse = subsets(|l, s| BrokenRowSampler::PageThenRow.sample(l, 2, s));
        assert!(!passes(&sparse.by_row()) && !passes(&sparse.by_page()));
        let first = subsets(|l, s| BrokenRowSampler::FirstLines.sample(l, 2, s));
        assert!(!passes(&first.by_row()));
    }

    #[test]
    fn the_scaled_statistic_is_a_chi_square_without_replacement() {
        // Over many seeds, the by-row statistic of fair samples of 5 of 20 rows has the mean
        // of its chi-square (its df): unscaled, it would be (n - k) / (n - 1) of that.
        let rows: Vec<(i32, String, u32)> = (0..20)
            .map(|i| (i, format!("p{}", i / 4), 1 + i as u32 % 4))
            .collect();
        let layout = Layout::new(rows).unwrap();
        let mut total = 0.0;
        let runs = 400;
        for seed in 0..runs {
            let mut samples = SubsetSamples::new(layout.clone(), 5);
            let mut key = [0u8; 32];
            key[..4].copy_from_slice(&(seed as u32).to_le_bytes());
            let mut stream = Stream::from_seed(key);
            for _ in 0..200 {
                samples
                    .record(&fair_subset(&layout, 5, &mut stream))
                    .unwrap();
            }
            total += samples.by_row().statistic;
        }
        let mean = total / runs as f64;
        // df 19; the mean of 400 runs has a standard error of sqrt(2 * 19 / 400) = 0.31.
        assert!((mean - 19.0).abs() < 1.5, "mean {mean}");
    }
}
