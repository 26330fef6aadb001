//! Where a global address lives in the memory system: its channel, its L2 slice (memory
//! sub-partition), its DRAM bank and row, and the partition address an L2 slice indexes its
//! sets with.
//!
//! Two mappings:
//! - [`Chunked`], the model's own (the presets): consecutive chunks of
//!   `line * sub_partitions` bytes go to consecutive channels (modulo `channels`), the lines
//!   of a chunk to the channel's consecutive slices; within the channel, consecutive
//!   `row_bytes` of its address space go to consecutive banks.
//! - [`AddressMap::Decoded`], GPGPU-Sim's (`addrdec.cc`), when a configuration names
//!   `dram.address_mapping` (`-gpgpu_mem_addr_mapping`), with the partition indexing of
//!   `dram.partition_indexing` (`-gpgpu_memory_partition_indexing`): see [`Decoder`].

use crate::config::{DramConfig, PartitionIndexing};

/// Where one address goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Memory channel (`0 .. channels`).
    pub channel: usize,
    /// L2 slice, `channel * sub_partitions + ` the sub-partition within the channel.
    pub slice: usize,
    /// DRAM bank (`0 .. banks`).
    pub bank: u32,
    /// DRAM row within the bank.
    pub row: u64,
}

/// A global address to its [`Location`] and partition address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMap {
    /// The model's own mapping (see the module doc).
    Chunked(Chunked),
    /// GPGPU-Sim's decoder.
    Decoded(Decoder),
}

impl AddressMap {
    /// The mapping of `dram` for L2 lines of `line_bytes` (an invalid `address_mapping` is
    /// an error the configuration's check reports first: [`Decoder::new`]).
    pub fn new(dram: &DramConfig, line_bytes: u32) -> Result<Self, String> {
        Ok(match &dram.address_mapping {
            Some(m) => AddressMap::Decoded(Decoder::new(m, dram)?),
            None => AddressMap::Chunked(Chunked {
                channels: dram.channels as u64,
                subs: dram.sub_partitions as u64,
                line_log2: line_bytes.trailing_zeros(),
                banks: dram.banks as u64,
                row_bytes: dram.row_bytes as u64,
            }),
        })
    }

    /// Where `addr` goes.
    pub fn locate(&self, addr: u64) -> Location {
        match self {
            AddressMap::Chunked(c) => c.locate(addr),
            AddressMap::Decoded(d) => d.locate(addr),
        }
    }

    /// The L2 slice of `addr` (every request's: no DRAM bank or row worked out).
    pub fn slice(&self, addr: u64) -> usize {
        match self {
            AddressMap::Chunked(c) => c.slice(addr) as usize,
            AddressMap::Decoded(d) => d.slice(addr) as usize,
        }
    }

    /// The channel of `addr`.
    pub fn channel(&self, addr: u64) -> usize {
        let subs = match self {
            AddressMap::Chunked(c) => c.subs,
            AddressMap::Decoded(d) => d.subs,
        };
        self.slice(addr) / subs as usize
    }

    /// `addr` without the bits that choose its channel and slice (GPGPU-Sim's
    /// `partition_address`): an L2 slice indexes its sets with it, so that every set is used.
    pub fn partition_address(&self, addr: u64) -> u64 {
        match self {
            AddressMap::Chunked(c) => c.partition_address(addr),
            AddressMap::Decoded(d) => d.partition_address(addr),
        }
    }
}

/// The model's own mapping: chunks of `line * subs` bytes to consecutive channels, a chunk's
/// lines to the channel's consecutive slices, consecutive rows of a channel to consecutive
/// banks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunked {
    /// Memory channels.
    channels: u64,
    /// Slices per channel (a power of two).
    subs: u64,
    /// log2 of the L2 line, bytes.
    line_log2: u32,
    /// DRAM banks per channel.
    banks: u64,
    /// DRAM row, bytes.
    row_bytes: u64,
}

impl Chunked {
    /// log2 of a chunk (one line per slice of a channel), bytes.
    fn chunk_log2(&self) -> u32 {
        self.line_log2 + self.subs.trailing_zeros()
    }

    fn slice(&self, addr: u64) -> u64 {
        let channel = (addr >> self.chunk_log2()) % self.channels;
        channel * self.subs + ((addr >> self.line_log2) & (self.subs - 1))
    }

    fn locate(&self, addr: u64) -> Location {
        let slice = self.slice(addr);
        let chunk_log2 = self.chunk_log2();
        let local =
            ((addr >> chunk_log2) / self.channels) << chunk_log2 | (addr & ((1 << chunk_log2) - 1));
        let r = local / self.row_bytes;
        Location {
            channel: (slice / self.subs) as usize,
            slice: slice as usize,
            bank: (r % self.banks) as u32,
            row: r / self.banks,
        }
    }

    fn partition_address(&self, addr: u64) -> u64 {
        let line_mask = (1 << self.line_log2) - 1;
        ((addr >> self.chunk_log2()) / self.channels) << self.line_log2 | (addr & line_mask)
    }
}

/// GPGPU-Sim's address decoder (`linear_to_raw_address_translation`, `addrdec.cc`).
///
/// The mapping string names each of the 64 address bits from bit 63 down: `D` chip (channel),
/// `B` bank, `R` row, `C` column, `S` burst (a column bit), `0` unused; `.`, `|` and spaces
/// separate. A `dramid@N;` prefix puts the channel at bit `N` instead of `D` bits: with a
/// power-of-two channel count its `log2(channels)` bits are inserted there (the bits above
/// move up); otherwise the channel is `(addr >> N) % channels` and the rest of the address
/// is `(addr >> N) / channels` above the `N` low bits (GPGPU-Sim's `gap`). The sub-partition
/// within the channel is the bank's low `log2(sub_partitions)` bits, unless the partition
/// indexing hashes it ([`PartitionIndexing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoder {
    /// `dramid@N`'s `N` (GPGPU-Sim's `ADDR_CHIP_S`); `None` with `D` bits.
    chip_start: Option<u32>,
    chip_mask: u64,
    bank_mask: u64,
    row_mask: u64,
    /// The bank bits that choose the sub-partition (GPGPU-Sim's `sub_partition_id_mask`).
    sub_id_mask: u64,
    channels: u64,
    subs: u64,
    log2_channels: u32,
    log2_subs: u32,
    /// Channels is not a power of two.
    gap: bool,
    indexing: PartitionIndexing,
}

impl Decoder {
    /// The decoder of mapping string `mapping` for the channels, sub-partitions, banks and
    /// partition indexing of `dram`; an error says what GPGPU-Sim would refuse or get wrong.
    pub fn new(mapping: &str, dram: &DramConfig) -> Result<Self, String> {
        let (channels, subs) = (dram.channels as u64, dram.sub_partitions as u64);
        if channels == 0 {
            return Err("no channel".into());
        }
        if !subs.is_power_of_two() {
            return Err(format!(
                "{subs} sub-partitions per channel: GPGPU-Sim's decoder needs a power of two"
            ));
        }
        let (chip_start, masks) = Self::parse(mapping)?;
        let log2_channels = channels.ilog2();
        let gap = !channels.is_power_of_two();
        let [mut chip_mask, mut bank_mask, mut row_mask] = masks;
        match chip_start {
            Some(s) if !gap => {
                let low = (1u64 << s) - 1;
                let insert = |m: u64| ((m & !low) << log2_channels) | (m & low);
                bank_mask = insert(bank_mask);
                row_mask = insert(row_mask);
                chip_mask = ((1u64 << log2_channels) - 1) << s;
            }
            Some(_) => {}
            None if gap => {
                return Err(format!(
                    "`D` bits need a power-of-two channel count ({channels} channels): use `dramid@<bit>;`"
                ))
            }
            None if chip_mask.count_ones() != log2_channels => {
                return Err(format!(
                    "{} `D` bits choose among {} channels, not {channels}",
                    chip_mask.count_ones(),
                    1u64 << chip_mask.count_ones()
                ))
            }
            None => {}
        }
        let banks = 1u64.checked_shl(bank_mask.count_ones()).unwrap_or(u64::MAX);
        if banks > dram.banks as u64 {
            return Err(format!(
                "{} `B` bits address {banks} banks; the DRAM has {}",
                bank_mask.count_ones(),
                dram.banks
            ));
        }
        let log2_subs = subs.ilog2();
        if bank_mask.count_ones() < log2_subs {
            return Err(format!(
                "the sub-partition is the bank's low bits: {subs} sub-partitions need {log2_subs} `B` bits"
            ));
        }
        let mut sub_id_mask = 0;
        let mut b = bank_mask;
        for _ in 0..log2_subs {
            sub_id_mask |= b & b.wrapping_neg();
            b &= b - 1;
        }
        match dram.partition_indexing {
            PartitionIndexing::Xor if gap => {
                return Err(format!(
                "XOR partition indexing needs a power-of-two channel count ({channels} channels)"
            ))
            }
            PartitionIndexing::Ipoly
                if !matches!(channels.next_power_of_two() * subs, 16 | 32 | 64) =>
            {
                return Err(format!(
                    "IPOLY partition indexing hashes 16, 32 or 64 sub-partitions, not {}",
                    channels.next_power_of_two() * subs
                ))
            }
            _ => {}
        }
        Ok(Decoder {
            chip_start,
            chip_mask,
            bank_mask,
            row_mask,
            sub_id_mask,
            channels,
            subs,
            log2_channels,
            log2_subs,
            gap,
            indexing: dram.partition_indexing,
        })
    }

    /// The channel's start bit (`dramid@N`) and the chip, bank and row bit masks the mapping
    /// string names (before the channel bits are inserted); an error says what is malformed.
    pub fn parse(mapping: &str) -> Result<(Option<u32>, [u64; 3]), String> {
        let (chip_start, bits) = match mapping.trim().strip_prefix("dramid@") {
            Some(rest) => {
                let (n, bits) = rest
                    .split_once(';')
                    .ok_or("`dramid@<bit>;` needs its `;`")?;
                let n: u32 = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("`dramid@{n}`: the bit is a number from 0 to 63"))?;
                if n > 63 {
                    return Err(format!("`dramid@{n}`: the bit is a number from 0 to 63"));
                }
                (Some(n), bits)
            }
            None => (None, mapping),
        };
        let mut masks = [0u64; 3]; // chip, bank, row
        let mut bit = 64i32;
        for ch in bits.chars() {
            let which = match ch {
                '.' | '|' | ' ' => continue,
                'D' | 'd' if chip_start.is_some() => {
                    return Err("`D` bits and `dramid@` both place the channel".into())
                }
                'D' | 'd' => Some(0),
                'B' | 'b' => Some(1),
                'R' | 'r' => Some(2),
                'C' | 'c' | 'S' | 's' | '0' => None,
                _ => {
                    return Err(format!(
                        "`{ch}` is not an address bit (D chip, B bank, R row, C column, S burst, 0 unused; . | and spaces separate)"
                    ))
                }
            };
            bit -= 1;
            if bit < 0 {
                return Err("more than 64 address bits".into());
            }
            if let Some(w) = which {
                masks[w] |= 1 << bit;
            }
        }
        if bit != 0 {
            return Err(format!(
                "{} address bits: the mapping names all 64",
                64 - bit
            ));
        }
        Ok((chip_start, masks))
    }

    /// The channel, the rest of the address (the bank and row bits) and the address bits
    /// above the channel that the hashes fold in.
    fn split(&self, addr: u64) -> (u64, u64, u64) {
        match self.chip_start {
            Some(s) if self.gap => {
                let q = addr >> s;
                let rest = (q / self.channels) << s | (addr & ((1 << s) - 1));
                (q % self.channels, rest, q / self.channels)
            }
            _ => {
                let start = match self.chip_start {
                    Some(s) => s as i64,
                    None => -1, // GPGPU-Sim's ADDR_CHIP_S without `dramid@`
                };
                let shift = (start + (self.log2_channels + self.log2_subs) as i64).clamp(0, 63);
                (pack(self.chip_mask, addr), addr, addr >> shift)
            }
        }
    }

    /// Where `addr` goes.
    pub fn locate(&self, addr: u64) -> Location {
        let slice = self.slice(addr);
        let (_, rest, _) = self.split(addr);
        Location {
            channel: (slice / self.subs) as usize,
            slice: slice as usize,
            bank: pack(self.bank_mask, rest) as u32,
            row: pack(self.row_mask, rest),
        }
    }

    /// The slice (global sub-partition number) of `addr`: the channel and the bank's low bits,
    /// hashed as the partition indexing says.
    pub fn slice(&self, addr: u64) -> u64 {
        let (mut chip, rest, high) = self.split(addr);
        let total = self.channels * self.subs;
        let own_sub = pack(self.sub_id_mask, rest);
        match self.indexing {
            PartitionIndexing::Consecutive => chip * self.subs + own_sub,
            PartitionIndexing::Xor => {
                chip ^= high & (self.channels - 1);
                chip * self.subs + own_sub
            }
            PartitionIndexing::Ipoly => {
                let n = self.channels.next_power_of_two() * self.subs;
                ipoly(high, chip * self.subs + own_sub, n) % total
            }
            PartitionIndexing::Random => {
                let start = self.chip_start.unwrap_or(self.chip_mask.trailing_zeros());
                let line = addr.checked_shr(start.saturating_sub(self.log2_subs));
                mix(line.unwrap_or(0)) % total
            }
        }
    }

    /// `addr` without its channel and sub-partition bits (GPGPU-Sim's `partition_address`,
    /// whatever the partition indexing).
    pub fn partition_address(&self, addr: u64) -> u64 {
        match self.chip_start {
            Some(s) if self.gap => {
                let rest = ((addr >> s) / self.channels) << s | (addr & ((1 << s) - 1));
                pack(!self.sub_id_mask, rest)
            }
            _ => pack(!(self.chip_mask | self.sub_id_mask), addr),
        }
    }
}

/// The bits of `value` where `mask` is set, packed from bit 0 up (GPGPU-Sim's
/// `addrdec_packbits`).
fn pack(mask: u64, value: u64) -> u64 {
    let (mut m, mut out, mut pos) = (mask, 0u64, 0);
    while m != 0 {
        let i = m.trailing_zeros();
        out |= ((value >> i) & 1) << pos;
        pos += 1;
        m &= m - 1;
    }
    out
}

/// A deterministic stand-in for GPGPU-Sim's `RANDOM` partition indexing, which draws C's
/// `rand()` (seeded 1) for each new chunk in the order the run first touches them: a
/// well-mixed hash of the chunk number (SplitMix64's finaliser) spreads chunks as uniformly,
/// the same on every run whatever the order of first touches.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The IPOLY hash of Rau's pseudo-randomly interleaved memory (ISCA 1991), as GPGPU-Sim
/// applies it to `n` = 16, 32 or 64 sets or sub-partitions (`hashing.cc`): the index is
/// `index` plus the address bits above it taken as a polynomial over GF(2) reduced modulo an
/// irreducible polynomial of degree `log2(n)` (x^4+x+1, x^5+x^2+1, x^6+x+1), folding in the
/// lowest 13, 15 or 19 higher bits. Every power-of-two stride then visits `n` distinct
/// indexes in `n` steps.
pub fn ipoly(higher: u64, index: u64, n: u64) -> u64 {
    let (poly, folded): (u64, u32) = match n {
        16 => (0b1_0011, 13),
        32 => (0b10_0101, 15),
        64 => (0b100_0011, 19),
        _ => unreachable!("IPOLY over {n}: the configuration check allows 16, 32 or 64"),
    };
    // x^(degree + j) mod poly for each higher bit j, computed by shifting and reducing.
    let mut residue = poly & (n - 1); // x^degree mod poly
    let mut out = index & (n - 1);
    for j in 0..folded {
        if (higher >> j) & 1 == 1 {
            out ^= residue;
        }
        residue <<= 1;
        if residue & n != 0 {
            residue ^= poly;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;

    fn dram(channels: u32, subs: u32, indexing: PartitionIndexing) -> DramConfig {
        let mut d = GpuConfig::preset("gtx480").unwrap().dram;
        d.channels = channels;
        d.sub_partitions = subs;
        d.partition_indexing = indexing;
        d
    }

    const PASCAL: &str =
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS";

    /// IPOLY is linear over GF(2) and spreads every power-of-two stride over all `n` indexes.
    #[test]
    fn ipoly_spreads_every_power_of_two_stride() {
        for n in [16u64, 32, 64] {
            for stride_log2 in 0..12 {
                let idx: std::collections::BTreeSet<u64> = (0..n)
                    .map(|k| {
                        let a = k << stride_log2;
                        ipoly(a >> n.trailing_zeros(), a & (n - 1), n)
                    })
                    .collect();
                assert_eq!(idx.len() as u64, n, "n {n}, stride 2^{stride_log2}");
            }
            let (a, b) = (0x1234u64, 0x0f0fu64);
            assert_eq!(ipoly(a ^ b, 0, n), ipoly(a, 0, n) ^ ipoly(b, 0, n));
        }
    }

    /// With 12 channels (`gap`) the channel is the 256 B chunk modulo 12, the slice's low bit
    /// is bit 7 (the lowest `B`), and the partition address drops both: the model's own
    /// chunked mapping for the same geometry agrees on channel, slice and partition address.
    #[test]
    fn a_gap_mapping_matches_the_chunked_one_on_channels_and_slices() {
        let d = dram(12, 2, PartitionIndexing::Consecutive);
        let dec = AddressMap::new(
            &DramConfig {
                address_mapping: Some(PASCAL.into()),
                ..d.clone()
            },
            128,
        )
        .unwrap();
        let own = AddressMap::new(&d, 128).unwrap();
        for addr in (0..1u64 << 22).step_by(32 * 7) {
            let (a, b) = (dec.locate(addr), own.locate(addr));
            assert_eq!((a.channel, a.slice), (b.channel, b.slice), "{addr:#x}");
            assert_eq!(
                dec.partition_address(addr),
                own.partition_address(addr),
                "{addr:#x}"
            );
        }
    }

    /// With 32 channels the 5 channel bits are inserted at bit 8 and the bank and row bits
    /// above move up by 5; no two addresses share channel, slice, bank, row and column.
    #[test]
    fn a_power_of_two_mapping_inserts_the_channel_bits() {
        let d = DramConfig {
            address_mapping: Some(PASCAL.into()),
            ..dram(32, 2, PartitionIndexing::Consecutive)
        };
        let m = AddressMap::new(&d, 128).unwrap();
        let l = m.locate(0x1f << 8);
        assert_eq!((l.channel, l.slice, l.bank, l.row), (31, 62, 0, 0));
        assert_eq!(m.locate(1 << 7).slice, 1, "bit 7 is the sub-partition");
        // Bit 12 is the second bank bit; bit 15 the first row bit, before the insertion.
        assert_eq!(m.locate(1 << (12 + 5)).bank, 2);
        assert_eq!(m.locate(1 << (15 + 5)).row, 1);
        let mut seen = std::collections::HashSet::new();
        for line in 0..1u64 << 14 {
            let addr = line << 7;
            let l = m.locate(addr);
            assert!(seen.insert((l.slice, l.bank, l.row, m.partition_address(addr))));
        }
    }

    /// IPOLY and the random stand-in spread a 2^k stride, which the consecutive indexing
    /// sends to one channel, over (nearly) every slice.
    #[test]
    fn hashed_partition_indexing_spreads_a_power_of_two_stride() {
        for (channels, indexing, at_least) in [
            (32, PartitionIndexing::Consecutive, 1),
            (32, PartitionIndexing::Xor, 8),
            (32, PartitionIndexing::Ipoly, 64),
            (12, PartitionIndexing::Random, 20),
        ] {
            let d = DramConfig {
                address_mapping: Some(PASCAL.into()),
                ..dram(channels, 2, indexing)
            };
            let m = AddressMap::new(&d, 128).unwrap();
            let slices: std::collections::BTreeSet<usize> =
                (0..64u64).map(|k| m.slice(k << 16)).collect();
            assert!(slices.len() >= at_least, "{indexing:?}: {slices:?}");
            assert!(slices.len() <= if at_least == 1 { 1 } else { 64 });
        }
    }

    /// What GPGPU-Sim refuses (or would decode wrongly) is an error naming the problem.
    #[test]
    fn a_bad_mapping_is_an_error() {
        let d = dram(12, 2, PartitionIndexing::Consecutive);
        let err = |m: &str, d: &DramConfig| Decoder::new(m, d).unwrap_err();
        assert!(err("dramid@8;0000", &d).contains("4 address bits"));
        assert!(err("dramid@8;RRRRXRRR", &d).contains("`X` is not an address bit"));
        assert!(err(&PASCAL.replace("dramid@8;", "dramid@8"), &d).contains("`;`"));
        assert!(err(
            &PASCAL
                .replacen("0000RRRR", "DDDDRRRR", 1)
                .replace("dramid@8;", ""),
            &d
        )
        .contains("power-of-two"));
        let xor = dram(12, 2, PartitionIndexing::Xor);
        assert!(err(PASCAL, &xor).contains("XOR"));
        let ipoly = dram(3, 2, PartitionIndexing::Ipoly);
        assert!(
            err(PASCAL, &ipoly).contains("not 8"),
            "{}",
            err(PASCAL, &ipoly)
        );
    }
}
