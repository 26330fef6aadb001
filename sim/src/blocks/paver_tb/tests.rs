//! The spec's properties (§4 P1-P20, with V-R1's literal stealer) under random stimulus, the
//! paper's stealing example (L302) as a directed test, the round-robin launch (P10), and
//! planted faults that the checks catch, each by the property it breaks.

use super::stimulus::Stimulus;
use super::*;
use crate::analysis::paver::Groups;
use crate::block::Stimulus as _;
use std::collections::HashSet;

/// What the random checker saw.
#[derive(Debug, Default)]
struct Seen {
    kernels_done: u32,
    grants: u64,
    steals: u64,
    /// Stealer rounds whose commit was checked against what their scan saw (P14, P15, P19).
    rounds: u64,
    /// Cycles with the queue empty where `Φ = Σ W²` was compared with the cycle before (P18).
    phi_checks: u64,
    /// Kernels checked for P12: k-way tables without stealing, MST-shaped tables.
    kway_kernels: u32,
    mst_kernels: u32,
}

/// What one cycle's checks see: the inputs, the outputs, the registers before and after.
struct Cycle<'a> {
    inp: &'a PaverIn,
    out: &'a PaverOut,
    before: &'a [SmRegs],
    after: &'a [SmRegs],
    /// The queue head at the start of the cycle.
    head_before: u16,
}

impl Cycle<'_> {
    fn granted(&self, s: usize) -> u16 {
        (self.out.grant >> s & 1) as u16
    }

    /// SM `s`'s `W` after the cycle's responses, before its issue and steal.
    fn waited(&self, s: usize) -> u16 {
        let mut w = self.after[s].waiting().wrapping_add(self.granted(s));
        if self.out.steal && self.out.steal_donor as usize == s {
            w = w.wrapping_add(self.out.steal_count);
        }
        if self.out.steal && self.out.steal_to as usize == s {
            w = w.wrapping_sub(self.out.steal_count);
        }
        w
    }

    /// Exhausted with no read outstanding at the start of the cycle.
    fn free(&self, s: usize) -> bool {
        self.before[s].next == self.before[s].tail && !self.before[s].pend
    }
}

/// The running kernel as the checker follows it.
#[derive(Default)]
struct Kernel {
    tables: Groups,
    steal: Option<Steal>,
    recipient_idle: bool,
    granted: HashSet<u32>,
    next_group: u16,
    started: u32,
    running: bool,
    /// Per SM: the blocks granted there, the groups assigned, the size of a group whose
    /// descriptor is outstanding.
    granted_on: Vec<Vec<u32>>,
    assigns: Vec<u32>,
    pending: Vec<u16>,
    /// P12 applies: k-way (at most one group per SM, no stealing) or MST-shaped tables.
    kway: bool,
    mst: bool,
}

impl Kernel {
    fn steals(&self) -> bool {
        self.steal.is_some_and(|m| m != Steal::Off)
    }

    /// Blocks a donor keeps beyond the count (1 under the clamp).
    fn keep(&self) -> u16 {
        (self.steal == Some(Steal::Clamp)) as u16
    }

    /// The SMs that may receive stolen blocks by their room: room for one more, or no block at
    /// all under `recipient_idle` (the SM must also be free).
    fn takes(&self, inp: &PaverIn) -> u128 {
        if self.recipient_idle {
            inp.empty
        } else {
            inp.room
        }
    }

    /// `W` with an outstanding descriptor counted as its group's size.
    fn w_eff(&self, s: usize, r: &SmRegs) -> u64 {
        if r.pend_group {
            self.pending[s] as u64
        } else {
            r.waiting() as u64
        }
    }
}

/// The stealer's round as its scan saw it: the cycle within the round, and per SM the `W`
/// and whether it was busy in the cycle it was read.
#[derive(Default)]
struct Round {
    phase: usize,
    seen: Vec<(u16, bool)>,
}

/// Runs `cycles` of random stimulus on `p` and checks every cycle; the first violation.
fn check_random(
    p: Params,
    mode: Option<(Steal, bool)>,
    fault: Option<Fault>,
    seed: u64,
    cycles: u32,
) -> Result<Seen, String> {
    let mut g = Golden::new(p);
    g.fault = fault;
    let mut stim = Stimulus::new(p, seed);
    stim.mode = mode.map(|(m, idle)| (m as u8, idle));
    stim.mst_shapes = true;
    let mut c = Checker {
        p,
        seen: Seen::default(),
        k: Kernel::default(),
        round: Round::default(),
        ptr: p.sms - 1,
        phi_prev: None,
    };
    let mut prev: Option<PaverOut> = None;
    for cycle in 0..cycles {
        let inp = stim.next(prev.as_ref());
        let before: Vec<SmRegs> = (0..p.sms).map(|s| g.sm(s)).collect();
        let head_before = g.gq_head();
        let out = g.step(&inp);
        let after: Vec<SmRegs> = (0..p.sms).map(|s| g.sm(s)).collect();
        let cy = Cycle {
            inp: &inp,
            out: &out,
            before: &before,
            after: &after,
            head_before,
        };
        c.check(&cy, g.gq_head(), cycle)
            .map_err(|what| format!("cycle {cycle}: {what}"))?;
        if inp.start {
            c.start(&inp, &stim.tables, cycle);
        }
        prev = Some(out);
    }
    Ok(c.seen)
}

/// The random checker's state across cycles.
struct Checker {
    p: Params,
    seen: Seen,
    k: Kernel,
    round: Round,
    /// The last SM served (round-robin pointer).
    ptr: usize,
    /// `Φ` after the last cycle, when its queue was empty.
    phi_prev: Option<u64>,
}

impl Checker {
    fn check(&mut self, c: &Cycle, head_after: u16, cycle: u32) -> Result<(), String> {
        if !self.k.running && c.out.grant != 0 {
            return Err("a grant with no kernel".into());
        }
        self.grants(c)?;
        self.assignments(c)?;
        self.steal(c)?;
        self.stealer_round(c)?;
        self.phi(c, head_after)?;
        self.ranges(c)?;
        self.mst_after_first_group(c)?;
        self.kernel_end(c, cycle)
    }

    /// A kernel starts at the edge of this cycle.
    fn start(&mut self, inp: &PaverIn, tables: &Groups, cycle: u32) {
        let n = self.p.sms;
        let steal = Steal::from_port(inp.steal_mode);
        let off = steal == Steal::Off;
        self.k = Kernel {
            tables: tables.clone(),
            steal: Some(steal),
            recipient_idle: inp.recipient_idle,
            started: cycle,
            running: true,
            granted_on: vec![vec![]; n],
            assigns: vec![0; n],
            pending: vec![0; n],
            kway: off && tables.len() <= n,
            mst: off && (n..tables.len()).all(|k| tables.group(k).len() == 1),
            ..Default::default()
        };
        self.seen.kway_kernels += self.k.kway as u32;
        self.seen.mst_kernels += self.k.mst as u32;
        self.round = Round::default();
        self.ptr = n - 1;
    }

    /// P5, P7: one grant per SM with room, the block at `next`, never twice (P1); P6, P7:
    /// `next` moves by exactly one, so an SM's blocks go out in range order.
    fn grants(&mut self, c: &Cycle) -> Result<(), String> {
        for (s, id) in c.out.grants(self.p.sms) {
            if c.inp.room >> s & 1 == 0 {
                return Err(format!("SM {s} granted without room"));
            }
            let at = c.before[s].next as usize;
            if self.k.tables.order.get(at) != Some(&id) {
                return Err(format!("SM {s} granted {id}, order[{at}] is not it"));
            }
            if !self.k.granted.insert(id) {
                return Err(format!("block {id} granted twice"));
            }
            // (A kernel start in the same cycle resets `next`.)
            if !c.inp.start && c.after[s].next != c.before[s].next.wrapping_add(1) {
                return Err(format!("SM {s}: next {} after a grant at {at}", c.after[s].next));
            }
            if let Some(on) = self.k.granted_on.get_mut(s) {
                on.push(id);
            }
            self.seen.grants += 1;
        }
        Ok(())
    }

    /// P8, P9: groups assigned in order, each once, only to exhausted SMs; P10: to the first
    /// free SMs in round-robin order from `grant_ptr + 1`.
    fn assignments(&mut self, c: &Cycle) -> Result<(), String> {
        let n = self.p.sms;
        let mut assigned: Vec<(u16, usize)> = c
            .out
            .reads(n)
            .filter(|r| r.1)
            .map(|(s, _, a)| (a, s))
            .collect();
        assigned.sort_unstable();
        let rot = |s: usize| (s + n - (self.ptr + 1) % n) % n;
        let mut free: Vec<usize> = (0..n).filter(|&s| c.free(s)).collect();
        free.sort_by_key(|&s| rot(s));
        let order: Vec<usize> = assigned.iter().map(|&(_, s)| s).collect();
        if free[..order.len().min(free.len())] != order[..] {
            return Err(format!(
                "groups to SMs {order:?}, free in round-robin order {free:?}"
            ));
        }
        if let Some(&last) = order.last() {
            self.ptr = last;
        }
        for (a, s) in assigned {
            if a != self.k.next_group || c.out.assigned >> s & 1 == 0 {
                return Err(format!("SM {s} assigned group {a}, expected {}", self.k.next_group));
            }
            if !c.free(s) {
                return Err(format!("SM {s} assigned a group while not exhausted"));
            }
            self.k.next_group += 1;
            if let Some(t) = self.k.assigns.get_mut(s) {
                *t += 1;
                let (g, at) = (&self.k.tables.gstart, a as usize);
                self.k.pending[s] = (g[at + 1] - g[at]) as u16;
            }
        }
        Ok(())
    }

    /// P11, P13, P16, P17: steals only with the queue empty, from a busy donor's tail to an
    /// exhausted recipient with room (no block at all under `recipient_idle`), at least one
    /// block, never the whole range under the clamp.
    fn steal(&mut self, c: &Cycle) -> Result<(), String> {
        if !c.out.steal {
            return Ok(());
        }
        self.seen.steals += 1;
        let (d, r, n) = (
            c.out.steal_donor as usize,
            c.out.steal_to as usize,
            c.out.steal_count,
        );
        let keep = self.k.keep();
        if (c.head_before as usize) < self.k.tables.len() || !self.k.steals() {
            return Err("P11: a steal while groups are queued or stealing is off".into());
        }
        let w = c.waited(d);
        if c.inp.room >> d & 1 == 1 || n == 0 || n + keep > w || d == r {
            return Err(format!(
                "P13: steal {n} of {w} from SM {d} (room {})",
                c.inp.room >> d & 1
            ));
        }
        let takes = self.k.takes(c.inp);
        if !c.free(r) || takes >> r & 1 == 0 {
            return Err(format!("P13: SM {r} received stolen blocks while not a recipient"));
        }
        self.ptr = r;
        let t = c.before[d].tail;
        let (donor, to) = (c.after[d], c.after[r]);
        if donor.tail != t - n || (to.next, to.tail) != (t - n, t) {
            return Err(format!("P16: steal from {d} to {r}: ranges {donor:?} {to:?}"));
        }
        Ok(())
    }

    /// P14, P15, P19: each round of the stealer reads one SM a cycle, then divides; its commit
    /// steals from the first busy SM with the largest `W` the scan saw, `S = max - floor(ΣW /
    /// N)` blocks (at most `max - 1` under the clamp), and it steals whenever that count is at
    /// least one, the donor is still busy and still holds them, and a recipient is there.
    fn stealer_round(&mut self, c: &Cycle) -> Result<(), String> {
        let n = self.p.sms;
        let active = c.head_before as usize >= self.k.tables.len() && self.k.steals();
        let r = &mut self.round;
        if !active || r.phase < n + DIV_CYCLES + 1 {
            if c.out.steal {
                return Err("P13: a steal outside a round's commit".into());
            }
            if active && r.phase < n {
                r.seen.push((c.waited(r.phase), c.inp.room >> r.phase & 1 == 0));
            }
            r.phase += active as usize;
            return Ok(());
        }
        let seen = std::mem::take(&mut r.seen);
        r.phase = 0;
        self.seen.rounds += 1;
        let busy = || seen.iter().filter(|s| s.1).map(|s| s.0);
        let max = busy().max().unwrap_or(0);
        let donor = seen.iter().position(|&(w, b)| b && w == max).unwrap_or(0);
        let sum = seen.iter().fold(0u16, |a, s| a.wrapping_add(s.0));
        let mut count = max - (sum / n as u16).min(max);
        let keep = self.k.keep();
        if keep == 1 {
            count = count.min(max.saturating_sub(1));
        }
        let o = c.out;
        if o.steal && o.steal_donor as usize != donor {
            return Err(format!(
                "P14: donor SM {}, the scan's first busy SM with the largest W is {donor} \
                 (W, busy: {seen:?})",
                o.steal_donor
            ));
        }
        if o.steal && o.steal_count != count {
            return Err(format!(
                "P15: {} stolen, max {max} - floor({sum} / {n}) gives {count}",
                o.steal_count
            ));
        }
        let takes = self.k.takes(c.inp);
        let recipient = (0..n).any(|s| c.free(s) && takes >> s & 1 == 1);
        let owed = count >= 1
            && c.inp.room >> donor & 1 == 0
            && c.waited(donor) >= count + keep
            && recipient;
        if o.steal != owed {
            return Err(format!(
                "P19: the round owed {} steal (count {count} from SM {donor}), the block {}",
                if owed { "a" } else { "no" },
                if o.steal { "stole" } else { "did not steal" }
            ));
        }
        Ok(())
    }

    /// P18: once the queue is empty `Φ = Σ W²` (an outstanding descriptor counted as its
    /// group) never rises, and a steal that leaves the donor a block lowers it.
    fn phi(&mut self, c: &Cycle, head_after: u16) -> Result<(), String> {
        let phi: u64 = (0..self.p.sms)
            .map(|s| self.k.w_eff(s, &c.after[s]).pow(2))
            .sum();
        if let (Some(prev), false) = (self.phi_prev, c.inp.start) {
            self.seen.phi_checks += 1;
            if phi > prev {
                return Err(format!("P18: Φ rose from {prev} to {phi} with the queue empty"));
            }
            let splits = c.out.steal && c.after[c.out.steal_donor as usize].waiting() > 0;
            if splits && phi >= prev {
                return Err(format!("P18: a steal that split a range left Φ at {phi}"));
            }
        }
        let empty = head_after as usize >= self.k.tables.len();
        self.phi_prev = (self.k.running && empty && !c.inp.start).then_some(phi);
        Ok(())
    }

    /// P2/P3: the SMs' ranges are disjoint and inside the tables; P4: a held nextTB is
    /// `order[next]` of a non-empty range.
    fn ranges(&self, c: &Cycle) -> Result<(), String> {
        let order = &self.k.tables.order;
        let total = order.len() as u16;
        let mut covered = vec![false; total as usize];
        for (s, r) in c.after.iter().enumerate() {
            if r.next > r.tail || r.tail > total {
                return Err(format!("SM {s} holds [{}, {}) of {total}", r.next, r.tail));
            }
            for i in r.next..r.tail {
                if std::mem::replace(&mut covered[i as usize], true) {
                    return Err(format!("index {i} in two SMs' ranges"));
                }
            }
            let held = order.get(r.next as usize) == Some(&(r.ntb as u32));
            if r.ntb_valid && (r.next >= r.tail || !held) {
                return Err(format!("SM {s} holds nextTB {} at [{}, {})", r.ntb, r.next, r.tail));
            }
        }
        Ok(())
    }

    /// P12 (MST): after its first group an SM never waits for more than one block.
    fn mst_after_first_group(&self, c: &Cycle) -> Result<(), String> {
        if !self.k.mst {
            return Ok(());
        }
        for s in 0..self.p.sms {
            let w = self.k.w_eff(s, &c.after[s]);
            if self.k.assigns[s] >= 2 && w > 1 {
                return Err(format!("P12: SM {s} waits for {w} blocks after its first group"));
            }
        }
        Ok(())
    }

    /// P1, P20: a kernel ends with every block granted, in bounded time; P12 (k-way without
    /// stealing): SM s issued exactly the blocks of group s.
    fn kernel_end(&mut self, c: &Cycle, cycle: u32) -> Result<(), String> {
        let total = self.k.tables.order.len();
        if self.k.running && c.out.idle {
            if self.k.granted.len() != total {
                return Err(format!("idle with {} of {total} granted", self.k.granted.len()));
            }
            if self.k.kway {
                for (s, on) in self.k.granted_on.iter_mut().enumerate() {
                    let mut want: Vec<u32> = match s < self.k.tables.len() {
                        true => self.k.tables.group(s).to_vec(),
                        false => vec![],
                    };
                    want.sort_unstable();
                    on.sort_unstable();
                    if *on != want {
                        return Err(format!("P12: SM {s} issued {on:?}, its part is {want:?}"));
                    }
                }
            }
            self.seen.kernels_done += 1;
            self.k.running = false;
        }
        let bound = 200 + total as u32 * (610 + self.p.sms as u32);
        if self.k.running && cycle - self.k.started > bound {
            return Err("a kernel never finished (P20)".into());
        }
        Ok(())
    }
}

#[test]
fn random_stimulus_keeps_every_property_in_every_mode() {
    let modes = [
        (Steal::Literal, false),
        (Steal::Clamp, false),
        (Steal::Literal, true),
        (Steal::Off, false),
    ];
    for (steal, idle) in modes {
        for sms in [1, 2, 4, 15] {
            let p = Params::new(sms);
            let seen = check_random(p, Some((steal, idle)), None, 11, 60_000)
                .unwrap_or_else(|e| panic!("{steal:?}/{idle}/{sms}: {e}"));
            assert!(
                seen.kernels_done >= 20 && seen.grants > 1000,
                "{steal:?}/{idle}/{sms}: {seen:?}"
            );
            // An idle recipient (no block at all) is rarer than one with room.
            let want = if idle { 1 } else { 10 };
            if steal != Steal::Off && sms > 1 {
                assert!(seen.steals >= want, "{steal:?}/{idle}/{sms}: {seen:?}");
                assert!(seen.rounds >= 100 && seen.phi_checks >= 1000, "{seen:?}");
            }
            if steal == Steal::Off {
                assert!(seen.kway_kernels >= 1 && seen.mst_kernels >= 3, "{sms}: {seen:?}");
            }
        }
    }
    // Random modes per kernel, as the regression's stimulus runs.
    check_random(Params::new(15), None, None, 5, 100_000).unwrap();
}

/// Drives `g` one cycle with `room`, answering the previous cycle's reads from `t` at once.
fn cycle(g: &mut Golden, t: &Groups, prev: &PaverOut, room: u128, start: bool) -> PaverOut {
    let mut inp = PaverIn {
        start,
        groups: t.len() as u16,
        steal_mode: Steal::Literal as u8,
        room,
        empty: 0,
        ..Default::default()
    };
    for (s, group, a) in prev.reads(g.params.sms) {
        inp.rsp_valid |= 1 << s;
        inp.rsp_data[s] = t.table_word(group, a);
    }
    g.step(&inp)
}

/// The paper's example (L302): a donor with four waiting blocks, two SMs, S = 4 - 4/2 = 2; the
/// donor keeps TB_0 and TB_1, the recipient takes TB_2 and TB_3.
fn stealing_example(fault: Option<Fault>) -> (SmRegs, SmRegs) {
    let p = Params::new(2);
    let mut g = Golden::new(p);
    g.fault = fault;
    let t = Groups {
        order: vec![10, 11, 12, 13],
        gstart: vec![0, 4],
        notes: vec![],
    };
    // SM 0 is busy (no room) throughout; SM 1 has room.
    let mut out = cycle(&mut g, &t, &PaverOut::default(), 0b10, true);
    for _ in 0..(2 + 2 + DIV_CYCLES + 1) {
        out = cycle(&mut g, &t, &out, 0b10, false);
        if out.steal {
            assert_eq!((out.steal_donor, out.steal_to), (0, 1));
            break;
        }
    }
    (g.sm(0), g.sm(1))
}

#[test]
fn the_papers_stealing_example() {
    let (donor, recipient) = stealing_example(None);
    assert_eq!((donor.next, donor.tail), (0, 2));
    assert_eq!((recipient.next, recipient.tail), (2, 4));
    // A planted fault (one block too many) is caught.
    let (donor, _) = stealing_example(Some(Fault::StealOneMore));
    assert_ne!((donor.next, donor.tail), (0, 2));
}

/// P10: from an idle launch with G >= N, group g goes to SM g, all in the first cycle (V-R5).
fn launch_order() -> Vec<(usize, u16)> {
    let p = Params::new(4);
    let mut g = Golden::new(p);
    let t = Groups {
        order: (0..12).collect(),
        gstart: vec![0, 2, 4, 6, 8, 10, 12],
        notes: vec![],
    };
    let mut out = cycle(&mut g, &t, &PaverOut::default(), 0, true);
    let mut assigned = vec![];
    for _ in 0..6 {
        out = cycle(&mut g, &t, &out, 0b1111, false);
        assigned.extend(out.reads(4).filter(|r| r.1).map(|(s, _, a)| (s, a)));
    }
    assigned
}

#[test]
fn an_idle_launch_gives_group_g_to_sm_g_then_round_robin() {
    let got = launch_order();
    assert_eq!(&got[..4], &[(0, 0), (1, 1), (2, 2), (3, 3)]);
    assert_eq!(got.len(), 6);
}

#[test]
fn planted_faults_fail_the_random_checks() {
    let p = Params::new(4);
    let e = check_random(p, None, Some(Fault::AssignFromZero), 11, 60_000).unwrap_err();
    assert!(e.contains("round-robin"), "{e}");
    for (fault, property) in [
        (Fault::StealOneMore, "P15"),
        (Fault::DonorLastOnTies, "P14"),
        (Fault::NoStealOfOne, "P19"),
        (Fault::DescriptorOneLonger, "P18"),
    ] {
        let e = check_random(p, Some((Steal::Literal, false)), Some(fault), 11, 200_000)
            .expect_err(&format!("{fault:?} is caught"));
        assert!(e.contains(property), "{fault:?}: {e}");
    }
}

/// P21: a kernel launch returns every register to its reset value (but the launch's own
/// configuration), so a second launch of the same kernel behaves exactly like the first.
#[test]
fn a_second_launch_behaves_like_the_first() {
    use crate::block::Inspect;
    let p = Params::new(4);
    let mut rng = <rand_xoshiro::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(3);
    let t = stimulus::random_groups(&mut rng, 40, 6);
    // SM 3 is busy throughout, so the stealer fires at the end.
    let run = |g: &mut Golden| -> Vec<String> {
        let mut out = cycle(g, &t, &PaverOut::default(), 0b0111, true);
        (0..200)
            .map(|_| {
                out = cycle(g, &t, &out, 0b0111, false);
                format!("{out:?}")
            })
            .collect()
    };
    let state = |g: &Golden| {
        let mut v = vec![];
        g.state_values(&mut v);
        v
    };
    let mut g = Golden::new(p);
    let first = run(&mut g);
    assert!(first.iter().any(|o| o.contains("steal: true")), "the run steals");
    // A launch in the middle of the kernel's run, then the same kernel again.
    let mut again = Golden::new(p);
    run(&mut again);
    let out = cycle(&mut again, &t, &PaverOut::default(), 0b0111, true);
    let mut fresh = Golden::new(p);
    cycle(&mut fresh, &t, &PaverOut::default(), 0b0111, true);
    assert_eq!(state(&again), state(&fresh), "registers after the launch ({out:?})");
    let mut second = Golden::new(p);
    run(&mut second);
    assert_eq!(run(&mut second), first, "the second launch's outputs");
}
