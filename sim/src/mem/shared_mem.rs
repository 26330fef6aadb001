//! Shared-memory bank conflicts, as GPGPU-Sim computes them with
//! `-gpgpu_shmem_limited_broadcast 0`: the memory has `banks` banks of 4-byte words (word `w`
//! lives in bank `w mod banks`); lanes reading the same word are served by one broadcast, and a
//! bank serves one distinct word per cycle. A warp access therefore takes as many cycles as the
//! largest number of distinct words any one bank must deliver (at least 1).

/// Bank width, bytes.
pub const BANK_BYTES: u64 = 4;

/// Cycles a warp's shared-memory access takes: `lanes` are the active lanes' byte addresses,
/// each accessing `width` bytes (a wide access touches every word it covers).
pub fn conflict_cycles(lanes: impl IntoIterator<Item = u64>, width: u32, banks: u32) -> u32 {
    let banks = banks.max(1) as u64;
    // The words touched, on the stack for accesses of up to 4 words per lane.
    let mut buf = [0u64; 128];
    let mut n = 0;
    let mut spill: Vec<u64> = vec![];
    let (mut lo, mut hi) = (u64::MAX, 0);
    let mut any = false;
    for addr in lanes {
        any = true;
        let first = addr / BANK_BYTES;
        let last = addr.wrapping_add(width.max(1) as u64 - 1) / BANK_BYTES;
        (lo, hi) = (lo.min(first), hi.max(last));
        for w in first..=last {
            if n < buf.len() {
                buf[n] = w;
                n += 1;
            } else {
                spill.push(w);
            }
        }
    }
    if n == 0 {
        // No lane, no access; lanes whose range wraps past 2^64 touch no word but still issue.
        return any as u32;
    }
    if hi - lo < banks {
        // Fewer consecutive words than banks: each bank delivers at most one.
        return 1;
    }
    let words = if spill.is_empty() {
        &mut buf[..n]
    } else {
        spill.extend_from_slice(&buf[..n]);
        &mut spill[..]
    };
    // The distinct words, counted per bank.
    words.sort_unstable();
    let mut small = [0u16; 128];
    let mut large = vec![];
    let per_bank: &mut [u16] = if banks <= 128 {
        &mut small[..banks as usize]
    } else {
        large.resize(banks as usize, 0u16);
        &mut large
    };
    let mut most = 0;
    for (k, &w) in words.iter().enumerate() {
        if k > 0 && words[k - 1] == w {
            continue;
        }
        let c = &mut per_bank[(w % banks) as usize];
        *c += 1;
        most = most.max(*c as u32);
    }
    most.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride: u64) -> impl Iterator<Item = u64> {
        (0..32).map(move |l| l * stride)
    }

    #[test]
    fn strides_give_the_classic_conflict_degrees() {
        assert_eq!(
            conflict_cycles(strided(4), 4, 32),
            1,
            "unit stride: one word per bank"
        );
        assert_eq!(
            conflict_cycles(strided(8), 4, 32),
            2,
            "stride 2 words: 2-way"
        );
        assert_eq!(
            conflict_cycles(strided(12), 4, 32),
            1,
            "odd word stride: conflict-free"
        );
        assert_eq!(
            conflict_cycles(strided(128), 4, 32),
            32,
            "stride 32 words: all in bank 0"
        );
        assert_eq!(
            conflict_cycles(strided(0), 4, 32),
            1,
            "same word: broadcast"
        );
        assert_eq!(
            conflict_cycles((0..32).map(|l| (l % 2) * 128), 4, 32),
            2,
            "two words of bank 0"
        );
    }

    #[test]
    fn wide_accesses_cover_several_words() {
        // 16 B per lane, unit stride: 512 B = 128 words over 32 banks: 4 cycles.
        assert_eq!(conflict_cycles(strided(16), 16, 32), 4);
        // 8 B per lane: 2 cycles.
        assert_eq!(conflict_cycles(strided(8), 8, 32), 2);
        assert_eq!(
            conflict_cycles(std::iter::empty(), 4, 32),
            0,
            "no active lane, no access"
        );
        assert_eq!(
            conflict_cycles([u64::MAX - 1], 4, 32),
            1,
            "a range past 2^64 still issues"
        );
    }

    /// The definition, directly: the distinct words of each bank, counted in sets.
    fn by_sets(lanes: &[u64], width: u32, banks: u32) -> u32 {
        let banks = banks.max(1) as u64;
        let mut words = vec![std::collections::BTreeSet::new(); banks as usize];
        for &addr in lanes {
            let (first, last) = (addr / 4, (addr + width.max(1) as u64 - 1) / 4);
            for w in first..=last {
                words[(w % banks) as usize].insert(w);
            }
        }
        if lanes.is_empty() {
            return 0;
        }
        words
            .iter()
            .map(|s| s.len() as u32)
            .max()
            .unwrap_or(0)
            .max(1)
    }

    proptest::proptest! {
        /// The sorted count equals the definition for any lanes, widths and bank counts
        /// (wide accesses spill past the stack buffer).
        #[test]
        fn counts_agree_with_the_definition(
            lanes in proptest::collection::vec(0u64..1 << 20, 0..33),
            width in proptest::sample::select(vec![1u32, 2, 4, 8, 16, 64, 255]),
            banks in 1u32..40,
        ) {
            proptest::prop_assert_eq!(
                conflict_cycles(lanes.iter().copied(), width, banks),
                by_sets(&lanes, width, banks)
            );
        }
    }
}
