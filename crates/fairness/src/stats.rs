//! Pearson's chi-square tests and their p-values, for judging shuffles.

/// A test's statistic, degrees of freedom and upper-tail p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    pub statistic: f64,
    pub df: u64,
    pub p_value: f64,
}

impl ChiSquare {
    fn new(statistic: f64, df: u64) -> Self {
        ChiSquare {
            statistic,
            df,
            p_value: chi_square_sf(statistic, df as f64),
        }
    }
}

/// Goodness of fit of counts to given expected proportions (which need not sum to 1).
pub fn chi_square_expected(counts: &[u64], weights: &[f64]) -> ChiSquare {
    assert_eq!(counts.len(), weights.len());
    let total: u64 = counts.iter().sum();
    let weight_sum: f64 = weights.iter().sum();
    let statistic = counts
        .iter()
        .zip(weights)
        .map(|(&c, &w)| {
            let expected = total as f64 * w / weight_sum;
            let d = c as f64 - expected;
            d * d / expected
        })
        .sum();
    ChiSquare::new(statistic, counts.len() as u64 - 1)
}

/// Goodness of fit of counts to equal proportions.
pub fn chi_square_uniform(counts: &[u64]) -> ChiSquare {
    chi_square_expected(counts, &vec![1.0; counts.len()])
}

/// A matrix of counts from deals of a deck: each deal sends every one of the n cards (rows) to
/// one column, and each column receives a fixed share of the deck (a card by position, one card
/// per position; or by destination, 17 : 17 : 17 : 3), so every row has the same total and the
/// cells within a row are expected in the given column proportions.
///
/// Within one deal the cards compete for the columns' places, so Pearson's sum over all cells
/// is n / (n - 1) times a chi-square with (n - 1) * (columns - 1) degrees of freedom, not a
/// chi-square itself (its mean is n * (columns - 1)): the statistic returned is that sum scaled
/// by (n - 1) / n. With 2 cards and 2 positions it is exactly the squared z-score of the count
/// of unswapped deals.
pub fn chi_square_matrix(counts: &[Vec<u64>], column_weights: &[f64]) -> ChiSquare {
    let weight_sum: f64 = column_weights.iter().sum();
    let mut pearson = 0.0;
    for row in counts {
        let total: u64 = row.iter().sum();
        for (&c, &w) in row.iter().zip(column_weights) {
            let expected = total as f64 * w / weight_sum;
            let d = c as f64 - expected;
            pearson += d * d / expected;
        }
    }
    let rows = counts.len() as f64;
    let df = (counts.len() as u64 - 1) * (column_weights.len() as u64 - 1);
    ChiSquare::new(pearson * (rows - 1.0) / rows, df)
}

/// [`chi_square_matrix`] with equal column proportions.
pub fn chi_square_matrix_uniform(counts: &[Vec<u64>]) -> ChiSquare {
    chi_square_matrix(counts, &vec![1.0; counts[0].len()])
}

/// Pearson's test that two rows of counts (of the same outcomes) come from one distribution:
/// the 2 x k contingency table's statistic, with k - 1 degrees of freedom, where k counts the
/// outcomes seen in either row (those seen in neither are left out).
pub fn chi_square_two_samples(a: &[u64], b: &[u64]) -> ChiSquare {
    assert_eq!(a.len(), b.len(), "two samples of the same outcomes");
    let (ta, tb) = (a.iter().sum::<u64>() as f64, b.iter().sum::<u64>() as f64);
    let mut statistic = 0.0;
    let mut outcomes = 0;
    for (&x, &y) in a.iter().zip(b) {
        if x + y == 0 {
            continue;
        }
        outcomes += 1;
        let column = (x + y) as f64;
        for (count, total) in [(x, ta), (y, tb)] {
            let expected = column * total / (ta + tb);
            statistic += (count as f64 - expected).powi(2) / expected;
        }
    }
    assert!(
        outcomes >= 2,
        "two samples need two outcomes seen to be compared"
    );
    ChiSquare::new(statistic, outcomes - 1)
}

/// P(X > x) for X chi-square with `df` degrees of freedom (statrs' regularized upper incomplete
/// gamma function Q(df/2, x/2)).
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    statrs::function::gamma::gamma_ur(df / 2.0, x / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn p_values_match_published_critical_values() {
        // Upper 1e-4 critical values of the chi-square distribution; the 57.1 and 2877.8 are the
        // thresholds our fairness notes give for df 23 and df 2601, 234.0 the one for df 159.
        assert!(close(chi_square_sf(57.1, 23.0), 1e-4, 0.05));
        assert!(close(chi_square_sf(2877.8, 2601.0), 1e-4, 0.05));
        assert!(close(chi_square_sf(234.0, 159.0), 1e-4, 0.05));
        // Textbook values: P(X > 3.841) = 0.05 for df 1, P(X > 18.307) = 0.05 for df 10.
        assert!(close(chi_square_sf(3.841_458_8, 1.0), 0.05, 1e-6));
        assert!(close(chi_square_sf(18.307_038, 10.0), 0.05, 1e-6));
        // NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.4, upper critical values of
        // the chi-square distribution: df 5 at 0.001, df 100 at 0.001 and 0.05, df 2 at 0.01.
        assert!(close(chi_square_sf(20.515, 5.0), 0.001, 1e-3));
        assert!(close(chi_square_sf(149.449, 100.0), 0.001, 1e-3));
        assert!(close(chi_square_sf(124.342, 100.0), 0.05, 1e-3));
        assert!(close(chi_square_sf(9.210, 2.0), 0.01, 1e-3));
        assert_eq!(chi_square_sf(0.0, 5.0), 1.0);
    }

    #[test]
    fn uniform_counts_pass_and_lopsided_counts_fail() {
        let even = chi_square_uniform(&[100, 100, 100, 100]);
        assert_eq!(even.statistic, 0.0);
        assert_eq!(even.p_value, 1.0);
        let lopsided = chi_square_uniform(&[400, 100, 100, 100]);
        assert_eq!(lopsided.df, 3);
        assert!(lopsided.p_value < 1e-50);
        let weighted = chi_square_expected(&[170, 170, 170, 30], &[17.0, 17.0, 17.0, 3.0]);
        assert_eq!(weighted.statistic, 0.0);
    }

    #[test]
    fn two_samples_by_hand() {
        // Outcomes seen 30/10 and 20/40 times (a third outcome seen in neither is left out).
        // Totals 40 and 60, columns 50 and 50: expected 20, 20 (first row) and 30, 30 (second).
        // Statistic 100/20 + 100/20 + 100/30 + 100/30 = 16.667 with 1 df: P = 4.456e-5.
        let test = chi_square_two_samples(&[30, 10, 0], &[20, 40, 0]);
        assert_eq!(test.df, 1);
        assert!(close(test.statistic, 50.0 / 3.0, 1e-12), "{test:?}");
        assert!(close(test.p_value, 4.455_709e-5, 1e-4), "{test:?}");
        // Samples in one proportion, whatever their sizes, give 0.
        let same = chi_square_two_samples(&[10, 20, 30], &[30, 60, 90]);
        assert_eq!((same.statistic, same.df), (0.0, 2));
    }

    #[test]
    fn matrix_statistic_of_two_cards_is_the_binomial_z_score() {
        // Two cards, 100 deals, 60 of them unswapped. By hand: the unswapped count is
        // Binomial(100, 1/2), z = (60 - 50) / 5 = 2, and z^2 = 4 is chi-square with 1 df;
        // P(X > 4) = 0.0455 (normal tables: 2 * (1 - Phi(2))). Pearson's plain sum over the
        // four cells would be 8.
        let test = chi_square_matrix_uniform(&[vec![60, 40], vec![40, 60]]);
        assert_eq!(test.df, 1);
        assert!(close(test.statistic, 4.0, 1e-12), "{test:?}");
        assert!(close(test.p_value, 0.045_500_26, 1e-6), "{test:?}");
    }

    #[test]
    fn matrix_statistic_of_a_destination_design_is_the_multinomial_one() {
        // Three cards, each deal puts two in a hand and one aside (weights 2 : 1), 90 deals;
        // cards 1, 2, 3 were put aside 40, 30 and 20 times. By hand, that count vector is
        // Multinomial(90, 1/3 each): chi-square (100 + 0 + 100) / 30 = 20/3 with 2 df, whose
        // upper tail is exp(-x / 2) = exp(-10/3) = 0.035674.
        let test = chi_square_matrix(&[vec![50, 40], vec![60, 30], vec![70, 20]], &[2.0, 1.0]);
        assert_eq!(test.df, 2);
        assert!(close(test.statistic, 20.0 / 3.0, 1e-12), "{test:?}");
        assert!(
            close(test.p_value, (-10.0f64 / 3.0).exp(), 1e-9),
            "{test:?}"
        );
    }
}
