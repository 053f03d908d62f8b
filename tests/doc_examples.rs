#![cfg(feature = "server_tests")]
//! Every SQL example of README.md and docs/*.md, run against the server under test.
//!
//! An example is a block fenced as `sql`. When a block fenced as `text` follows it (blank lines
//! between are allowed), psql must print exactly that text for it, errors included; otherwise it
//! must run without an error. The examples of one file run in order, each in its own psql
//! session, in one fresh UTF8 database with the extension, so a file can build on its earlier
//! examples. A block fenced as `sql no-check` is left out: it needs two connections at once,
//! and its file says how it is tested instead.
//! Run by `make test` (needs DEALCARDS_TEST_DSN and DEALCARDS_PG_BIN).

mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Example {
    line: usize,
    sql: String,
    expected: Option<String>,
}

/// The examples of a Markdown text, in order.
fn examples(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown.lines().collect();
    // (fence info, first line number, body) of every fenced block.
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some(info) = lines[i].strip_prefix("```") {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && lines[end] != "```" {
                end += 1;
            }
            blocks.push((
                info.trim().to_string(),
                start,
                lines[start..end].join("\n"),
                end,
            ));
            i = end + 1;
        } else {
            i += 1;
        }
    }
    let mut found = Vec::new();
    for (k, (info, start, body, end)) in blocks.iter().enumerate() {
        if info != "sql" {
            continue;
        }
        let expected = blocks.get(k + 1).and_then(|(next, next_start, text, _)| {
            let between = &lines[end + 1..next_start - 1];
            (next == "text" && between.iter().all(|l| l.trim().is_empty())).then(|| text.clone())
        });
        found.push(Example {
            line: *start,
            sql: body.clone(),
            expected,
        });
    }
    found
}

/// Lines without trailing blanks, and no blank lines at the end: what an editor may change
/// without changing what the reader sees.
fn normalized(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_string()
}

/// What psql prints for `sql` (results and errors, in order), and whether it succeeded.
fn psql(dbname: &str, sql: &str, stop_on_error: bool) -> (String, bool) {
    // One file per call: the tests of this file run on several threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let output =
        std::env::temp_dir().join(format!("dealcards-doc-{}-{call}.out", std::process::id()));
    let file = std::fs::File::create(&output).unwrap();
    let mut child = Command::new(server::pg_program("psql"))
        .args([
            "-X",
            "-q",
            "-v",
            &format!("ON_ERROR_STOP={}", stop_on_error as u8),
        ])
        .args(server::program_args(dbname))
        .env("PGCLIENTENCODING", "UTF8")
        .stdin(Stdio::piped())
        .stdout(Stdio::from(file.try_clone().unwrap()))
        .stderr(Stdio::from(file))
        .spawn()
        .expect("psql runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let ok = child.wait().unwrap().success();
    let printed = std::fs::read_to_string(&output).unwrap();
    std::fs::remove_file(&output).unwrap();
    (printed, ok)
}

fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_sql_example_prints_what_the_docs_show() {
    let db = "dealcards_docs";
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in documents() {
        server::fresh_database_in(db, "UTF8");
        let (_, ok) = psql(db, "CREATE EXTENSION dealcards;", true);
        assert!(ok);
        let name = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        for example in examples(&std::fs::read_to_string(&path).unwrap()) {
            checked += 1;
            let where_ = format!("{name}:{}", example.line);
            match &example.expected {
                Some(expected) => {
                    let (printed, _) = psql(db, &example.sql, false);
                    if normalized(&printed) != normalized(expected) {
                        failures.push(format!(
                            "{where_}: shown\n{}\nbut psql printed\n{}",
                            normalized(expected),
                            normalized(&printed)
                        ));
                    }
                }
                None => {
                    let (printed, ok) = psql(db, &example.sql, true);
                    if !ok {
                        failures.push(format!("{where_}: failed:\n{printed}"));
                    }
                }
            }
        }
    }
    assert!(checked > 0, "no SQL examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The parser finds examples and their shown output, and a wrong output fails the check.
#[test]
fn a_wrong_output_is_caught() {
    let text = "x\n```sql\nSELECT 1 AS one;\n```\n\n```text\n one \n-----\n   2\n(1 row)\n```\n```sql no-check\nLISTEN x;\n```\n";
    let found = examples(text);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, 2);
    let db = server::dsn_setting("dbname");
    let (printed, _) = psql(&db, &found[0].sql, false);
    assert_ne!(
        normalized(&printed),
        normalized(found[0].expected.as_ref().unwrap())
    );
    assert_eq!(
        normalized(&printed),
        normalized(" one \n-----\n   1\n(1 row)\n")
    );
}

/// Whether `sql` calls or names `function`: the name as a whole word.
fn names(sql: &str, function: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    sql.match_indices(function).any(|(at, _)| {
        let before = sql[..at].chars().next_back();
        let after = sql[at + function.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// Every SQL function of the extension that a user calls has a real example in docs/: a block
/// `make test` runs (the README's short session links to the pages instead of touring them).
/// What a user never calls is left out, read from the catalog: the support functions of the
/// aggregates and of their state type, and the trigger and event trigger functions.
#[test]
fn every_function_has_an_example_in_the_docs() {
    let mut client = server::connect();
    let functions: Vec<String> = client
        .query(
            "SELECT DISTINCT p.proname::text
               FROM pg_proc p
               JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                AND d.deptype = 'e'
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
              WHERE p.prorettype NOT IN ('event_trigger'::regtype, 'trigger'::regtype)
                AND NOT EXISTS (SELECT FROM pg_aggregate a
                                 WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
                                                 a.aggserialfn, a.aggdeserialfn))
                AND NOT EXISTS (SELECT FROM pg_type t
                                 WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend))
              ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        functions.iter().any(|f| f == "deal_cards") && functions.len() > 30,
        "the catalog query found too few functions: {functions:?}"
    );
    let examples: Vec<String> = documents()
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("docs")))
        .flat_map(|p| examples(&std::fs::read_to_string(p).unwrap()))
        .map(|e| e.sql)
        .collect();
    let missing: Vec<&String> = functions
        .iter()
        .filter(|f| !examples.iter().any(|sql| names(sql, f)))
        .collect();
    assert!(
        missing.is_empty(),
        "no example in docs/ calls {missing:?}: add one to the function's page"
    );
}

/// The name match is by whole word: a longer name, or a name inside another, is not a call.
#[test]
fn a_function_named_only_inside_another_name_is_missing() {
    assert!(names("SELECT shuffle_ints(1, 3)", "shuffle_ints"));
    assert!(names(
        "FROM t TABLESAMPLE sparse_bernoulli (1)",
        "sparse_bernoulli"
    ));
    assert!(!names("SELECT shuffle_ints_x(1, 3)", "shuffle_ints"));
    assert!(!names("SELECT my_shuffle_ints(1, 3)", "shuffle_ints"));
    assert!(!names("SELECT 1", "shuffle_ints"));
}
