//! Coalescing of one warp memory instruction into transactions, following GPGPU-Sim's
//! `memory_coalescing_arch` for compute capability 2.0 and later:
//!
//! * Segment size by access width: 1 B → 32 B; 2 B → 64 B; 4, 8, 16 B → 128 B. In *sector* mode
//!   (Maxwell and later, or Fermi/Kepler accesses that bypass L1) every segment is 32 B.
//! * Each active lane adds its 32 B chunk (within the aligned 128 B block), its byte range and
//!   its lane to the transaction of its segment; a lane whose access crosses into the next
//!   segment also adds the segment of its last byte.
//! * Each transaction is then shrunk: a 128 B segment that uses only one 64 B half becomes
//!   that half, and a 64 B one that uses only one 32 B half becomes that half.
//!
//! Transactions come out in increasing address order.

/// One memory transaction of a warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transaction {
    /// Start address, aligned to `size`.
    pub addr: u64,
    /// Size in bytes: 32, 64 or 128.
    pub size: u32,
    /// 32 B chunks touched within the aligned 128 B block (bit `i` = bytes `32i..32i+32`).
    pub chunks: u8,
    /// Lanes served by this transaction.
    pub lanes: u32,
    /// Bytes touched within the aligned 128 B block (bit `i` = byte `i`).
    pub bytes: u128,
}

impl Transaction {
    /// A transaction of `size` bytes at `addr` (within one aligned 128 B block) that touches
    /// every byte, for every lane.
    pub fn whole(addr: u64, size: u32) -> Self {
        let bytes = crate::mem::data_cache::span_mask(addr, size);
        let chunks = (0..4).filter(|c| bytes >> (32 * c) & 0xffff_ffff != 0);
        Self {
            addr,
            size,
            chunks: chunks.fold(0, |m, c| m | 1 << c),
            lanes: u32::MAX,
            bytes,
        }
    }
}

#[derive(Default)]
struct Pending {
    chunks: u8,
    lanes: u32,
    bytes: u128,
}

fn segment_size(width: u32, sector: bool) -> u64 {
    match (width, sector) {
        (1, _) | (_, true) => 32,
        (2, false) => 64,
        (_, false) => 128,
    }
}

/// Coalesces the accesses of one warp instruction: `lanes` are `(lane, address)` pairs of the
/// active lanes, each accessing `width` bytes (1..=16 in practice; wider accesses use 128 B
/// segments). `sector` selects 32 B segments.
pub fn coalesce(
    lanes: impl IntoIterator<Item = (u32, u64)>,
    width: u32,
    sector: bool,
) -> Vec<Transaction> {
    let seg = segment_size(width, sector);
    // Segments in order of first touch (a warp touches few), sorted by address at the end.
    let mut pending: Vec<(u64, Pending)> = Vec::with_capacity(4);
    let mut add = |lane: u32, addr: u64| {
        let block = addr & !(seg - 1);
        let p = match pending.iter().position(|(b, _)| *b == block) {
            Some(i) => &mut pending[i].1,
            None => {
                pending.push((block, Pending::default()));
                &mut pending.last_mut().expect("pushed").1
            }
        };
        p.chunks |= 1 << ((addr & 127) / 32);
        p.lanes |= 1 << lane;
        let idx = (addr & 127) as u32;
        let end = (idx + width).min(128);
        if end > idx {
            // Bits idx..end.
            let span = end - idx;
            let ones = if span == 128 {
                u128::MAX
            } else {
                (1u128 << span) - 1
            };
            p.bytes |= ones << idx;
        }
    };
    for (lane, addr) in lanes {
        add(lane, addr);
        let last = addr.wrapping_add(width.max(1) as u64 - 1);
        if last & !(seg - 1) != addr & !(seg - 1) {
            add(lane, last);
        }
    }
    pending.sort_unstable_by_key(|(block, _)| *block);
    pending
        .into_iter()
        .map(|(block, p)| reduce(block, seg, p))
        .collect()
}

fn reduce(mut addr: u64, seg: u64, p: Pending) -> Transaction {
    let q = p.chunks;
    let mut size = seg as u32;
    // Chunks of the 64 B candidate, as (lower 32 B used, upper 32 B used).
    let mut halves = (false, false);
    if seg == 128 {
        let (lower, upper) = (q & 0b0011 != 0, q & 0b1100 != 0);
        if lower && !upper {
            size = 64;
            halves = (q & 1 != 0, q & 2 != 0);
        } else if upper && !lower {
            addr += 64;
            size = 64;
            halves = (q & 4 != 0, q & 8 != 0);
        }
    } else if seg == 64 {
        halves = if addr.is_multiple_of(128) {
            (q & 1 != 0, q & 2 != 0)
        } else {
            (q & 4 != 0, q & 8 != 0)
        };
    }
    if size == 64 {
        match halves {
            (true, false) => size = 32,
            (false, true) => {
                addr += 32;
                size = 32;
            }
            _ => {}
        }
    }
    Transaction {
        addr,
        size,
        chunks: q,
        lanes: p.lanes,
        bytes: p.bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lanes 0..n with `base + lane * stride`.
    fn strided(n: u32, base: u64, stride: u64) -> Vec<(u32, u64)> {
        (0..n).map(|l| (l, base + l as u64 * stride)).collect()
    }

    fn shape(t: &[Transaction]) -> Vec<(u64, u32)> {
        t.iter().map(|t| (t.addr, t.size)).collect()
    }

    #[test]
    fn strided_patterns_give_the_expected_transactions() {
        // Unit stride, 4 B: one full 128 B line.
        let t = coalesce(strided(32, 0x1000, 4), 4, false);
        assert_eq!(shape(&t), vec![(0x1000, 128)]);
        assert_eq!(
            (t[0].lanes, t[0].chunks, t[0].bytes),
            (u32::MAX, 0xf, u128::MAX)
        );
        // Stride 8: two lines.
        assert_eq!(coalesce(strided(32, 0x1000, 8), 4, false).len(), 2);
        // Stride 128: one 32 B transaction per lane.
        let t = coalesce(strided(32, 0x1000, 128), 4, false);
        assert_eq!(t.len(), 32);
        assert!(t.iter().all(|t| t.size == 32 && t.lanes.count_ones() == 1));
        // 16 B per lane, unit stride: 512 B = 4 lines.
        assert_eq!(
            shape(&coalesce(strided(32, 0, 16), 16, false)),
            vec![(0, 128), (128, 128), (256, 128), (384, 128)]
        );
        // Same address in every lane: one 32 B transaction.
        assert_eq!(
            shape(&coalesce(strided(32, 0x2040, 0), 4, false)),
            vec![(0x2040, 32)]
        );
    }

    #[test]
    fn partial_segments_shrink_to_the_used_half() {
        // Lanes 0..16 x 4 B = the lower 64 B.
        assert_eq!(
            shape(&coalesce(strided(16, 0x1000, 4), 4, false)),
            vec![(0x1000, 64)]
        );
        // Upper 64 B of the line.
        assert_eq!(
            shape(&coalesce(strided(16, 0x1040, 4), 4, false)),
            vec![(0x1040, 64)]
        );
        // Only the third 32 B chunk.
        assert_eq!(
            shape(&coalesce(strided(8, 0x1040, 4), 4, false)),
            vec![(0x1040, 32)]
        );
        // Chunks 0 and 3: the whole line stays 128 B.
        let t = coalesce(vec![(0, 0x1000), (1, 0x1060)], 4, false);
        assert_eq!(shape(&t), vec![(0x1000, 128)]);
        // 2 B accesses use 64 B segments.
        assert_eq!(
            shape(&coalesce(strided(32, 0x1000, 2), 2, false)),
            vec![(0x1000, 64)]
        );
        assert_eq!(
            shape(&coalesce(strided(8, 0x1020, 2), 2, false)),
            vec![(0x1020, 32)]
        );
    }

    #[test]
    fn misaligned_and_straddling_accesses_touch_two_segments() {
        // Unit stride from 0x104: 0x104..0x184 spans two lines.
        let t = coalesce(strided(32, 0x104, 4), 4, false);
        assert_eq!(shape(&t), vec![(0x100, 128), (0x180, 32)]);
        assert_eq!(t[1].lanes, 1 << 31);
        // One 8 B access at 0x7c crosses from line 0x0 into line 0x80.
        let t = coalesce(vec![(3, 0x7c)], 8, false);
        assert_eq!(shape(&t), vec![(0x60, 32), (0x80, 32)]);
        assert!(t.iter().all(|t| t.lanes == 1 << 3));
    }

    #[test]
    fn sector_mode_uses_32_byte_segments() {
        let t = coalesce(strided(32, 0x1000, 4), 4, true);
        assert_eq!(
            shape(&t),
            vec![(0x1000, 32), (0x1020, 32), (0x1040, 32), (0x1060, 32)]
        );
        assert_eq!(t[1].lanes, 0xff00);
    }

    /// The definition, directly: segments gathered in an ordered map, bytes set one by one.
    fn by_map(lanes: &[(u32, u64)], width: u32, sector: bool) -> Vec<Transaction> {
        let seg = segment_size(width, sector);
        let mut pending: std::collections::BTreeMap<u64, Pending> = Default::default();
        let mut add = |lane: u32, addr: u64| {
            let p = pending.entry(addr & !(seg - 1)).or_default();
            p.chunks |= 1 << ((addr & 127) / 32);
            p.lanes |= 1 << lane;
            let idx = (addr & 127) as u32;
            for i in idx..(idx + width).min(128) {
                p.bytes |= 1u128 << i;
            }
        };
        for &(lane, addr) in lanes {
            add(lane, addr);
            let last = addr.wrapping_add(width.max(1) as u64 - 1);
            if last & !(seg - 1) != addr & !(seg - 1) {
                add(lane, last);
            }
        }
        pending
            .into_iter()
            .map(|(block, p)| reduce(block, seg, p))
            .collect()
    }

    proptest::proptest! {
        /// The coalescer equals its definition for any lanes, widths and segment mode.
        #[test]
        fn transactions_agree_with_the_definition(
            addrs in proptest::collection::vec(0u64..4096, 0..33),
            width in proptest::sample::select(vec![0u32, 1, 2, 4, 8, 16, 64, 200]),
            sector in proptest::bool::ANY,
        ) {
            let lanes: Vec<(u32, u64)> = addrs.iter().enumerate().map(|(l, &a)| (l as u32, a)).collect();
            proptest::prop_assert_eq!(coalesce(lanes.iter().copied(), width, sector), by_map(&lanes, width, sector));
        }
    }
}
