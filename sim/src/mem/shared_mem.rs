//! Shared-memory bank conflicts, as GPGPU-Sim computes them with
//! `-gpgpu_shmem_limited_broadcast 0`: the memory has `banks` banks of 4-byte words (word `w`
//! lives in bank `w mod banks`); lanes reading the same word are served by one broadcast, and a
//! bank serves one distinct word per cycle. A warp access therefore takes as many cycles as the
//! largest number of distinct words any one bank must deliver (at least 1).

use std::collections::BTreeSet;

/// Bank width, bytes.
pub const BANK_BYTES: u64 = 4;

/// Cycles a warp's shared-memory access takes: `lanes` are the active lanes' byte addresses,
/// each accessing `width` bytes (a wide access touches every word it covers).
pub fn conflict_cycles(lanes: impl IntoIterator<Item = u64>, width: u32, banks: u32) -> u32 {
    let banks = banks.max(1) as u64;
    let mut words: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); banks as usize];
    let mut any = false;
    for addr in lanes {
        any = true;
        let first = addr / BANK_BYTES;
        let last = (addr + width.max(1) as u64 - 1) / BANK_BYTES;
        for w in first..=last {
            words[(w % banks) as usize].insert(w);
        }
    }
    if !any {
        return 0;
    }
    words
        .iter()
        .map(|s| s.len() as u32)
        .max()
        .unwrap_or(0)
        .max(1)
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
    }
}
