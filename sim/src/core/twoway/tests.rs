//! The 2-way layout's properties (spec §4.5, W2-1..W2-9), checked after every step of random
//! sequences of attaches, allocations, releases, quota changes and detaches; and Fig. 5.4's
//! fragmentation, where first fit loses a block the 2-way layout keeps.

use super::*;
use proptest::prelude::*;

/// The GTX 980's SM (thesis Table 5.2): 2048 threads, 32 blocks, 64K registers, 96 kB.
fn gtx980() -> Caps {
    Caps::of_sm(2048, 32, 65536, 96 * 1024)
}

/// Every live block's interval per resource, `(end, slot, start, len)`.
fn intervals(t: &TwoWay, needs: &[Option<Need>; 2], r: usize) -> Vec<(End, u32, u32, u32)> {
    let mut v = vec![];
    for end in End::BOTH {
        let Some(need) = needs[end as usize] else {
            continue;
        };
        for j in 0..MAX_SLOTS {
            if t.occupied(end, j) {
                v.push((end, j, t.base(end, j)[r], need.units[r]));
            }
        }
    }
    v
}

/// W2-1, W2-2, W2-3, W2-9: regions inside their ends, no overlap, one contiguous free middle,
/// tight high-water marks, and the units conserved.
fn check_invariants(t: &TwoWay, needs: &[Option<Need>; 2]) -> Result<(), TestCaseError> {
    let caps = t.caps();
    for r in 0..2 {
        let mid = t.free_middle(r);
        prop_assert!(mid.start <= mid.end, "W2-2: middle {:?}", mid);
        let mut iv = intervals(t, needs, r);
        for &(end, _, start, len) in &iv {
            let inside = match end {
                End::Low => start + len <= mid.start,
                End::High => start >= mid.end && start + len <= caps.units[r],
            };
            prop_assert!(
                inside,
                "W2-1: {:?} at {}+{} outside its region",
                end,
                start,
                len
            );
        }
        iv.sort_by_key(|x| x.2);
        for w in iv.windows(2) {
            prop_assert!(w[0].2 + w[0].3 <= w[1].2, "W2-1: overlap {:?}", w);
        }
        // W2-9: live + holes + middle = capacity.
        let live: u32 = iv.iter().map(|x| x.3).sum();
        let holes: u32 = End::BOTH
            .iter()
            .map(|&e| {
                let size = needs[e as usize].map_or(0, |n| n.units[r]);
                (t.hwm(e) - t.live(e)) * size
            })
            .sum();
        prop_assert_eq!(live + holes + (mid.end - mid.start), caps.units[r], "W2-9");
    }
    for end in End::BOTH {
        let h = t.hwm(end);
        prop_assert!(
            h == 0 || t.occupied(end, h - 1),
            "W2-3: hwm {} not tight",
            h
        );
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Op {
    Attach(u32, Need),
    Allocate(bool),
    Release(bool, u32),
    Quota(bool, u32),
    Detach(bool),
}

fn end_of(high: bool) -> End {
    if high {
        End::High
    } else {
        End::Low
    }
}

fn op() -> impl Strategy<Value = Op> {
    let need = (1u32..=32, 0u32..=64, 0u32..=48 * 1024)
        .prop_map(|(warps, regs, smem)| Need::of_block(warps * 32, regs, smem));
    prop_oneof![
        1 => (0u32..4, need).prop_map(|(k, n)| Op::Attach(k, n)),
        4 => any::<bool>().prop_map(Op::Allocate),
        2 => (any::<bool>(), 0u32..32).prop_map(|(h, j)| Op::Release(h, j)),
        1 => (any::<bool>(), 0u32..=33).prop_map(|(h, q)| Op::Quota(h, q)),
        1 => any::<bool>().prop_map(Op::Detach),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_cases(2_000)))]

    /// W2-1..W2-5, W2-7, W2-9 after every operation of a random sequence.
    #[test]
    fn the_two_ends_never_cross_and_free_space_stays_in_one_piece(
        ops in proptest::collection::vec(op(), 1..200)
    ) {
        let mut t = TwoWay::new(gtx980());
        let mut needs: [Option<Need>; 2] = [None; 2];
        for op in ops {
            match op {
                Op::Attach(k, n) => {
                    let ends_held = End::BOTH.iter().filter(|&&e| needs[e as usize].is_some()).count();
                    match t.attach(k, n) {
                        Ok(e) => {
                            if needs[e as usize].is_none() {
                                needs[e as usize] = Some(n);
                            }
                        }
                        Err(AttachError::Full) => prop_assert_eq!(ends_held, 2, "W2-7"),
                        Err(AttachError::TooBig) => {}
                    }
                }
                Op::Allocate(h) => {
                    let end = end_of(h);
                    // W2-4: the lowest hole below the high-water mark first.
                    let hole = (0..t.hwm(end)).find(|&j| !t.occupied(end, j));
                    let expect = t.next_slot(end);
                    if let Some(g) = t.allocate(end) {
                        prop_assert_eq!(Some(g.slot), expect);
                        if let Some(hj) = hole.filter(|&j| j < t.quota(end)) {
                            prop_assert_eq!(g.slot, hj, "W2-4");
                        }
                        prop_assert!(g.slot < t.quota(end), "M-R2: slot below the quota");
                        prop_assert_eq!(g.base, t.base(end, g.slot));
                    }
                }
                Op::Release(h, j) => {
                    let end = end_of(h);
                    let was = t.occupied(end, j);
                    prop_assert_eq!(t.release(end, j), was);
                }
                Op::Quota(h, q) => {
                    let end = end_of(h);
                    t.set_quota(end, q);
                    // W2-5: the victims are the boundary blocks, highest first.
                    let v = t.victims(end);
                    prop_assert!(v.windows(2).all(|w| w[0] > w[1]));
                    prop_assert!(v.iter().all(|&j| j >= t.quota(end) && t.occupied(end, j)));
                    prop_assert_eq!(
                        v.len() as u32,
                        (t.quota(end)..MAX_SLOTS).filter(|&j| t.occupied(end, j)).count() as u32
                    );
                }
                Op::Detach(h) => {
                    let end = end_of(h);
                    let empty = t.live(end) == 0;
                    prop_assert_eq!(t.detach(end), empty);
                    if empty {
                        needs[end as usize] = None;
                    }
                }
            }
            check_invariants(&t, &needs)?;
        }
    }

    /// W2-6: with the other end empty, a kernel gets exactly the blocks a bag of resources
    /// would give it (nothing lost to holes).
    #[test]
    fn an_empty_other_end_leaves_no_fragmentation(
        warps in 1u32..=8, regs in 1u32..=64, smem in 0u32..=24 * 1024,
        frees in proptest::collection::vec(0u32..32, 0..40),
    ) {
        let need = Need::of_block(warps * 32, regs, smem);
        let caps = gtx980();
        let mut t = TwoWay::new(caps);
        let end = t.attach(7, need).unwrap();
        while t.allocate(end).is_some() {}
        for j in frees {
            t.release(end, j);
        }
        let live = t.live(end);
        let bound = (0..2)
            .filter(|&r| need.units[r] > 0)
            .map(|r| caps.units[r] / need.units[r])
            .chain([caps.threads / need.threads, caps.blocks])
            .min()
            .unwrap();
        let mut more = 0;
        while t.allocate(end).is_some() {
            more += 1;
        }
        prop_assert_eq!(live + more, bound);
    }
}

/// W2-7: a third kernel waits until an end is empty and detached.
#[test]
fn a_third_kernel_waits_for_an_end() {
    let n = Need::of_block(256, 16, 4096);
    let mut t = TwoWay::new(gtx980());
    assert_eq!(
        t.attach(1, n),
        Ok(End::Low),
        "the first kernel takes the low end"
    );
    assert_eq!(t.attach(2, n), Ok(End::High));
    assert_eq!(t.attach(3, n), Err(AttachError::Full));
    let g = t.allocate(End::Low).unwrap();
    assert!(!t.detach(End::Low), "not while a block is resident");
    assert!(t.release(End::Low, g.slot));
    assert!(t.detach(End::Low));
    assert_eq!(t.attach(3, n), Ok(End::Low));
    let huge = Need::of_block(256, 16, 200 * 1024);
    assert_eq!(
        TwoWay::new(gtx980()).attach(1, huge),
        Err(AttachError::TooBig)
    );
}

/// W2-8 (Fig. 5.4(a), M-R5's starting state): 10 kB of shared memory; kernel 0's blocks need
/// 2.5 kB, kernel 1's 3 kB; kernel 0 has one block, kernel 1 two, 1.5 kB free. When kernel
/// 0's block leaves, the 2-way layout lets kernel 1 place a third block; first fit, which put
/// kernel 0's block between kernel 1's, leaves 2.5 kB and 1.5 kB apart and places none.
#[test]
fn figure_5_4_first_fit_fragments_and_two_way_does_not() {
    let caps = Caps::of_sm(2048, 32, 65536, 10 * 1024);
    let k0 = Need::of_block(32, 0, 2560);
    let k1 = Need::of_block(32, 0, 3072);
    let mut ff = FirstFit::new(caps);
    let a = ff.allocate(k1).unwrap();
    let b = ff.allocate(k0).unwrap();
    let c = ff.allocate(k1).unwrap();
    assert_eq!(
        (a.1[1], b.1[1], c.1[1]),
        (0, 12, 22),
        "K1 | K0 | K1 | 1.5 kB free"
    );
    assert!(ff.release(b.0, k0));
    assert_eq!(
        ff.allocate(k1),
        None,
        "2.5 kB + 1.5 kB in two pieces: no 3 kB block"
    );

    let mut t = TwoWay::new(caps);
    let e1 = t.attach(1, k1).unwrap();
    let e0 = t.attach(0, k0).unwrap();
    assert!(t.allocate(e1).is_some());
    let g0 = t.allocate(e0).unwrap();
    assert!(t.allocate(e1).is_some());
    assert_eq!(t.free_middle(1).len(), 6, "1.5 kB in the middle");
    assert!(t.release(e0, g0.slot));
    assert!(
        t.allocate(e1).is_some(),
        "kernel 0's space joins the middle: a third block"
    );
}

/// B11: the first kernel on an SM without blocks takes the low end; a kernel takes an end whose
/// kernel has no block left; an end held without blocks takes the holder's need again; a block
/// too big for the SM changes nothing.
#[test]
fn claims_take_free_ends_and_too_big_changes_nothing() {
    let (a, b) = (Need::of_block(256, 16, 4096), Need::of_block(128, 8, 0));
    let mut t = TwoWay::new(gtx980());
    assert_eq!(t.claim(1, a), Ok(End::Low));
    assert_eq!(
        t.claim(2, b),
        Ok(End::Low),
        "no block on the SM: the low end, 1's no more"
    );
    assert_eq!(t.end_of(1), None);
    let g = t.allocate(End::Low).unwrap();
    assert_eq!(t.claim(1, a), Ok(End::High));
    assert_eq!(t.claim(3, a), Ok(End::High), "1 has no block: its end goes");
    assert!(t.allocate(End::High).is_some());
    assert_eq!(t.claim(4, a), Err(AttachError::Full));
    let before = t.clone();
    let huge = Need::of_block(256, 16, 200 * 1024);
    assert_eq!(t.claim(5, huge), Err(AttachError::TooBig));
    assert_eq!(t, before, "nothing changed");
    // 2's end, emptied, with another need under the same id (an id reused).
    assert!(t.release(End::Low, g.slot));
    assert_eq!(t.claim(2, a), Ok(End::Low));
    let g = t.allocate(End::Low).unwrap();
    assert_eq!(g.base, [0, 0]);
    assert_eq!(t.base(End::Low, 1)[1], 16, "4 kB: the new need's 16 units");
}

/// A block that needs no shared memory leaves a zero-length interval at the resource's start;
/// blocks placed after it at the same unit keep the intervals in order (a debug build found
/// `fit` subtracting past a start here).
#[test]
fn first_fit_places_blocks_after_one_that_needs_none_of_a_resource() {
    let caps = Caps {
        threads: 2048,
        blocks: 8,
        units: [64, 16],
    };
    let mut ff = FirstFit::new(caps);
    let none = Need {
        threads: 32,
        units: [4, 0],
    };
    let some = Need {
        threads: 32,
        units: [4, 4],
    };
    let (a, base_a) = ff.allocate(none).unwrap();
    assert_eq!(base_a, [0, 0]);
    assert_eq!(ff.allocate(some).unwrap().1, [4, 0]);
    assert_eq!(ff.allocate(some).unwrap().1, [8, 4]);
    assert_eq!(ff.allocate(none).unwrap().1, [12, 0]);
    assert!(ff.release(a, none));
    assert_eq!(ff.allocate(some).unwrap().1, [0, 8]);
}
