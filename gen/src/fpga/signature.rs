//! The self-test's stimulus and signature, computed from the golden model: what the wrapper's
//! ROM holds and the signature its MISR must reach.
//!
//! # Bit layout
//! A cycle's inputs (or outputs) are the module's flattened ports in manifest order (the golden
//! port bundle's order, without `clock` and `reset`), each least significant bit first, laid end
//! to end: port `k` occupies bits `off_k .. off_k + width_k`, `off_0 = 0`. The vector is cut into
//! 32-bit chunks, chunk `j` holding bits `32j .. 32j + 31` (the last one zero-padded).
//!
//! # Signature (32-bit MISR)
//! Each cycle `t = 0 .. N-1` the outputs are folded into one word,
//! `fold = XOR over j of chunk[j].rotate_left(j % 32)`, and absorbed:
//! `sig = (sig << 1) ^ (sig[31] ? 0x04C1_1DB7 : 0) ^ fold`, from `sig = 0xFFFF_FFFF`. The map
//! from one state to the next is invertible for a fixed `fold`, so an error confined to one
//! cycle's outputs always changes the final signature.

use gpusim::block::{Block, BlockKind, PortBundle, PortSpec, Stimulus};
use gpusim::blocks::{with_kind, CatalogError, KindFn};

/// The MISR's feedback polynomial (CRC-32's, without the reflection).
pub const MISR_POLY: u32 = 0x04C1_1DB7;
/// The MISR's initial state.
pub const MISR_SEED: u32 = 0xFFFF_FFFF;

/// One golden self-test run: the ROM rows and the signature the RTL must reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelftestRun {
    /// Per cycle, the inputs as 32-bit chunks (bit layout in the module documentation).
    pub rows: Vec<Vec<u32>>,
    /// The MISR after the last cycle.
    pub signature: u32,
    /// Total input bits per cycle.
    pub in_bits: u32,
    /// Total output bits per cycle.
    pub out_bits: u32,
    /// Cycles in which the block did something (`BlockKind::busy`): a stimulus that never
    /// exercises the block would give a signature that proves little.
    pub active_cycles: u64,
}

pub use gpusim::block::pack_bits as pack;

/// One word from a cycle's output chunks.
pub fn fold(chunks: &[u32]) -> u32 {
    chunks
        .iter()
        .enumerate()
        .fold(0, |f, (j, c)| f ^ c.rotate_left(j as u32 % 32))
}

/// The MISR after absorbing `fold` in state `sig`.
pub fn misr_step(sig: u32, fold: u32) -> u32 {
    let feedback = if sig >> 31 == 1 { MISR_POLY } else { 0 };
    (sig << 1) ^ feedback ^ fold
}

/// Runs `block` x `policy` x `preset`'s golden model for `cycles` cycles on its own
/// constrained-random stimulus (seed `seed`; the stimulus reads the previous outputs, so the
/// rows are the inputs this run produced) and returns the rows and the signature.
pub fn golden_run(
    block: &str,
    policy: &str,
    preset: &str,
    cycles: u32,
    seed: u64,
) -> Result<SelftestRun, CatalogError> {
    struct Run<'r> {
        policy: &'r str,
        preset: &'r str,
        cycles: u32,
        seed: u64,
    }
    impl KindFn for Run<'_> {
        type Output = SelftestRun;
        fn call<K: BlockKind>(self) -> SelftestRun {
            let p = K::params(self.policy, self.preset);
            let (ins, outs) = (K::In::specs(&p), K::Out::specs(&p));
            let words = |s: &[PortSpec]| s.iter().map(|s| s.width.div_ceil(64) as usize).sum();
            let (mut iw, mut ow) = (vec![0u64; words(&ins)], vec![0u64; words(&outs)]);
            let mut g = K::golden(&p);
            let mut stim = K::stimulus(&p, self.seed);
            let mut prev = None;
            let mut run = SelftestRun {
                rows: Vec::with_capacity(self.cycles as usize),
                signature: MISR_SEED,
                in_bits: ins.iter().map(|s| s.width).sum(),
                out_bits: outs.iter().map(|s| s.width).sum(),
                active_cycles: 0,
            };
            for _ in 0..self.cycles {
                let i = stim.next(prev.as_ref());
                let o = g.step(&i);
                i.to_words(&p, &mut iw);
                o.to_words(&p, &mut ow);
                run.rows.push(pack(&ins, &iw));
                run.signature = misr_step(run.signature, fold(&pack(&outs, &ow)));
                run.active_cycles += K::busy(&o) as u64;
                prev = Some(o);
            }
            run
        }
    }
    with_kind(
        block,
        Run {
            policy,
            preset,
            cycles,
            seed,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, width: u32) -> PortSpec {
        PortSpec::new(name, width)
    }

    #[test]
    fn ports_are_laid_end_to_end_lsb_first() {
        // a: 3 bits = 0b101, b: 70 bits = bit 0 and bit 69 set, c: 1 bit = 1.
        let specs = [spec("a", 3), spec("b", 70), spec("c", 1)];
        let words = [0b101, 1, 1 << 5, 1];
        let chunks = pack(&specs, &words);
        assert_eq!(chunks.len(), 3, "74 bits");
        assert_eq!(chunks[0], 0b1101);
        assert_eq!(chunks[1], 0);
        // b's bit 69 is bit 72 of the vector: chunk 2 bit 8; c is bit 73.
        assert_eq!(chunks[2], 1 << 8 | 1 << 9);
    }

    #[test]
    fn fold_rotates_each_chunk_by_its_index() {
        assert_eq!(fold(&[1, 1, 1]), 1 ^ 2 ^ 4);
        let mut v = vec![0u32; 33];
        v[32] = 1;
        assert_eq!(fold(&v), 1, "chunk 32 rotates by 0 again");
    }

    #[test]
    fn one_flipped_output_bit_changes_the_signature() {
        let clean: Vec<u32> = (0..50u32).map(|t| t.wrapping_mul(0x9e37_79b9)).collect();
        let sig = |f: &[u32]| f.iter().fold(MISR_SEED, |s, &x| misr_step(s, x));
        for t in 0..clean.len() {
            let mut bad = clean.clone();
            bad[t] ^= 1;
            assert_ne!(sig(&bad), sig(&clean), "flip at cycle {t}");
        }
        assert_eq!(misr_step(0x8000_0000, 0), MISR_POLY);
    }

    #[test]
    fn the_golden_run_is_deterministic_and_exercises_the_block() {
        let a = golden_run("warp_arbiter", "two_level", "proto", 256, 1).unwrap();
        assert_eq!(
            a,
            golden_run("warp_arbiter", "two_level", "proto", 256, 1).unwrap()
        );
        assert_ne!(
            a.signature,
            golden_run("warp_arbiter", "two_level", "proto", 256, 2)
                .unwrap()
                .signature
        );
        assert_eq!((a.in_bits, a.out_bits), (32, 12));
        assert_eq!(a.rows.len(), 256);
        assert!(a.active_cycles > 50, "{} active cycles", a.active_cycles);
    }
}
