//! The report's text: one table per dealer, one row per test.

use dealcards_fairness::Outcome;

/// A count with thousands separators: 5,000,000.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (k, digit) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

pub fn section(title: &str) {
    println!("\n== {title}");
}

/// A p-value readable at a glance: three decimals, or scientific notation when small, with
/// three digits so that one near alpha shows on which side it fell.
pub fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else if p > 0.0 {
        format!("{p:.2e}")
    } else {
        // Below what a double holds.
        "< 1e-300".to_string()
    }
}

pub fn table(outcomes: &[Outcome]) {
    println!(
        "{:<40} {:>12} {:>6} {:>10}  result",
        "test", "statistic", "df", "p-value"
    );
    for o in outcomes {
        println!(
            "{:<40} {:>12.1} {:>6} {:>10}  {}",
            o.test.name(),
            o.result.statistic,
            o.result.df,
            p_value(o.result.p_value),
            if o.passes() { "pass" } else { "FAIL" }
        );
    }
}
