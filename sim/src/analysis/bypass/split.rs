//! The unified L1D / shared-memory exploration (seed 001 §IV-C, Eq. 1, L348-L390; spec §2.1.5,
//! B-R4): a kernel's performance at each split of the 64 kB is modelled as
//! `Perf = b0 + b1 Occ + b2 HitRate + b3 Occ HitRate`, fitted by linear least squares over
//! every (kernel, split) measured; the split of the highest predicted `Perf` is chosen per
//! kernel, and the bypass heuristic runs at that split ("unified memory optimization", L448).
//!
//! `Occ` is the theoretical occupancy at the split (resident threads over the SM's maximum,
//! B-R4), `HitRate` the L1D hit rate with every load cached, and `Perf` the kernel's
//! performance relative to its own cache-all run at the first split (16 kB L1D).

use serde::Serialize;

/// One measured (kernel, split).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SplitPoint {
    /// Theoretical occupancy, 0..=1.
    pub occ: f64,
    /// L1D hit rate with every global load cached, 0..=1.
    pub hit_rate: f64,
    /// Performance relative to the kernel's cache-all run at 16 kB (cycles there over cycles
    /// here).
    pub perf: f64,
}

/// The fitted model of Eq. 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SplitModel {
    /// `b0` (intercept), `b1` (Occ), `b2` (HitRate), `b3` (Occ x HitRate).
    pub beta: [f64; 4],
    /// Mean squared error of the fit over its points (the paper's 0.035, L388).
    pub mse: f64,
    /// Every point had the same occupancy, so the fit dropped the Occ terms (`b1 = b3 = 0`):
    /// `Perf = b0 + b2 HitRate`.
    pub occ_dropped: bool,
}

/// The least-squares solution of `x b = y` over `rows` (each `x`, `y`): the normal equations
/// solved by Gaussian elimination with partial pivoting; `None` when they are singular.
fn least_squares(rows: &[(Vec<f64>, f64)]) -> Option<Vec<f64>> {
    let n = rows.first()?.0.len();
    let mut a = vec![vec![0.0f64; n + 1]; n];
    for (x, y) in rows {
        for i in 0..n {
            for j in 0..n {
                a[i][j] += x[i] * x[j];
            }
            a[i][n] += x[i] * y;
        }
    }
    let scale = (0..n).map(|i| a[i][i].abs()).fold(0.0, f64::max).max(1.0);
    for col in 0..n {
        let pivot = (col..n).max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))?;
        if a[pivot][col].abs() < 1e-9 * scale {
            return None;
        }
        a.swap(col, pivot);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

/// The terms of Eq. 1 for one point.
fn terms(occ: f64, hit_rate: f64) -> [f64; 4] {
    [1.0, occ, hit_rate, occ * hit_rate]
}

impl SplitModel {
    /// The least-squares fit of Eq. 1 to `points`, or why there is none (fewer than four
    /// points, or terms that do not vary independently). When every point has the same
    /// occupancy (no kernel's residency depends on the split), the Occ terms are dropped and
    /// `Perf = b0 + b2 HitRate` is fitted instead.
    pub fn fit(points: &[SplitPoint]) -> Result<Self, String> {
        let occ_dropped = points.windows(2).all(|w| w[0].occ == w[1].occ);
        let used: &[usize] = if occ_dropped { &[0, 2] } else { &[0, 1, 2, 3] };
        if points.len() < used.len() {
            return Err(format!(
                "{} points cannot fit {} coefficients",
                points.len(),
                used.len()
            ));
        }
        let rows: Vec<(Vec<f64>, f64)> = points
            .iter()
            .map(|p| {
                let x = terms(p.occ, p.hit_rate);
                (used.iter().map(|&i| x[i]).collect(), p.perf)
            })
            .collect();
        let b = least_squares(&rows).ok_or_else(|| {
            format!(
                "{} do not vary independently over the kernels measured: Eq. 1 has no unique \
                 fit",
                if occ_dropped {
                    "HitRate and the constant"
                } else {
                    "Occ, HitRate and their product"
                }
            )
        })?;
        let mut beta = [0.0; 4];
        for (&i, v) in used.iter().zip(b) {
            beta[i] = v;
        }
        let mut model = Self {
            beta,
            mse: 0.0,
            occ_dropped,
        };
        let se: f64 = points
            .iter()
            .map(|p| (model.predict(p.occ, p.hit_rate) - p.perf).powi(2))
            .sum();
        model.mse = se / points.len() as f64;
        Ok(model)
    }

    /// Predicted performance at `occ` and `hit_rate`.
    pub fn predict(&self, occ: f64, hit_rate: f64) -> f64 {
        let x = terms(occ, hit_rate);
        (0..4).map(|i| self.beta[i] * x[i]).sum()
    }

    /// Of `splits` (occupancy and hit rate of one kernel at each split), the index of the
    /// highest predicted performance, the first on ties.
    pub fn choose(&self, splits: &[(f64, f64)]) -> Option<usize> {
        (0..splits.len()).reduce(|best, i| {
            let p = |k: usize| self.predict(splits[k].0, splits[k].1);
            if p(i) > p(best) {
                i
            } else {
                best
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points made from known coefficients are fitted back exactly, and the choice follows
    /// the prediction.
    #[test]
    fn an_exact_model_is_recovered() {
        let beta = [0.5, 0.8, -0.3, 0.6];
        let truth = SplitModel {
            beta,
            mse: 0.0,
            occ_dropped: false,
        };
        let points: Vec<SplitPoint> = [
            (0.25, 0.1),
            (0.75, 0.1),
            (0.5, 0.6),
            (1.0, 0.9),
            (0.25, 0.9),
        ]
        .iter()
        .map(|&(occ, hit_rate)| SplitPoint {
            occ,
            hit_rate,
            perf: truth.predict(occ, hit_rate),
        })
        .collect();
        let m = SplitModel::fit(&points).unwrap();
        for (got, want) in m.beta.iter().zip(beta) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!(m.mse < 1e-18, "{}", m.mse);
        assert_eq!(m.choose(&[(0.25, 0.1), (1.0, 0.9), (0.5, 0.6)]), Some(1));
    }

    /// Noisy points leave a positive error; points at one occupancy fit without the Occ
    /// terms; points that vary in nothing have no fit.
    #[test]
    fn the_error_is_reported_and_a_degenerate_set_refused() {
        let mut points: Vec<SplitPoint> = (0..6)
            .map(|i| SplitPoint {
                occ: 0.25 * (1 + i % 3) as f64,
                hit_rate: 0.1 * i as f64,
                perf: 1.0 + 0.1 * i as f64 + if i % 2 == 0 { 0.05 } else { -0.05 },
            })
            .collect();
        assert!(SplitModel::fit(&points).unwrap().mse > 0.0);
        for p in &mut points {
            p.occ = 0.5;
        }
        let m = SplitModel::fit(&points).unwrap();
        assert!(
            m.occ_dropped && m.beta[1] == 0.0 && m.beta[3] == 0.0,
            "{m:?}"
        );
        assert!(m.beta[2] > 0.0, "perf grows with the hit rate here: {m:?}");
        for p in &mut points {
            p.hit_rate = 0.3;
        }
        let err = SplitModel::fit(&points).unwrap_err();
        assert!(err.contains("no unique fit"), "{err}");
        assert!(SplitModel::fit(&points[..1]).is_err());
    }
}
