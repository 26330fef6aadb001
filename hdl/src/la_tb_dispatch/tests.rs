//! rust-hdl simulation of the locality-aware dispatcher against the golden model (both
//! presets, random stimulus), the preset aliases against the golden presets, and a planted
//! golden bug that the comparison catches.

use super::*;
use crate::sim::{clock_edge, settle, start, to_bits};
use gpusim::block::Stimulus as _;
use gpusim::block::{Block as GoldenBlock, BlockKind};
use gpusim::blocks::la_tb_dispatch::{Golden, Kind, LaDispatchIn, LaDispatchOut};

/// Port access of every preset alias.
trait Ports: Default + Clocked {
    /// The policy the alias implements.
    const POLICY: &'static str;
    /// SMs, slots, window, arrays, fill, lanes.
    const SIZE: (usize, usize, usize, usize, usize, usize);
    fn drive(&mut self, reset: bool, i: &LaDispatchIn);
    fn outputs(&self) -> LaDispatchOut;
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const F: usize,
        const FB: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const WA: usize,
        const WS: usize,
        const RA: usize,
        const AF: usize,
        const AP: usize,
        const WAP: usize,
    > Ports for LaDispatch<S, SB, J, JB, W, WB, A, F, FB, R, RB, OB, WA, WS, RA, AF, AP, WAP>
{
    const POLICY: &'static str = "base";
    const SIZE: (usize, usize, usize, usize, usize, usize) = (S, J, W, A, F, 0);

    fn drive(&mut self, reset: bool, i: &LaDispatchIn) {
        self.reset.next = reset;
        self.start.next = i.start;
        self.total.next = to_bits(i.total as u128);
        self.room.next = to_bits(i.room);
        self.fill_count.next = to_bits(i.fill_count as u128);
        for k in 0..AF {
            self.fill_rect[k].next = to_bits(i.fill_rect[k] as u128);
        }
        for s in 0..S {
            self.done[s].next = to_bits(i.done[s] as u128);
        }
    }

    fn outputs(&self) -> LaDispatchOut {
        LaDispatchOut {
            fill_taken: self.fill_taken.val().index() as u8,
            grant: self.grant.val(),
            grant_sm: self.grant_sm.val().index() as u8,
            grant_id: self.grant_id.val().index() as u32,
            grant_slot: self.grant_slot.val().index() as u8,
            idle: self.idle.val(),
        }
    }
}

/// A comparison's result: the grants, or the first mismatch (cycle, golden, rtl).
type Outcome = Result<usize, (usize, LaDispatchOut, LaDispatchOut)>;

/// [`compare_here`] on a thread with room for the `fermi` circuit (about 1 MB) on its stack.
fn compare<U: Ports + 'static>(
    preset: &'static str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(&LaDispatchIn, LaDispatchOut) -> LaDispatchOut + Send + 'static,
) -> Outcome {
    std::thread::Builder::new()
        .stack_size(crate::CIRCUIT_STACK)
        .spawn(move || compare_here::<U>(preset, seed, cycles, corrupt))
        .expect("a test thread")
        .join()
        .expect("the comparison completes")
}

/// Grants in `cycles` random cycles, or the first mismatch (cycle, golden, rtl).
fn compare_here<U: Ports>(
    preset: &str,
    seed: u64,
    cycles: usize,
    corrupt: impl Fn(&LaDispatchIn, LaDispatchOut) -> LaDispatchOut,
) -> Outcome {
    let params = Kind::params(U::POLICY, preset);
    let mut u = U::default();
    start(&mut u);
    u.drive(true, &LaDispatchIn::default());
    settle(&mut u);
    clock_edge(&mut u);
    let mut golden = Golden::new(params);
    let mut stim = Kind::stimulus(&params, seed);
    let mut prev = None;
    let mut grants = 0;
    for c in 0..cycles {
        let i = stim.next(prev.as_ref());
        u.drive(false, &i);
        settle(&mut u);
        let rtl = u.outputs();
        let want = corrupt(&i, golden.step(&i));
        if rtl != want {
            return Err((c, want, rtl));
        }
        grants += want.grant as usize;
        clock_edge(&mut u);
        prev = Some(want);
    }
    Ok(grants)
}

#[test]
fn preset_aliases_are_the_golden_presets() {
    fn check<U: Ports + 'static>(preset: &str) {
        let p = Kind::params(U::POLICY, preset);
        assert_eq!(
            U::SIZE,
            (p.sms, p.slots, p.window, p.arrays, p.fill, p.lanes),
            "{preset}"
        );
    }
    check::<BaseFermi>("fermi");
    check::<BaseProto>("proto");
    check::<serial::SerialFermi>("fermi");
    check::<serial::SerialProto>("proto");
}

#[test]
fn rtl_matches_golden_for_every_preset() {
    let same = |_: &LaDispatchIn, o| o;
    for (preset, r) in [
        ("fermi", compare::<BaseFermi>("fermi", 1, 3_000, same)),
        ("proto", compare::<BaseProto>("proto", 2, 30_000, same)),
    ] {
        let grants =
            r.unwrap_or_else(|(c, g, r)| panic!("{preset} cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(grants > 100, "{preset}: {grants} grants");
    }
}

#[test]
fn serial_rtl_matches_golden_for_every_preset() {
    let same = |_: &LaDispatchIn, o| o;
    for (preset, r) in [
        ("fermi", compare::<serial::SerialFermi>("fermi", 1, 20_000, same)),
        ("proto", compare::<serial::SerialProto>("proto", 2, 30_000, same)),
    ] {
        let grants =
            r.unwrap_or_else(|(c, g, r)| panic!("{preset} cycle {c}: golden {g:?} rtl {r:?}"));
        assert!(grants > 100, "{preset}: {grants} grants");
    }
}

/// The serial comparison catches a golden model whose grants come a cycle late.
#[test]
fn a_late_serial_grant_is_caught() {
    let late = std::sync::Mutex::new(None::<LaDispatchOut>);
    let r = compare::<serial::SerialProto>("proto", 4, 30_000, move |_, o| {
        let mut held = late.lock().expect("one thread");
        let mut out = o;
        out.grant = false;
        out.grant_sm = 0;
        out.grant_id = 0;
        out.grant_slot = 0;
        if let Some(prev) = held.take() {
            out.grant = prev.grant;
            out.grant_sm = prev.grant_sm;
            out.grant_id = prev.grant_id;
            out.grant_slot = prev.grant_slot;
        }
        if o.grant {
            *held = Some(o);
        }
        out
    });
    assert!(r.is_err());
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Pretend the golden model grants one block id higher.
    let r = compare::<BaseProto>("proto", 4, 30_000, |_, mut o| {
        if o.grant {
            o.grant_id += 1;
        }
        o
    });
    assert!(r.is_err());
}

impl<
        const S: usize,
        const SB: usize,
        const J: usize,
        const JB: usize,
        const W: usize,
        const WB: usize,
        const A: usize,
        const R: usize,
        const RB: usize,
        const OB: usize,
        const G: usize,
        const GB: usize,
        const NW: usize,
        const NWB: usize,
        const NR: usize,
        const NRB: usize,
        const RW: usize,
        const GA: usize,
        const SAB: usize,
        const AP: usize,
        const GAP: usize,
        const GQ: usize,
    > Ports
    for serial::LaDispatchSerial<
        S,
        SB,
        J,
        JB,
        W,
        WB,
        A,
        R,
        RB,
        OB,
        G,
        GB,
        NW,
        NWB,
        NR,
        NRB,
        RW,
        GA,
        SAB,
        AP,
        GAP,
        GQ,
    >
{
    const POLICY: &'static str = "serial";
    const SIZE: (usize, usize, usize, usize, usize, usize) = (S, J, W, A, 1, G);

    fn drive(&mut self, reset: bool, i: &LaDispatchIn) {
        self.reset.next = reset;
        self.start.next = i.start;
        self.total.next = to_bits(i.total as u128);
        self.room.next = to_bits(i.room);
        self.fill_count.next = to_bits(i.fill_count as u128);
        for k in 0..A {
            self.fill_rect[k].next = to_bits(i.fill_rect[k] as u128);
        }
        for s in 0..S {
            self.done[s].next = to_bits(i.done[s] as u128);
        }
    }

    fn outputs(&self) -> LaDispatchOut {
        LaDispatchOut {
            fill_taken: self.fill_taken.val().index() as u8,
            grant: self.grant.val(),
            grant_sm: self.grant_sm.val().index() as u8,
            grant_id: self.grant_id.val().index() as u32,
            grant_slot: self.grant_slot.val().index() as u8,
            idle: self.idle.val(),
        }
    }
}
