//! rust-hdl simulation of the dispatcher against the golden model (every preset and policy,
//! random stimulus), and a planted golden bug that the comparison catches.

use gpusim::block::Stimulus as _;
use super::*;
use crate::sim::{clock_edge, settle, start};
use gpusim::block::{Block as GoldenBlock, BlockKind, Inspect};
use gpusim::blocks::tb_dispatch::stimulus::Stimulus;
use gpusim::blocks::tb_dispatch::{DispatchIn, DispatchOut, Golden, Kind, Params};

use crate::sim::{from_bits, to_bits};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Port access of every dispatcher variant, so the tests name variants by their preset aliases.
trait Ports: Default + Clocked {
    const SMS: usize;
    fn drive(&mut self, reset: bool, i: &DispatchIn);
    fn outputs(&self) -> DispatchOut;
    /// The `after` register: the SMs above the last SM that received a block.
    fn after(&self) -> u128;
}

impl<
        const N: usize,
        const B: usize,
        const C: usize,
        const P: usize,
        const M: usize,
        const C1: usize,
    > Ports for TbDispatch<N, B, C, P, M, C1>
{
    const SMS: usize = N;

    fn drive(&mut self, reset: bool, i: &DispatchIn) {
        self.reset.next = reset;
        self.start.next = i.start;
        self.total.next = (i.total as u64).to_bits();
        self.max_per_sm.next = (i.max_per_sm as u64).to_bits();
        self.room.next = to_bits(i.room);
        self.room2.next = to_bits(i.room2);
    }

    fn outputs(&self) -> DispatchOut {
        let mut o = DispatchOut {
            grant: from_bits(self.grant.val()),
            grant2: from_bits(self.grant2.val()),
            idle: self.idle.val(),
            ..Default::default()
        };
        for s in 0..N {
            o.id[s] = self.id[s].val().to_u64() as u32;
            o.id2[s] = self.id2[s].val().to_u64() as u32;
        }
        o
    }

    fn after(&self) -> u128 {
        from_bits(self.after.q.val())
    }
}

/// What differed first, golden before RTL.
#[derive(Debug)]
enum Mismatch {
    /// The outputs.
    Ports(Box<DispatchOut>, Box<DispatchOut>),
    /// The `after` register against the golden `last` as a mask.
    After(u128, u128),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Ports(g, r) => write!(f, "golden {g:?} rtl {r:?}"),
            Self::After(g, r) => write!(f, "after: golden {g:#x} rtl {r:#x}"),
        }
    }
}

/// Mismatch: (cycle, what).
type Diff = (usize, Mismatch);

/// The blocks granted in `cycles` cycles of the block's constrained-random stimulus, or the
/// first mismatch.
fn compare<U: Ports>(
    policy: &str,
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(DispatchOut) -> DispatchOut,
) -> Result<usize, Diff> {
    let params: Params = Kind::params(policy, preset);
    let mut stim = Stimulus::new(params, seed);
    compare_with::<U>(params, cycles, |prev| stim.next(prev), corrupt)
}

/// Kernel tails under BCS pairs, densely: small kernels (odd totals half the time) with two to
/// four blocks per SM, restarted as soon as one is granted, and `room`/`room2` random each
/// cycle at a random density, so the odd last block meets every arrangement of SMs with room
/// around the last pair (none after it, only in `after`, only before it).
fn tails(n: usize, seed: u64) -> impl FnMut(Option<&DispatchOut>) -> DispatchIn {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mask = if n == 128 { !0 } else { (1u128 << n) - 1 };
    move |prev| {
        let mut i = DispatchIn::default();
        if prev.is_none_or(|o| o.idle) || rng.gen_ratio(1, 50) {
            i.start = true;
            i.total = rng.gen_range(1..(2 * n as u32 + 6));
            i.max_per_sm = rng.gen_range(2..=4);
        }
        let density = rng.gen_range(0..=8);
        for s in 0..n {
            if rng.gen_range(0..8) < density {
                i.room |= 1 << s;
                if rng.gen_bool(0.5) {
                    i.room2 |= 1 << s;
                }
            }
        }
        (i.room, i.room2) = (i.room & mask, i.room2 & mask);
        i
    }
}

/// The blocks granted in `cycles` cycles of `inputs`, or the first mismatch.
fn compare_with<U: Ports>(
    params: Params,
    cycles: usize,
    mut inputs: impl FnMut(Option<&DispatchOut>) -> DispatchIn,
    corrupt: impl Fn(DispatchOut) -> DispatchOut,
) -> Result<usize, Diff> {
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &DispatchIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut prev = None;
    let mut granted = 0;
    let mut state = Vec::new();
    for c in 0..cycles {
        let i = inputs(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = corrupt(golden.step(&i));
        if rtl != want {
            return Err((c, Mismatch::Ports(Box::new(want), Box::new(rtl))));
        }
        granted += want.grants(U::SMS).count();
        clock_edge(&mut u);
        // The state too: `after` is the golden `last` as a mask (it is dead after a kernel's
        // last block until the next start, so the ports alone would not show it).
        golden.state_values(&mut state);
        let above_last = (1u128 << U::SMS) - (2u128 << state[3]);
        if u.after() != above_last {
            return Err((c, Mismatch::After(above_last, u.after())));
        }
        prev = Some(want);
    }
    Ok(granted)
}

#[test]
fn rtl_matches_golden_for_every_policy_and_preset() {
    let same = |o| o;
    let runs = [
        compare::<LrrFermi>("lrr", "fermi", 1, 3000, same),
        compare::<BcsFermi>("bcs", "fermi", 2, 3000, same),
        compare::<LrrProto>("lrr", "proto", 3, 6000, same),
        compare::<BcsProto>("bcs", "proto", 4, 6000, same),
        compare::<LrrTitanv>("lrr", "titanv", 5, 1000, same),
        compare::<BcsTitanv>("bcs", "titanv", 6, 1000, same),
    ];
    for r in runs {
        let granted = r.unwrap_or_else(|(c, m)| panic!("cycle {c}: {m}"));
        assert!(granted > 100, "the stimulus keeps the dispatcher busy: {granted} grants");
    }
}

#[test]
fn bcs_kernel_tails_match_golden() {
    let runs = [
        compare_with::<BcsProto>(Kind::params("bcs", "proto"), 20000, tails(4, 7), |o| o),
        compare_with::<BcsFermi>(Kind::params("bcs", "fermi"), 5000, tails(15, 8), |o| o),
        compare_with::<BcsTitanv>(Kind::params("bcs", "titanv"), 1000, tails(80, 9), |o| o),
    ];
    for r in runs {
        let granted = r.unwrap_or_else(|(c, m)| panic!("cycle {c}: {m}"));
        assert!(granted > 500, "the kernels end often: {granted} grants");
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model gives every pair's second block the first one's id.
    let r = compare::<BcsProto>("bcs", "proto", 6, 6000, |mut o| {
        o.id2 = o.id;
        o
    });
    assert!(r.is_err_and(|(_, m)| matches!(m, Mismatch::Ports(g, r) if g.grant2 != 0 && g.id2 != r.id2)));
}

