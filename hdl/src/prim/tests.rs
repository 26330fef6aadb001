//! Every primitive against its golden function: rust-hdl simulation on random inputs
//! (proptest), several sizes; and one planted bug per kind of check, to show it can fail.

use super::*;
use crate::sim::{clock_edge, settle, settle_comb, start, start_comb};
use proptest::prelude::*;
use rust_hdl::prelude::*;

fn mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// First input where `FindFirst<N, B>` differs from `golden`: (input, golden, rtl).
fn find_first_mismatch<const N: usize, const B: usize>(
    reqs: &[u64],
    golden: impl Fn(u128) -> Option<usize>,
) -> Option<(u64, Option<usize>, Option<usize>)> {
    let mut uut = FindFirst::<N, B>::default();
    start_comb(&mut uut);
    for &r in reqs {
        let r = r & mask(N);
        uut.req.next = r.to_bits();
        settle_comb(&mut uut);
        let rtl = uut.valid.val().then(|| uut.index.val().to_u64() as usize);
        let one = uut.onehot.val().to_u64();
        let want = golden(r as u128);
        if rtl != want
            || one != want.map_or(0, |i| 1 << i)
            || (!uut.valid.val() && uut.index.val().to_u64() != 0)
        {
            return Some((r, want, rtl));
        }
    }
    None
}

/// First input (its first `N` bits) where `PrefixCount<N, B>` differs from the golden function:
/// (input, golden `before` and total, RTL's).
#[allow(clippy::type_complexity)]
fn prefix_count_mismatch<const N: usize, const B: usize>(
    vecs: &[Vec<bool>],
) -> Option<(Vec<bool>, (Vec<u32>, u32), (Vec<u32>, u32))> {
    let mut uut = PrefixCount::<N, B>::default();
    start_comb(&mut uut);
    for v in vecs {
        let v = &v[..N];
        let mut bits = Bits::<N>::default();
        for (i, &b) in v.iter().enumerate() {
            bits = bits.replace_bit(i, b);
        }
        uut.bits.next = bits;
        settle_comb(&mut uut);
        let rtl = (
            uut.before.iter().map(|b| b.val().to_u64() as u32).collect(),
            uut.total.val().to_u64() as u32,
        );
        let want = prefix_count_golden(v);
        if rtl != want {
            return Some((v.to_vec(), want, rtl));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn find_first_matches_golden(reqs in prop::collection::vec(any::<u64>(), 1..40), sparse in any::<u64>()) {
        // Sparse inputs too: a random input has its lowest bit set half the time.
        let reqs: Vec<u64> = reqs.iter().flat_map(|&r| [r, r & sparse << 20, r & !(u64::MAX >> 4)]).collect();
        prop_assert_eq!(find_first_mismatch::<1, 1>(&reqs, find_first_golden), None);
        prop_assert_eq!(find_first_mismatch::<5, 3>(&reqs, find_first_golden), None);
        prop_assert_eq!(find_first_mismatch::<24, 5>(&reqs, find_first_golden), None);
        prop_assert_eq!(find_first_mismatch::<64, 6>(&reqs, find_first_golden), None);
    }

    #[test]
    fn onehot_index_matches_golden(idx in prop::collection::vec(0usize..48, 1..40)) {
        let mut uut = OneHotIndex::<48, 6>::default();
        start_comb(&mut uut);
        for &i in &idx {
            uut.onehot.next = (1u64 << i).to_bits();
            settle_comb(&mut uut);
            prop_assert_eq!(uut.index.val().to_u64() as usize, onehot_index_golden(1 << i));
        }
    }

    #[test]
    fn onehot_mux_matches_golden(data in prop::collection::vec(0u64..512, 12), sels in prop::collection::vec(0usize..13, 1..20)) {
        let mut uut = OneHotMux::<12, 9>::default();
        start_comb(&mut uut);
        for (i, &d) in data.iter().enumerate() {
            uut.data[i].next = d.to_bits();
        }
        for &s in &sels {
            // 12 means no select bit.
            let sel: u64 = if s < 12 { 1 << s } else { 0 };
            uut.sel.next = sel.to_bits();
            settle_comb(&mut uut);
            prop_assert_eq!(uut.out.val().to_u64(), onehot_mux_golden(sel as u128, &data));
        }
    }

    #[test]
    fn onehot_mux_tree_matches_golden(data in prop::collection::vec(0u64..128, 24), sels in prop::collection::vec(any::<u32>(), 1..20)) {
        // 24 words into a 32-leaf tree, any select (none, one, several bits); and one word.
        let mut uut = OneHotMuxTree::<24, 7, 32>::default();
        let mut one = OneHotMuxTree::<1, 5, 1>::default();
        start_comb(&mut uut);
        start_comb(&mut one);
        for (i, &d) in data.iter().enumerate() {
            uut.data[i].next = d.to_bits();
        }
        let word = [data[0] & 31];
        one.data[0].next = word[0].to_bits();
        for &s in &sels {
            let sel = u64::from(s) & 0xff_ffff;
            let sel = if s & 1 << 31 != 0 { sel & sel.wrapping_neg() } else { sel };
            uut.sel.next = sel.to_bits();
            one.sel.next = (sel & 1).to_bits();
            settle_comb(&mut uut);
            settle_comb(&mut one);
            prop_assert_eq!(uut.out.val().to_u64(), onehot_mux_golden(sel as u128, &data));
            prop_assert_eq!(one.out.val().to_u64(), onehot_mux_golden(u128::from(sel & 1), &word));
        }
    }

    #[test]
    fn popcount_matches_golden(words in prop::collection::vec(any::<u64>(), 1..40)) {
        let mut p32 = PopCount::<32, 6>::default();
        let mut p64 = PopCount::<64, 7>::default();
        let mut p2 = PopCount::<2, 2>::default();
        // Counts that are not powers of two (odd elements moved up a level), wider sums.
        let mut p24 = PopCount::<24, 5>::default();
        let mut p7 = PopCount::<7, 6>::default();
        let mut p1 = PopCount::<1, 1>::default();
        start_comb(&mut p32);
        start_comb(&mut p64);
        start_comb(&mut p2);
        start_comb(&mut p24);
        start_comb(&mut p7);
        start_comb(&mut p1);
        for &w in &words {
            p32.bits.next = (w & mask(32)).to_bits();
            p64.bits.next = w.to_bits();
            p2.bits.next = (w & 3).to_bits();
            p24.bits.next = (w & mask(24)).to_bits();
            p7.bits.next = (w & mask(7)).to_bits();
            p1.bits.next = (w & 1).to_bits();
            settle_comb(&mut p32);
            settle_comb(&mut p64);
            settle_comb(&mut p2);
            settle_comb(&mut p24);
            settle_comb(&mut p7);
            settle_comb(&mut p1);
            prop_assert_eq!(p24.count.val().to_u64() as u32, popcount_golden(w & mask(24)));
            prop_assert_eq!(p7.count.val().to_u64() as u32, popcount_golden(w & mask(7)));
            prop_assert_eq!(p1.count.val().to_u64() as u32, popcount_golden(w & 1));
            prop_assert_eq!(p32.count.val().to_u64() as u32, popcount_golden(w & mask(32)));
            prop_assert_eq!(p64.count.val().to_u64() as u32, popcount_golden(w));
            prop_assert_eq!(p2.count.val().to_u64() as u32, popcount_golden(w & 3));
        }
    }

    #[test]
    fn prefix_count_matches_golden(vecs in prop::collection::vec(prop::collection::vec(any::<bool>(), 160), 1..12)) {
        prop_assert_eq!(prefix_count_mismatch::<1, 1>(&vecs), None);
        prop_assert_eq!(prefix_count_mismatch::<8, 4>(&vecs), None);
        prop_assert_eq!(prefix_count_mismatch::<30, 5>(&vecs), None);
        prop_assert_eq!(prefix_count_mismatch::<160, 8>(&vecs), None);
    }

    #[test]
    fn arg_min_matches_golden(cases in prop::collection::vec((any::<u32>(), prop::collection::vec(0u64..8, 32)), 1..20)) {
        // Keys from a small range, so that ties are common.
        let mut uut = ArgMin::<32, 5, 8>::default();
        start_comb(&mut uut);
        for (valid, keys) in &cases {
            uut.valid.next = (*valid as u64).to_bits();
            for (i, &k) in keys.iter().enumerate() {
                uut.key[i].next = (k * 37 % 256).to_bits();
            }
            settle_comb(&mut uut);
            let keys: Vec<u64> = keys.iter().map(|k| k * 37 % 256).collect();
            let want = arg_min_golden(*valid as u64, &keys);
            let rtl = uut.found.val().then(|| (uut.index.val().to_u64() as usize, uut.min.val().to_u64()));
            prop_assert_eq!(rtl, want);
        }
    }

    #[test]
    fn rr_arbiter_matches_golden(reqs in prop::collection::vec(any::<u32>(), 1..60), resets in any::<u64>()) {
        prop_assert_eq!(rr_mismatch::<24, 5>(&reqs, resets, |g, r, a| g.step(r, a)), None);
        prop_assert_eq!(rr_mismatch::<3, 2>(&reqs, resets, |g, r, a| g.step(r, a)), None);
    }

    #[test]
    fn age_matrix_matches_golden(ops in prop::collection::vec((any::<u16>(), any::<u16>()), 1..60)) {
        let mut uut = AgeMatrix::<16>::default();
        start(&mut uut);
        uut.reset.next = true;
        settle(&mut uut);
        clock_edge(&mut uut);
        uut.reset.next = false;
        let mut gold = AgeMatrixGolden::new(16);
        for &(insert, req) in &ops {
            // Insert one or two entries most cycles, many sometimes.
            let insert = if insert % 5 == 0 { insert as u64 } else { insert as u64 & (insert as u64 >> 7) & 0x3 << (insert % 14) };
            uut.insert.next = insert.to_bits();
            uut.req.next = (req as u64).to_bits();
            settle(&mut uut);
            let want = gold.step(insert, req as u64);
            let rtl = uut.oldest.val().to_u64();
            prop_assert_eq!(rtl, want.map_or(0, |i| 1 << i));
            clock_edge(&mut uut);
        }
    }

    #[test]
    fn age_rows_match_golden(inserts in prop::collection::vec(any::<u16>(), 1..60)) {
        let mut uut = AgeRows::<12>::default();
        start(&mut uut);
        uut.reset.next = true;
        settle(&mut uut);
        clock_edge(&mut uut);
        uut.reset.next = false;
        let mut gold = AgeMatrixGolden::new(12);
        for &insert in &inserts {
            let insert = if insert % 5 == 0 { insert as u64 & 0xfff } else { insert as u64 & (insert as u64 >> 7) & 0x3 << (insert % 10) };
            uut.insert.next = insert.to_bits();
            settle(&mut uut);
            for i in 0..12 {
                prop_assert_eq!(uut.rows[i].val().to_u64(), gold.row(i), "row {}", i);
            }
            gold.step(insert, 0);
            clock_edge(&mut uut);
        }
    }

    #[test]
    fn fifo_matches_golden(ops in prop::collection::vec((any::<bool>(), any::<bool>(), 0u64..4096), 1..80)) {
        let mut uut = Fifo::<12, 8, 4>::default();
        start(&mut uut);
        uut.reset.next = true;
        settle(&mut uut);
        clock_edge(&mut uut);
        uut.reset.next = false;
        let mut gold = FifoGolden::new(8);
        for &(push, pop, w) in &ops {
            // Push more than pop half the run, so the FIFO fills and drains.
            uut.push.next = push;
            uut.push_data.next = w.to_bits();
            uut.pop.next = pop;
            settle(&mut uut);
            let want = gold.step(push.then_some(w), pop);
            let rtl = (uut.front.val().to_u64(), uut.empty.val(), uut.full.val(), uut.count.val().to_u64() as usize);
            prop_assert_eq!(rtl, want);
            clock_edge(&mut uut);
        }
    }
}

/// First cycle where `RrArbiter<N, B>` differs from `golden` (reset when bit `c % 64` of
/// `resets` and `c % 16 == 0`): (cycle, golden, rtl).
fn rr_mismatch<const N: usize, const B: usize>(
    reqs: &[u32],
    resets: u64,
    golden: impl Fn(&mut RrArbiterGolden, u128, bool) -> Option<usize>,
) -> Option<(usize, Option<usize>, Option<usize>)> {
    let mut uut = RrArbiter::<N, B>::default();
    start(&mut uut);
    uut.reset.next = true;
    settle(&mut uut);
    clock_edge(&mut uut);
    uut.reset.next = false;
    let mut gold = RrArbiterGolden::new(N);
    for (c, &r) in reqs.iter().enumerate() {
        if c % 16 == 0 && resets >> (c % 64) & 1 == 1 {
            uut.reset.next = true;
            settle(&mut uut);
            clock_edge(&mut uut);
            uut.reset.next = false;
            gold = RrArbiterGolden::new(N);
        }
        // The top bit decides whether the grant is taken (most cycles it is).
        let advance = r >> 29 != 0;
        let r = r as u64 & mask(N);
        uut.req.next = r.to_bits();
        uut.advance.next = advance;
        settle(&mut uut);
        let rtl = uut.valid.val().then(|| uut.index.val().to_u64() as usize);
        let want = golden(&mut gold, r as u128, advance);
        if rtl != want || uut.onehot.val().to_u64() != want.map_or(0, |i| 1 << i) {
            return Some((c, want, rtl));
        }
        clock_edge(&mut uut);
    }
    None
}

/// First word where `Deal<N, L, S>` or `Gather<N, L, S>` (fed `Deal`'s lanes) differs from the
/// golden functions: (word, golden lanes, RTL lanes, gathered word).
#[allow(clippy::type_complexity)]
fn stride_mismatch<const N: usize, const L: usize, const S: usize>(
    words: &[u64],
    deal: impl Fn(u64, usize, usize, usize) -> u64,
) -> Option<(u64, Vec<u64>, Vec<u64>, u64)> {
    let mut d = Deal::<N, L, S>::default();
    let mut g = Gather::<N, L, S>::default();
    start_comb(&mut d);
    start_comb(&mut g);
    for &w in words {
        let w = w & mask(N);
        d.word.next = w.to_bits();
        settle_comb(&mut d);
        let rtl: Vec<u64> = d.lanes.iter().map(|l| l.val().to_u64()).collect();
        let want: Vec<u64> = (0..S).map(|s| deal(w, S, L, s)).collect();
        for (s, &lane) in want.iter().enumerate() {
            g.lanes[s].next = lane.to_bits();
        }
        settle_comb(&mut g);
        let back = g.word.val().to_u64();
        if rtl != want || back != gather_golden(&want, L) || back != w {
            return Some((w, want, rtl, back));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn deal_and_gather_match_golden(words in prop::collection::vec(any::<u64>(), 1..40)) {
        prop_assert_eq!(stride_mismatch::<48, 24, 2>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<8, 4, 2>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<16, 4, 4>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<12, 3, 4>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<64, 32, 2>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<64, 16, 4>(&words, deal_golden), None);
        prop_assert_eq!(stride_mismatch::<6, 2, 3>(&words, deal_golden), None);
    }

    #[test]
    fn decode2_matches_golden(words in prop::collection::vec(any::<u64>(), 1..40)) {
        let mut uut = Decode2::<48, 24>::default();
        start_comb(&mut uut);
        for &w in &words {
            let w = w & mask(48);
            uut.word.next = w.to_bits();
            settle_comb(&mut uut);
            let rtl = [&uut.is0, &uut.is1, &uut.is2, &uut.is3].map(|o| o.val().to_u64());
            let want = [0, 1, 2, 3].map(|v| decode2_golden(w, 24, v));
            prop_assert_eq!(rtl, want);
        }
    }
}

#[test]
fn a_planted_golden_bug_is_caught() {
    // Lanes taken in blocks instead of interleaved.
    let blocks = |w: u64, _: usize, l: usize, lane: usize| w >> (lane * l) & mask(l);
    assert!(stride_mismatch::<8, 4, 2>(&[0b1100_0011], blocks).is_some());
    // The highest set bit instead of the lowest.
    let last = |r: u128| (r != 0).then(|| 127 - r.leading_zeros() as usize);
    assert!(find_first_mismatch::<24, 5>(&[0b1010, 0b110], last).is_some());
    // A round robin that never moves.
    let fixed = |_: &mut RrArbiterGolden, r: u128, _: bool| find_first_golden(r);
    assert!(rr_mismatch::<24, 5>(&[0xff00_0003, 0xff00_0003], 0, fixed).is_some());
}

#[test]
fn every_sample_generates_verilog() {
    for (name, v) in samples() {
        let v = v.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.contains(&format!("module {name}(")), "{name}");
    }
}

/// First cycle (`Err`) where `Ram<16, 5>` reads otherwise than the golden RAM, for writes and reads
/// (read address, write address, word, write enable) per cycle; `planted`: the golden RAM
/// reads the new word on a read of the address written at the same edge.
/// `Ok`: the reads compared.
fn ram_mismatch(ops: &[(usize, usize, u64, bool)], planted: bool) -> Result<usize, usize> {
    let mut uut = Ram::<16, 5>::default();
    start(&mut uut);
    let mut gold = RamGolden::new(32);
    let mut compared = 0;
    for (c, &(ra, wa, w, we)) in ops.iter().enumerate() {
        uut.read_address.next = (ra as u64).to_bits();
        uut.write_address.next = (wa as u64).to_bits();
        uut.write_data.next = (w & 0xffff).to_bits();
        uut.write_enable.next = we;
        settle(&mut uut);
        clock_edge(&mut uut);
        let write = we.then_some((wa, w & 0xffff));
        gold.edge(ra, write);
        if planted && we && wa == ra {
            // Read again after the write: the new word.
            gold.edge(ra, None);
        }
        settle(&mut uut);
        // A word never written reads as whatever the power-up left: not compared.
        if let Some(want) = gold.read_data() {
            if uut.read_data.val().to_u64() != want {
                return Err(c);
            }
            compared += 1;
        }
    }
    Ok(compared)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ram_matches_golden(ops in prop::collection::vec((0usize..32, 0usize..32, any::<u64>(), any::<bool>()), 1..200)) {
        prop_assert!(ram_mismatch(&ops, false).is_ok());
    }
}

#[test]
fn ram_check_catches_a_planted_read_after_write() {
    // Write 7 at 3, then read 3 while writing 9 there: the old word (7) comes out.
    let ops = [(0, 3, 7, true), (3, 3, 9, true), (3, 0, 0, false)];
    assert_eq!(ram_mismatch(&ops, false), Ok(2));
    assert_eq!(ram_mismatch(&ops, true), Err(1));
}

#[test]
fn ram_reads_match_over_a_long_random_run() {
    // Writes half the cycles over 32 words: most reads hit a written word.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let ops: Vec<_> = (0..2000)
        .map(|_| {
            let r = next();
            (
                (r & 31) as usize,
                (r >> 5 & 31) as usize,
                r >> 16,
                r >> 40 & 1 == 1,
            )
        })
        .collect();
    let compared = ram_mismatch(&ops, false).unwrap_or_else(|c| panic!("cycle {c}"));
    assert!(compared > 1500, "{compared} reads compared");
}

/// Loads `x` into a `SerialDivider<16, R>` dividing by `d` and steps it `steps` times (`plant`:
/// the step signal drops for one step, a missed quotient bit): (value, remainder).
fn serial_div_run<const R: usize>(
    uut: &mut SerialDivider<16, R>,
    x: u64,
    steps: usize,
    plant: bool,
) -> (u64, u64) {
    uut.clear.next = true;
    settle(uut);
    clock_edge(uut);
    uut.clear.next = false;
    uut.load.next = true;
    uut.load_value.next = x.to_bits();
    uut.step.next = false;
    settle(uut);
    clock_edge(uut);
    uut.load.next = false;
    for k in 0..steps {
        uut.step.next = !(plant && k == 7);
        settle(uut);
        clock_edge(uut);
    }
    settle(uut);
    (uut.value.val().to_u64(), uut.remainder.val().to_u64())
}

/// First dividend (`Err`) in `0..2^16` whose quotient or remainder by `d` is wrong after 16
/// steps; the number of dividends checked otherwise.
fn serial_div_exhaustive<const R: usize>(d: u64, plant: bool) -> Result<usize, u64> {
    let mut uut = SerialDivider::<16, R>::dividing_by(d);
    start(&mut uut);
    for x in 0..1u64 << 16 {
        let plant = plant && x == 40_000;
        if serial_div_run(&mut uut, x, 16, plant) != (x / d, x % d) {
            return Err(x);
        }
    }
    Ok(1 << 16)
}

/// Spec P22 (`paver.md` §4): the stealer's divider is exact, `floor(s / N)` for every 16-bit
/// `s`, for the SM counts of PAVER's presets (2 as the smallest), at the remainder width each
/// preset's scheduler gives it (`clog2(N) + 1` bits).
#[test]
fn serial_divider_is_exact_for_every_16_bit_dividend() {
    assert_eq!(serial_div_exhaustive::<2>(2, false), Ok(65_536));
    assert_eq!(serial_div_exhaustive::<3>(4, false), Ok(65_536));
    assert_eq!(serial_div_exhaustive::<5>(15, false), Ok(65_536));
    assert_eq!(serial_div_exhaustive::<6>(28, false), Ok(65_536));
    assert_eq!(serial_div_exhaustive::<8>(80, false), Ok(65_536));
    // A planted missed step is caught.
    assert_eq!(serial_div_exhaustive::<5>(15, true), Err(40_000));
}

proptest! {
    /// Partial divisions, reloads mid-way: the register and remainder after every step equal
    /// the golden divider's.
    #[test]
    fn serial_divider_matches_golden(x in 0u64..65_536, d in 1u64..=128, steps in 0usize..=16) {
        let mut uut = SerialDivider::<16, 8>::dividing_by(d);
        start(&mut uut);
        serial_div_run(&mut uut, 12_345, 9, false);
        let got = serial_div_run(&mut uut, x, steps, false);
        prop_assert_eq!(got, serial_div_golden(x, d, 16, steps));
    }
}
