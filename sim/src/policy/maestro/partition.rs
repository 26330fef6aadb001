//! How many blocks of two kernels share an SM (spec `chimera_maestro.md` §2.2 REC, B5, B6),
//! counted on the 2-way layout itself ([`crate::core::twoway`]): the trial kernel at the low
//! end, the other filling what is left from the high end.

pub use crate::core::twoway::alone;
use crate::core::twoway::{Caps, End, Need, TwoWay};

/// One SM's resources and the two kernels' block needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The SM.
    pub caps: Caps,
    /// The trial kernel's block (the one of larger requirements) and the other's.
    pub trial: Need,
    /// See `trial`.
    pub other: Need,
}

/// Blocks of `need` that fit `caps` after `n` blocks of `first` took the low end.
fn fill_beside(caps: Caps, first: Need, n: u32, need: Need) -> u32 {
    let mut sm = TwoWay::new(caps);
    if sm.claim(0, first).is_err() || (0..n).any(|_| sm.allocate(End::Low).is_none()) {
        return 0;
    }
    let Ok(end) = sm.claim(1, need) else {
        return 0;
    };
    std::iter::from_fn(|| sm.allocate(end)).count() as u32
}

impl Pair {
    /// `fill(n)`: the other kernel's blocks beside `n` of the trial kernel's (0 when `n` do not
    /// fit).
    pub fn fill(&self, n: u32) -> u32 {
        fill_beside(self.caps, self.trial, n, self.other)
    }

    /// `n_max`: the most trial blocks that leave room for one of the other kernel (B5).
    pub fn n_max(&self) -> u32 {
        (1..=alone(self.caps, self.trial))
            .rev()
            .find(|&n| self.fill(n) >= 1)
            .unwrap_or(0)
    }

    /// `even(T)` (B6): the trial kernel's blocks in half of every resource, within `[1, n_max]`.
    pub fn even(&self) -> u32 {
        let c = self.caps;
        let half = Caps {
            threads: c.threads / 2,
            blocks: c.blocks / 2,
            units: c.units.map(|u| u / 2),
        };
        self.clamp(alone(half, self.trial))
    }

    /// `n` within `[1, n_max]` (B5).
    pub fn clamp(&self, n: u32) -> u32 {
        n.clamp(1, self.n_max().max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtx980() -> Caps {
        Caps::of_sm(2048, 32, 65536, 96 * 1024)
    }

    #[test]
    fn fill_counts_what_the_other_end_takes() {
        // 256-thread blocks: 8 fit by threads alone; 32 regs/thread: 8 rows of 32 per warp.
        let a = Need::of_block(256, 32, 0);
        let b = Need::of_block(128, 16, 12 * 1024);
        let p = Pair {
            caps: gtx980(),
            trial: a,
            other: b,
        };
        assert_eq!(alone(p.caps, a), 8);
        assert_eq!(alone(p.caps, b), 8, "96 kB / 12 kB");
        // n blocks of a take n x 256 threads and n x 8192 registers; b is bound by threads
        // (128 each) and shared memory (8).
        assert_eq!(p.fill(0), 8);
        assert_eq!(p.fill(4), 8);
        assert_eq!(p.fill(6), 4, "512 threads left");
        assert_eq!(p.fill(8), 0);
        assert_eq!(p.n_max(), 7);
        assert_eq!(p.even(), 4);
        assert_eq!((p.clamp(0), p.clamp(9)), (1, 7));
    }

    #[test]
    fn the_gtx480_pair_of_blackscholes_and_matrix_multiply() {
        // chimera_bs: 384 threads x 16 registers; mm: 256 threads x 24 registers, 2 kB.
        let p = Pair {
            caps: Caps::of_sm(1536, 8, 32768, 48 * 1024),
            trial: Need::of_resources([384, 384 * 16, 0, 1]),
            other: Need::of_resources([256, 256 * 24, 2048, 1]),
        };
        assert_eq!(alone(p.caps, p.trial), 4);
        assert_eq!(alone(p.caps, p.other), 5);
        assert_eq!([1, 2, 3, 4].map(|n| p.fill(n)), [4, 3, 1, 0]);
        assert_eq!((p.n_max(), p.even()), (3, 2));
    }
}
