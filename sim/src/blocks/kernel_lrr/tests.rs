//! The kernel-aware scheduler against the spec's properties (§4.6 L1-L6) on random stimulus,
//! against GTO with one kernel (L3), a directed alternation case, and planted faults that the
//! property checks catch.

use super::*;
use crate::block::{BlockKind as _, Stimulus as _};
use crate::blocks::warp_arbiter as wa;

/// The spec's properties, checked cycle by cycle from the inputs, the outputs and what the
/// checker itself remembers (live warps, launch order, each kernel's last grant, `prio`).
struct Checker {
    m: u64,
    live: u64,
    seq: [u64; 64],
    next_seq: u64,
    last: [Option<u8>; 2],
    prio: bool,
    /// Both kernels had candidates and LRR chose: the kernel chosen last (L1).
    contested: Option<bool>,
}

impl Checker {
    fn new(p: Params) -> Self {
        let mut seq = [0; 64];
        for (w, s) in seq.iter_mut().enumerate().take(p.warps) {
            *s = w as u64;
        }
        Self {
            m: p.warp_mask(),
            live: 0,
            seq,
            next_seq: p.warps as u64,
            last: [None; 2],
            prio: false,
            contested: None,
        }
    }

    fn check(&mut self, i: &KernelLrrIn, o: &KernelLrrOut, prio_after: bool) -> Result<(), String> {
        let eligible = i.ready & self.live & self.m;
        let of = |mask: u64, k: bool| mask & if k { i.kernel } else { !i.kernel };
        let tail = |k: bool| i.tail >> (k as u8) & 1 == 1;
        let in_tail = [false, true]
            .into_iter()
            .filter(|&k| tail(k))
            .fold(0, |acc, k| acc | of(self.m, k));
        let (cand, tier) = match (eligible & i.drain, eligible & i.boundary & in_tail) {
            (d, _) if d != 0 => (d, 1),
            (_, b) if b != 0 => (b, 2),
            _ => (eligible, if eligible != 0 { 3 } else { 0 }),
        };
        // L2: work-conserving; L6: the override tiers.
        if o.grant_valid != (eligible != 0) {
            return Err(format!("L2: grant {} with eligible {eligible:#x}", o.grant_valid));
        }
        if o.tier != tier {
            return Err(format!("L6: tier {} (expected {tier})", o.tier));
        }
        if let Some(w) = o.grant_valid.then_some(o.grant_warp) {
            if cand >> w & 1 == 0 {
                return Err(format!("L6: warp {w} is not a candidate ({cand:#x})"));
            }
            // LRR: prio's kernel when it has a candidate.
            let k = i.kernel >> w & 1 == 1;
            let want = if of(cand, self.prio) != 0 { self.prio } else { !self.prio };
            if k != want {
                return Err(format!("LRR: kernel {} granted, prio {}", k as u8, self.prio as u8));
            }
            // L1: with candidates of both kernels in consecutive contested cycles, the kernel
            // alternates.
            if of(cand, false) != 0 && of(cand, true) != 0 {
                if self.contested == Some(k) {
                    return Err(format!("L1: kernel {} twice in a row", k as u8));
                }
                self.contested = Some(k);
            } else {
                self.contested = None;
            }
            // L3: GTO within the kernel: its last grant if a candidate, else its oldest.
            let mine = of(cand, k);
            let greedy = self.last[k as usize].filter(|&l| mine >> l & 1 == 1);
            let oldest = wa::oldest(&self.seq, mine);
            if Some(w) != greedy.or(oldest) {
                return Err(format!("L3: warp {w}, GTO within the kernel says {:?}", greedy.or(oldest)));
            }
            self.last[k as usize] = Some(w);
        } else {
            self.contested = None;
        }
        // L5.
        let want = if of(eligible, !self.prio) != 0 { !self.prio } else { self.prio };
        if prio_after != want {
            return Err(format!("L5: prio {} after, expected {}", prio_after as u8, want as u8));
        }
        self.prio = prio_after;
        wa::stamp_launches(&mut self.seq, &mut self.next_seq, i.launch & self.m);
        self.live = ((self.live & !i.exit) | i.launch) & self.m;
        Ok(())
    }
}

/// Runs `g` on `cycles` cycles of the block's stimulus under the checker; the first violation.
fn run_checked(mut g: Golden, p: Params, cycles: u64, seed: u64) -> Result<(), String> {
    let mut stim = Kind::stimulus(&p, seed);
    let mut check = Checker::new(p);
    let mut prev = None;
    for cycle in 0..cycles {
        let i = stim.next(prev.as_ref());
        let o = g.step(&i);
        check
            .check(&i, &o, g.prio())
            .map_err(|e| format!("cycle {cycle}: {e}"))?;
        prev = Some(o);
    }
    Ok(())
}

#[test]
fn every_preset_keeps_the_properties_on_random_stimulus() {
    for (name, p) in PRESETS {
        for seed in 1..=3 {
            run_checked(Golden::new(*p), *p, 100_000, seed).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
        }
    }
}

#[test]
fn the_stimulus_reaches_every_tier_and_both_kernels() {
    let p = Kind::params("base", "fermi");
    let (mut g, mut stim, mut prev) = (Golden::new(p), Kind::stimulus(&p, 7), None);
    let mut tiers = [0u64; 4];
    let mut kernels = [0u64; 2];
    for _ in 0..100_000 {
        let i = stim.next(prev.as_ref());
        let o = g.step(&i);
        tiers[o.tier as usize] += 1;
        if o.grant_valid {
            kernels[(i.kernel >> o.grant_warp & 1) as usize] += 1;
        }
        prev = Some(o);
    }
    assert!(tiers.iter().all(|&n| n > 100), "{tiers:?}");
    assert!(kernels.iter().all(|&n| n > 1000), "{kernels:?}");
}

#[test]
fn one_kernel_is_gto_bit_for_bit() {
    for (name, p) in PRESETS {
        let mut g = Golden::new(*p);
        let mut gto = wa::Golden::new(wa::Params::new(wa::Policy::Gto, p.warps, 1).unwrap());
        let mut stim = Kind::stimulus(p, 11);
        let mut prev = None;
        for cycle in 0..100_000 {
            let mut i = stim.next(prev.as_ref());
            (i.kernel, i.drain, i.boundary, i.tail) = (0, 0, 0, 0);
            let o = g.step(&i);
            let a = gto.step(&wa::ArbiterIn {
                ready: i.ready,
                launch: i.launch,
                exit: i.exit,
                long_stall: 0,
            });
            assert_eq!(
                (o.grant_valid, o.grant_warp),
                (a.grant_valid, a.grant_warp),
                "{name} cycle {cycle}"
            );
            prev = Some(o);
        }
    }
}

/// Inputs with no launch or exit.
fn marks(ready: u64, kernel: u64, drain: u64, boundary: u64, tail: u8) -> KernelLrrIn {
    KernelLrrIn {
        ready,
        launch: 0,
        exit: 0,
        kernel,
        drain,
        boundary,
        tail,
    }
}

#[test]
fn two_always_ready_kernels_alternate_and_a_lone_kernel_issues_every_cycle() {
    let p = Kind::params("base", "proto");
    let mut g = Golden::new(p);
    // Warps 0-3 of the first kernel, 4-7 of the second (launched later: younger).
    let go = |g: &mut Golden, ready: u64, launch: u64| {
        g.step(&KernelLrrIn {
            launch,
            ..marks(ready, 0xf0, 0, 0, 0)
        })
    };
    go(&mut g, 0, 0x0f);
    go(&mut g, 0, 0xf0);
    let grants: Vec<u8> = (0..6).map(|_| go(&mut g, 0xff, 0).grant_warp).collect();
    // First kernel's oldest (0), then the second's (4), greedy within each.
    assert_eq!(grants, [0, 4, 0, 4, 0, 4]);
    let lone: Vec<u8> = (0..3).map(|_| go(&mut g, 0x0c, 0).grant_warp).collect();
    assert_eq!(lone, [2, 2, 2], "greedy on the oldest ready warp of the lone kernel");
    // Drained warps go first, then the boundary block of a kernel in its tail.
    let o = g.step(&marks(0xff, 0xf0, 0x20, 0x80, 2));
    assert_eq!((o.grant_warp, o.tier), (5, 1));
    let o = g.step(&marks(0xff, 0xf0, 0, 0x81, 2));
    assert_eq!((o.grant_warp, o.tier), (7, 2), "warp 0's kernel is not in its tail");
}

#[test]
fn planted_faults_break_the_properties() {
    let p = Kind::params("base", "fermi");
    for (fault, property) in [
        (Fault::NoFlip, "L5"),
        (Fault::SharedLast, "L3"),
        (Fault::TailIgnored, "L6"),
    ] {
        let e = run_checked(Golden::with_fault(p, fault), p, 100_000, 1)
            .expect_err(&format!("{fault:?} is caught"));
        assert!(e.contains(property), "{fault:?}: {e}");
    }
}
