//! The SM partitioning Chimera's evaluation uses (seed 003 L941, spec §1.8): the SMs are
//! split evenly between the kernels that have work, except that a kernel that needs fewer SMs
//! than its share (too few blocks left) gets only those, and the SMs it leaves go to the
//! others (Smart Even and Rounds of spatial multitasking). Deterministic water-filling.
//!
//! What a kernel needs is not defined in the thesis ("except when the kernel requires less SMs
//! than the even split"). By default ([`Need::Spread`]) a kernel can use one SM per block left,
//! as the thread-block dispatcher spreads blocks over every SM it is offered (a 30-block kernel
//! runs on all 15 SMs of a `gtx480`); the spec's resolution ([`Need::Packed`]) counts only the
//! SMs its blocks fill at full occupancy (`ceil(blocks / blocks per SM)`), so a lone kernel of
//! few blocks runs on fewer SMs than the GPU has.

/// How many SMs a kernel needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// One per block left.
    Spread,
    /// `ceil(blocks left / blocks per SM)` (spec §1.8).
    Packed,
}

/// A kernel as the partition sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Demand {
    /// Its blocks not completed (waiting, queued after a preemption, or resident).
    pub remaining: u64,
    /// Its blocks that fit one SM.
    pub blocks_per_sm: u32,
}

impl Demand {
    /// SMs it needs, at most `n`.
    pub fn sms(&self, n: usize, need: Need) -> usize {
        let per = match need {
            Need::Spread => 1,
            Need::Packed => self.blocks_per_sm.max(1) as u64,
        };
        self.remaining.div_ceil(per).min(n as u64) as usize
    }
}

/// SMs per kernel (`kernels` oldest first) out of `n`: water-filling of the even share over
/// what each needs; the SMs an even share leaves over go to the oldest kernels. Every
/// kernel with work gets at least one SM when there are no more kernels than SMs (T8); the
/// targets sum to at most `n`.
pub fn targets(kernels: &[Demand], n: usize, need: Need) -> Vec<usize> {
    let demand: Vec<usize> = kernels.iter().map(|d| d.sms(n, need)).collect();
    let mut target = vec![0; kernels.len()];
    let mut active: Vec<usize> = (0..kernels.len()).filter(|&k| demand[k] > 0).collect();
    let mut pool = n;
    while !active.is_empty() {
        let share = pool / active.len();
        let extra = pool % active.len();
        let capped: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&k| demand[k] <= share)
            .collect();
        if capped.is_empty() {
            for (i, &k) in active.iter().enumerate() {
                target[k] = share + usize::from(i < extra);
            }
            break;
        }
        for &k in &capped {
            target[k] = demand[k];
            pool -= demand[k];
        }
        active.retain(|k| !capped.contains(k));
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(remaining: u64, blocks_per_sm: u32) -> Demand {
        Demand {
            remaining,
            blocks_per_sm,
        }
    }

    #[test]
    fn even_split_with_small_kernels_capped() {
        let p = Need::Packed;
        assert_eq!(targets(&[d(1000, 4), d(1000, 4)], 15, p), vec![8, 7]);
        // The periodic task: 7 blocks, one per SM.
        assert_eq!(targets(&[d(1000, 4), d(7, 1)], 15, p), vec![8, 7]);
        assert_eq!(targets(&[d(1000, 4), d(3, 1)], 15, p), vec![12, 3]);
        assert_eq!(targets(&[d(5, 4), d(1000, 8)], 15, p), vec![2, 13]);
        assert_eq!(targets(&[d(0, 4), d(1000, 8)], 15, p), vec![0, 15]);
        assert_eq!(targets(&[], 15, p), Vec::<usize>::new());
        // A lone 30-block kernel: all 15 SMs spread, 4 packed at 8 per SM.
        assert_eq!(targets(&[d(30, 8)], 15, Need::Spread), vec![15]);
        assert_eq!(targets(&[d(30, 8)], 15, p), vec![4]);
        assert_eq!(targets(&[d(30, 8), d(7, 1)], 15, Need::Spread), vec![8, 7]);
        assert_eq!(targets(&[d(5, 8), d(70, 1)], 15, Need::Spread), vec![5, 10]);
    }

    proptest! {
        /// T8: no kernel with work gets 0 SMs while kernels <= SMs; the sum is at most n;
        /// nobody gets more than it can fill.
        #[test]
        fn targets_are_fair_and_bounded(
            ks in prop::collection::vec((0u64..2000, 1u32..=8), 0..10),
            n in 1usize..=32,
            packed in any::<bool>(),
        ) {
            let need = if packed { Need::Packed } else { Need::Spread };
            let ks: Vec<Demand> = ks.into_iter().map(|(r, b)| d(r, b)).collect();
            let t = targets(&ks, n, need);
            prop_assert!(t.iter().sum::<usize>() <= n);
            let with_work = ks.iter().filter(|k| k.remaining > 0).count();
            for (k, &x) in ks.iter().zip(&t) {
                prop_assert!(x <= k.sms(n, need));
                if k.remaining > 0 && with_work <= n {
                    prop_assert!(x >= 1);
                }
            }
        }
    }
}
