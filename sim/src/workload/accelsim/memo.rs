//! Instruction lines decoded once: the same line (byte for byte) decodes to the same
//! instruction, and in a trace most lines without addresses repeat (every warp of every block
//! runs the same code with the same mask), so their decoded form is kept in a small
//! direct-mapped table keyed by the line's bytes. A line is looked up by a hash of its bytes
//! and compared whole, so a hit gives exactly what parsing the line gives; only lines that
//! parsed without error are kept, and of those with addresses only the ones whose addresses
//! step evenly from lane to lane (a base and a stride, as broadcast and coalesced loads
//! are written), which are kept as their first address and step.

use super::{TraceInst, MAX_REGS};

/// Entries of the table (a power of two).
const ENTRIES: usize = 1024;

/// Lines longer than this are not kept (the common ones are 20 to 60 bytes).
const MAX_KEPT_LINE: usize = 96;

/// One decoded line.
#[derive(Clone, Default)]
struct Entry {
    line: Vec<u8>,
    pc: u64,
    mask: u32,
    opcode: u16,
    regs: [u16; 2 * MAX_REGS],
    ndst: u8,
    nsrc: u8,
    mem_width: u32,
    /// The addresses: `naddr` of them, the first `addr0`, each `step` above the one before
    /// (modulo 2^64).
    addr0: u64,
    step: u64,
    naddr: u8,
}

/// The first address and the step of `addrs` when they step evenly (modulo 2^64).
fn even_steps(addrs: &[u64]) -> Option<(u64, u64)> {
    let (first, second) = match addrs {
        [] => (0, 0),
        [a] => (*a, *a),
        [a, b, ..] => (*a, *b),
    };
    let step = second.wrapping_sub(first);
    let mut next = first;
    for a in addrs {
        if *a != next {
            return None;
        }
        next = next.wrapping_add(step);
    }
    Some((first, step))
}

/// The table of decoded lines (allocated at the first line kept: a reader that reads a few
/// lines, as a streamed warp's refill, does not pay for it).
#[derive(Default)]
pub(super) struct LineMemo {
    entries: Vec<Entry>,
}

/// A hash of `line`, eight bytes at a time (FxHash's multiply and rotate).
#[inline]
fn hash(line: &[u8]) -> usize {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = line.len() as u64;
    let mut words = line.chunks_exact(8);
    for w in &mut words {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    (h >> 32) as usize
}

impl LineMemo {
    /// Fills `out` from the entry of `line` and returns true, or returns false when `line` is
    /// not kept.
    #[inline]
    pub(super) fn get(&self, line: &[u8], out: &mut TraceInst) -> bool {
        if line.is_empty() || line.len() > MAX_KEPT_LINE || self.entries.is_empty() {
            return false;
        }
        let e = &self.entries[hash(line) & (ENTRIES - 1)];
        if e.line != line {
            return false;
        }
        out.pc = e.pc;
        out.mask = e.mask;
        out.opcode = e.opcode;
        out.mem_width = e.mem_width;
        out.dsts.clear();
        out.dsts.extend_from_slice(&e.regs[..e.ndst as usize]);
        out.srcs.clear();
        out.srcs
            .extend_from_slice(&e.regs[MAX_REGS..MAX_REGS + e.nsrc as usize]);
        out.addrs.clear();
        let mut a = e.addr0;
        for _ in 0..e.naddr {
            out.addrs.push(a);
            a = a.wrapping_add(e.step);
        }
        true
    }

    /// Keeps `inst`, parsed from `line` without error, unless its addresses are uneven.
    pub(super) fn put(&mut self, line: &[u8], inst: &TraceInst) {
        if line.len() > MAX_KEPT_LINE {
            return;
        }
        let Some((addr0, step)) = even_steps(&inst.addrs) else {
            return;
        };
        if self.entries.is_empty() {
            self.entries = vec![Entry::default(); ENTRIES];
        }
        let e = &mut self.entries[hash(line) & (ENTRIES - 1)];
        e.line.clear();
        e.line.extend_from_slice(line);
        (e.pc, e.mask, e.opcode) = (inst.pc, inst.mask, inst.opcode);
        e.regs[..inst.dsts.len()].copy_from_slice(&inst.dsts);
        e.regs[MAX_REGS..MAX_REGS + inst.srcs.len()].copy_from_slice(&inst.srcs);
        (e.ndst, e.nsrc) = (inst.dsts.len() as u8, inst.srcs.len() as u8);
        (e.mem_width, e.addr0, e.step, e.naddr) =
            (inst.mem_width, addr0, step, inst.addrs.len() as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(pc: u64, dsts: &[u16], srcs: &[u16], addrs: &[u64]) -> TraceInst {
        TraceInst {
            pc,
            mask: 0xffff_ffff,
            opcode: 3,
            dsts: dsts.to_vec(),
            srcs: srcs.to_vec(),
            mem_width: if addrs.is_empty() { 0 } else { 4 },
            addrs: addrs.to_vec(),
        }
    }

    #[test]
    fn a_kept_line_gives_back_what_was_put_and_only_for_the_same_bytes() {
        let mut m = LineMemo::default();
        let mut out = inst(9, &[1, 2, 3], &[4], &[7, 9]);
        let a = b"0028 ffffffff 1 R5 FFMA 2 R4 R5 0";
        assert!(!m.get(a, &mut out), "empty table");
        m.put(b"0030 ffffffff 0 BRA 0 0", &inst(0x30, &[], &[], &[]));
        assert!(
            !m.get(b"", &mut out),
            "an empty line matches no unused entry"
        );
        m.put(a, &inst(0x28, &[5], &[4, 5], &[]));
        assert!(m.get(a, &mut out));
        assert_eq!(out, inst(0x28, &[5], &[4, 5], &[]));
        assert!(!m.get(b"0028 ffffffff 1 R5 FFMA 2 R4 R6 0", &mut out));
        // Addresses that step evenly (down, wrapping, or all the same) are kept; others not.
        for (k, addrs) in [
            &[0x100, 0xfc, 0xf8][..],
            &[u64::MAX - 1, 0, 2],
            &[0x40; 32],
            &[0x40],
        ]
        .into_iter()
        .enumerate()
        {
            let l = format!("0030 ffffffff 1 R5 LDG.E 1 R4 4 1 0x{k} 0");
            m.put(l.as_bytes(), &inst(0x30, &[5], &[4], addrs));
            assert!(m.get(l.as_bytes(), &mut out), "{addrs:?}");
            assert_eq!(out, inst(0x30, &[5], &[4], addrs));
        }
        let l = b"0030 ffffffff 1 R5 LDG.E 1 R4 4 0 0x100 0x104 0x10c";
        m.put(l, &inst(0x30, &[5], &[4], &[0x100, 0x104, 0x10c]));
        assert!(!m.get(l, &mut out));
        // A line of the same slot replaces the one there.
        let full = [MAX_REGS as u16; MAX_REGS];
        for k in 0..4 * ENTRIES {
            let line = format!("{k:04x} ffffffff 0 BRA 0 0");
            m.put(line.as_bytes(), &inst(k as u64, &full, &full, &[]));
            assert!(m.get(line.as_bytes(), &mut out));
            assert_eq!(out, inst(k as u64, &full, &full, &[]));
        }
    }
}
