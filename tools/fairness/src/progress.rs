//! Progress of a long sampling step, on stderr: redrawn in place on a terminal, a line at every
//! quarter otherwise (logs, CI).

use std::io::{IsTerminal, Write};

/// Writes one line (or a redraw) to stderr in a single write, so it does not interleave.
fn show(text: String) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}
use std::time::Instant;

pub struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    done: u64,
    /// The last percentage (terminal) or quarter (log) shown.
    shown: u64,
    terminal: bool,
    started: Instant,
}

impl Progress {
    pub fn start(label: &str, unit: &'static str, total: u64) -> Progress {
        let progress = Progress {
            label: label.to_string(),
            unit,
            total,
            done: 0,
            shown: 0,
            terminal: std::io::stderr().is_terminal(),
            started: Instant::now(),
        };
        if progress.terminal {
            progress.redraw();
        } else {
            show(format!("  {}: {total} {unit} ...\n", progress.label));
        }
        progress
    }

    fn percent(&self) -> u64 {
        (self.done * 100).checked_div(self.total).unwrap_or(100)
    }

    fn redraw(&self) {
        show(format!(
            "\r  {}: {} of {} {} ({}%, {:.0} s)",
            self.label,
            self.done,
            self.total,
            self.unit,
            self.percent(),
            self.started.elapsed().as_secs_f64()
        ));
    }

    pub fn advance(&mut self, by: u64) {
        self.done = (self.done + by).min(self.total);
        let percent = self.percent();
        if self.terminal {
            if percent != self.shown {
                self.shown = percent;
                self.redraw();
            }
        } else if percent / 25 > self.shown && percent < 100 {
            self.shown = percent / 25;
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
        let seconds = self.started.elapsed().as_secs_f64();
        if self.terminal {
            self.redraw();
            show("\n".into());
        } else {
            show(format!(
                "  {}: done, {} {} in {seconds:.1} s\n",
                self.label, self.total, self.unit
            ));
        }
    }
}
