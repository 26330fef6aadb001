//! The spec's properties (§4 P1-P20, with V-R1's literal stealer) under random stimulus, the
//! paper's stealing example (L302) as a directed test, the round-robin launch (P10), and
//! planted faults that the checks catch.

use super::stimulus::Stimulus;
use crate::analysis::paver::Groups;
use super::*;
use crate::block::Stimulus as _;
use std::collections::HashSet;

/// What the random checker saw.
#[derive(Debug, Default)]
struct Seen {
    kernels_done: u32,
    grants: u64,
    steals: u64,
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
    let mut steal = Steal::Off;
    let mut seen = Seen::default();
    let mut prev: Option<PaverOut> = None;
    // The running kernel: its tables, blocks granted, the groups assigned, its start cycle.
    let mut tables = Groups::default();
    let mut granted: HashSet<u32> = HashSet::new();
    let mut next_group = 0u16;
    let mut started = 0u32;
    let mut running = false;
    let mut ptr = p.sms - 1;
    for cycle in 0..cycles {
        let fail = |what: String| Err(format!("cycle {cycle}: {what}"));
        let inp = stim.next(prev.as_ref());
        let before: Vec<SmRegs> = (0..p.sms).map(|s| g.sm(s)).collect();
        let head_before = g.gq_head();
        let out = g.step(&inp);
        if !running && out.grant != 0 {
            return fail("a grant with no kernel".into());
        }
        // P5, P7: one grant per SM with room, the block at `next`, never twice (P1).
        for (s, id) in out.grants(p.sms) {
            if inp.room >> s & 1 == 0 {
                return fail(format!("SM {s} granted without room"));
            }
            let at = before[s].next as usize;
            if tables.order.get(at) != Some(&id) {
                return fail(format!("SM {s} granted {id}, order[{at}] is not it"));
            }
            if !granted.insert(id) {
                return fail(format!("block {id} granted twice"));
            }
            // P6, P7: `next` moves by exactly one, so an SM's blocks go out in range order (a
            // kernel start in the same cycle resets it).
            if !inp.start && g.sm(s).next != before[s].next.wrapping_add(1) {
                return fail(format!("SM {s}: next {} after a grant at {at}", g.sm(s).next));
            }
            seen.grants += 1;
        }
        // P8, P9: groups assigned in order (in round-robin order of the SMs), each once, only
        // to exhausted SMs.
        let mut assigned: Vec<(u16, usize)> = out
            .reads(p.sms)
            .filter(|r| r.1)
            .map(|(s, _, a)| (a, s))
            .collect();
        assigned.sort_unstable();
        // P10: the first free SMs in round-robin order from `grant_ptr + 1`.
        let rot = |s: usize| (s + p.sms - (ptr + 1) % p.sms) % p.sms;
        let mut free: Vec<usize> = (0..p.sms)
            .filter(|&s| before[s].next == before[s].tail && !before[s].pend)
            .collect();
        free.sort_by_key(|&s| rot(s));
        let order: Vec<usize> = assigned.iter().map(|&(_, s)| s).collect();
        if free[..order.len().min(free.len())] != order[..] {
            return fail(format!(
                "groups to SMs {order:?}, free in round-robin order {free:?}"
            ));
        }
        if let Some(&last) = order.last() {
            ptr = last;
        }
        for (a, s) in assigned {
            if a != next_group || out.assigned >> s & 1 == 0 {
                return fail(format!("SM {s} assigned group {a}, expected {next_group}"));
            }
            if before[s].next != before[s].tail || before[s].pend {
                return fail(format!("SM {s} assigned a group while not exhausted"));
            }
            next_group += 1;
        }
        // P11, P13-P17: steals only with the queue empty, from a busy donor's tail to an
        // exhausted recipient, at least one block, never the whole range under the clamp.
        if out.steal {
            seen.steals += 1;
            let (d, r, n) = (
                out.steal_donor as usize,
                out.steal_to as usize,
                out.steal_count,
            );
            let keep = (steal == Steal::Clamp) as u16;
            if (head_before as usize) < tables.len() || steal == Steal::Off {
                return fail("a steal while groups are queued or stealing is off".into());
            }
            let w = before[d].waiting();
            let after = (g.sm(d), g.sm(r));
            if inp.room >> d & 1 == 1 || n == 0 || n + keep > w || d == r {
                return fail(format!(
                    "steal {n} of {w} from SM {d} (room {})",
                    inp.room >> d & 1
                ));
            }
            ptr = r;
            if after.0.tail != before[d].tail - n
                || (after.1.next, after.1.tail) != (before[d].tail - n, before[d].tail)
            {
                return fail(format!("steal from {d} to {r}: ranges {after:?}"));
            }
        }
        // P2/P3: the SMs' ranges are disjoint and inside the tables.
        let total = tables.order.len() as u16;
        let mut covered = vec![false; total as usize];
        for s in 0..p.sms {
            let r = g.sm(s);
            if r.next > r.tail || r.tail > total {
                return fail(format!("SM {s} holds [{}, {}) of {total}", r.next, r.tail));
            }
            for i in r.next..r.tail {
                if std::mem::replace(&mut covered[i as usize], true) {
                    return fail(format!("index {i} in two SMs' ranges"));
                }
            }
            // P4: a held nextTB is `order[next]` of a non-empty range.
            let held = tables.order.get(r.next as usize) == Some(&(r.ntb as u32));
            if r.ntb_valid && (r.next >= r.tail || !held) {
                return fail(format!("SM {s} holds nextTB {} at [{}, {})", r.ntb, r.next, r.tail));
            }
        }
        // P1, P20: a kernel ends with every block granted, in bounded time.
        if running && out.idle {
            if granted.len() != tables.order.len() {
                return fail(format!("idle with {} of {total} granted", granted.len()));
            }
            seen.kernels_done += 1;
            running = false;
        }
        if running && cycle - started > 200 + total as u32 * (610 + p.sms as u32) {
            return fail("a kernel never finished (P20)".into());
        }
        if inp.start {
            steal = Steal::from_port(inp.steal_mode);
            tables = stim.tables.clone();
            granted.clear();
            next_group = 0;
            ptr = p.sms - 1;
            started = cycle;
            running = true;
        }
        prev = Some(out);
    }
    Ok(seen)
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
}
