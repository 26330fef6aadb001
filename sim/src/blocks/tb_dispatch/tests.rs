//! The dispatcher against a small SM model: who gets which block, when.

use super::*;

/// SMs holding up to `x` blocks; block `b` finishes `life(b)` cycles after issue.
struct Sms {
    x: u32,
    active: Vec<Vec<(u32, u64)>>, // (block id, finish cycle)
    got: Vec<Vec<u32>>,
}

impl Sms {
    fn new(n: usize, x: u32) -> Self {
        Self {
            x,
            active: vec![vec![]; n],
            got: vec![vec![]; n],
        }
    }
    fn rooms(&self) -> (u128, u128) {
        let mut r = (0, 0);
        for (s, a) in self.active.iter().enumerate() {
            let free = self.x - a.len() as u32;
            r.0 |= ((free >= 1) as u128) << s;
            r.1 |= ((free >= 2) as u128) << s;
        }
        r
    }
}

/// Runs a kernel of `total` blocks; returns per-SM block lists and the cycle of each issue.
fn run(
    policy: Policy,
    n: usize,
    x: u32,
    total: u32,
    life: impl Fn(u32) -> u64,
) -> (Vec<Vec<u32>>, Vec<u64>) {
    let mut d = Golden::new(Params::new(policy, n));
    let mut sms = Sms::new(n, x);
    let mut issued_at = vec![u64::MAX; total as usize];
    d.step(&DispatchIn {
        start: true,
        total,
        max_per_sm: x as u8,
        ..Default::default()
    });
    for cycle in 1..100_000u64 {
        for a in &mut sms.active {
            a.retain(|&(_, end)| end > cycle);
        }
        let (room, room2) = sms.rooms();
        let o = d.step(&DispatchIn {
            room,
            room2,
            ..Default::default()
        });
        for (s, id) in o.grants(n) {
            assert_eq!(issued_at[id as usize], u64::MAX, "block {id} granted twice");
            sms.active[s].push((id, cycle + life(id)));
            sms.got[s].push(id);
            issued_at[id as usize] = cycle;
            assert!(sms.active[s].len() as u32 <= x, "SM {s} over its occupancy");
        }
        if o.idle && sms.active.iter().all(Vec::is_empty) {
            break;
        }
    }
    assert!(
        issued_at.iter().all(|&c| c != u64::MAX),
        "every block issued"
    );
    (sms.got, issued_at)
}

#[test]
fn lrr_from_idle_gives_sm_s_blocks_s_plus_kn() {
    let (got, at) = run(Policy::Lrr, 4, 2, 8, |_| 1000);
    assert_eq!(got, vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]);
    assert_eq!(
        &at[..4],
        &[1, 1, 1, 1],
        "one block per SM per cycle, all SMs in the first cycle"
    );
    assert_eq!(&at[4..], &[2, 2, 2, 2]);
}

#[test]
fn lrr_continues_after_the_last_sm_that_received_one() {
    // x = 1; block 1 finishes first, so SM 1 frees first and the round robin moves on from it.
    let (got, _) = run(Policy::Lrr, 3, 1, 5, |b| if b == 1 { 10 } else { 50 });
    assert_eq!(got[1], vec![1, 3], "the first free SM takes the next block");
    assert_eq!(got.iter().map(Vec::len).sum::<usize>(), 5);
}

#[test]
fn bcs_issues_consecutive_pairs_and_a_final_odd_block() {
    let (got, at) = run(Policy::Bcs, 2, 4, 7, |_| 1000);
    assert_eq!(got, vec![vec![0, 1, 4, 5], vec![2, 3, 6]]);
    assert_eq!(
        at,
        vec![1, 1, 1, 1, 2, 2, 2],
        "pairs in one cycle; the odd block alone"
    );
}

#[test]
fn bcs_waits_for_two_free_contexts() {
    // x = 3: after a pair, one context is left, so BCS throttles to two blocks per SM.
    let (got, _) = run(Policy::Bcs, 1, 3, 6, |_| 20);
    assert_eq!(got, vec![vec![0, 1, 2, 3, 4, 5]]);
    let mut d = Golden::new(Params::new(Policy::Bcs, 1));
    d.step(&DispatchIn {
        start: true,
        total: 6,
        max_per_sm: 3,
        ..Default::default()
    });
    let o = d.step(&DispatchIn {
        room: 1,
        room2: 0,
        ..Default::default()
    });
    assert_eq!(o.grant, 0, "room for one is not enough for a pair");
}

#[test]
fn bcs_with_one_block_per_sm_falls_back_to_lrr() {
    let (got, _) = run(Policy::Bcs, 2, 1, 4, |_| 5);
    assert_eq!(got.iter().map(Vec::len).sum::<usize>(), 4);
    let mut strict = Golden::new(Params {
        bcs_fallback_x1: false,
        ..Params::new(Policy::Bcs, 2)
    });
    strict.step(&DispatchIn {
        start: true,
        total: 4,
        max_per_sm: 1,
        ..Default::default()
    });
    let o = strict.step(&DispatchIn {
        room: 0b11,
        room2: 0,
        ..Default::default()
    });
    assert!(
        o.grant == 0 && !o.idle,
        "without the fallback BCS never starts"
    );
}

#[test]
fn no_kernel_means_idle_and_no_issue() {
    let mut d = Golden::new(Params::new(Policy::Lrr, 15));
    let o = d.step(&DispatchIn {
        room: u128::MAX,
        room2: u128::MAX,
        ..Default::default()
    });
    assert!(o.idle && o.grant == 0);
}

#[test]
fn eighty_sms_are_served_through_the_wide_masks() {
    let (got, at) = run(Policy::Lrr, 80, 1, 100, |_| 7);
    assert_eq!(got[79], vec![79]);
    assert_eq!(got[0], vec![0, 80], "SM 0 frees first and is visited first again");
    assert!(at[..80].iter().all(|&c| c == 1), "every SM in the first cycle");
}

#[test]
fn grants_name_each_block_once_and_ids_of_idle_sms_are_zero() {
    let mut d = Golden::new(Params::new(Policy::Bcs, 3));
    d.step(&DispatchIn {
        start: true,
        total: 5,
        max_per_sm: 4,
        ..Default::default()
    });
    let o = d.step(&DispatchIn {
        room: 0b111,
        room2: 0b101,
        ..Default::default()
    });
    assert_eq!(o.grants(3).collect::<Vec<_>>(), [(0, 0), (0, 1), (2, 2), (2, 3)]);
    assert_eq!((o.id[1], o.id2[1]), (0, 0));
    let o = d.step(&DispatchIn {
        room: 0b010,
        room2: 0,
        ..Default::default()
    });
    assert_eq!(o.grants(3).collect::<Vec<_>>(), [(1, 4)], "the odd last block alone");
    assert!(o.idle);
}
