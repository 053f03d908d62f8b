//! Progress of a long sampling step, on stderr: an indicatif bar on a terminal, a plain line at
//! every quarter otherwise (logs, CI), which a bar would not leave behind.

use std::io::{IsTerminal, Write};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Writes one line to stderr in a single write, so it does not interleave.
fn show(text: String) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

pub struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    done: u64,
    /// On a terminal, the bar; otherwise the last quarter shown as a line.
    bar: Option<ProgressBar>,
    quarter: u64,
    started: Instant,
}

impl Progress {
    pub fn start(label: &str, unit: &'static str, total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "  {prefix}: {bar:30} {pos} of {len} {msg} ({percent}%, {elapsed})",
                )
                .expect("a valid template"),
            );
            bar.set_prefix(label.to_string());
            bar.set_message(unit);
            bar
        });
        if bar.is_none() {
            show(format!("  {label}: {total} {unit} ...\n"));
        }
        Progress {
            label: label.to_string(),
            unit,
            total,
            done: 0,
            bar,
            quarter: 0,
            started: Instant::now(),
        }
    }

    fn percent(&self) -> u64 {
        (self.done * 100).checked_div(self.total).unwrap_or(100)
    }

    pub fn advance(&mut self, by: u64) {
        self.done = (self.done + by).min(self.total);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            return;
        }
        let percent = self.percent();
        if percent / 25 > self.quarter && percent < 100 {
            self.quarter = percent / 25;
            show(format!(
                "  {}: {}% ({} of {} {}, {:.0} s)\n",
                self.label,
                percent,
                self.done,
                self.total,
                self.unit,
                self.started.elapsed().as_secs_f64()
            ));
        }
    }

    pub fn finish(&self) {
        match &self.bar {
            Some(bar) => bar.finish(),
            None => show(format!(
                "  {}: done, {} {} in {:.1} s\n",
                self.label,
                self.total,
                self.unit,
                self.started.elapsed().as_secs_f64()
            )),
        }
    }
}
