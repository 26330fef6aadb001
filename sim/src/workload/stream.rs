//! Thread blocks too large to hold decoded ([`StreamedBlock`]): each warp's instructions are
//! read again from the trace a chunk at a time as the warp runs, and dropped once issued, so a
//! block's memory is bounded by its warps' windows whatever its size on disk.
//!
//! Memory per warp: the chunk being issued, the next one, and any chunk a load still in flight
//! points into (its destination registers are in the chunk's pool) — about
//! `2 * CHUNK * (24 + 2 * registers + 8 * addresses)` bytes. No file stays open between
//! reads: a refill opens the trace, seeks to the warp's next line, reads a chunk and closes it
//! (so any number of streamed blocks can be resident).

use super::accelsim::{BlockIndex, KernelTrace, TraceInst};
use super::compressed::PlainTrace;
use super::kernel::{Addrs, BlockInsts, WarpInst, WorkloadError};
use super::sass::OpKind;
use super::Dim3;
use std::path::Path;
use std::sync::Arc;

/// Instructions read at a time per warp (default).
pub const CHUNK: usize = 1024;

/// One warp's window of decoded instructions.
#[derive(Debug)]
struct WarpWindow {
    /// Instructions in the warp.
    len: u32,
    /// Position of the next instruction line to read, and how many were read.
    next_at: (u64, usize),
    read: u32,
    /// Index of `insts[0]` in the warp.
    first: u32,
    insts: Vec<WarpInst>,
    /// Register and address pools; `WarpInst::reg_start`/`addr_start` count from the warp's
    /// first instruction modulo 2^32 (only differences within the window are used), `regs[0]`
    /// is entry `regs_base`.
    regs: Vec<u16>,
    regs_base: u32,
    addrs: Vec<u64>,
    addrs_base: u32,
}

/// A thread block whose warps stream from their trace (see the module documentation).
pub struct StreamedBlock {
    id: Dim3,
    plain: Arc<PlainTrace>,
    warps: Vec<WarpWindow>,
    /// Instructions read at a time per warp.
    chunk: u32,
}

impl std::fmt::Debug for StreamedBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedBlock")
            .field("id", &self.id)
            .field("warps", &self.warps)
            .finish()
    }
}

fn too_long(path: &Path, w: usize) -> WorkloadError {
    WorkloadError::Invalid(format!(
        "{}: warp {w} has more than 2^32 - 1 instructions, more than the model counts",
        path.display()
    ))
}

impl StreamedBlock {
    /// The block of `index` in the trace text `plain`, read `chunk` instructions (at least 1)
    /// at a time per warp.
    pub fn open(
        plain: &Arc<PlainTrace>,
        index: &BlockIndex,
        chunk: usize,
    ) -> Result<Self, WorkloadError> {
        let path = plain.name();
        let warps = index
            .warps
            .iter()
            .enumerate()
            .map(|(w, e)| {
                Ok(WarpWindow {
                    len: u32::try_from(e.insts).map_err(|_| too_long(path, w))?,
                    next_at: e.at,
                    read: 0,
                    first: 0,
                    insts: vec![],
                    regs: vec![],
                    regs_base: 0,
                    addrs: vec![],
                    addrs_base: 0,
                })
            })
            .collect::<Result<_, WorkloadError>>()?;
        Ok(Self {
            id: index.id,
            plain: plain.clone(),
            warps,
            chunk: chunk.clamp(1, u32::MAX as usize) as u32,
        })
    }

    /// Block index in the grid.
    pub fn id(&self) -> Dim3 {
        self.id
    }

    /// Warps of the block.
    pub fn warps(&self) -> usize {
        self.warps.len()
    }

    /// Instructions of warp `w`.
    pub fn len(&self, w: usize) -> u32 {
        self.warps[w].len
    }

    /// Instruction `i` of warp `w`; `None` past the end. Panics if `i` was dropped or not read
    /// yet ([`Self::ensure`]).
    pub fn get(&self, w: usize, i: u32) -> Option<WarpInst> {
        let ww = &self.warps[w];
        if i >= ww.len {
            return None;
        }
        assert!(
            i >= ww.first && i < ww.read,
            "instruction {i} of warp {w} is not in its window {}..{}",
            ww.first,
            ww.read
        );
        Some(ww.insts[(i - ww.first) as usize])
    }

    /// The destination then source registers of `inst` (an instruction of warp `w`).
    pub fn operands(&self, w: usize, inst: &WarpInst) -> &[u16] {
        let ww = &self.warps[w];
        let s = inst.reg_start.wrapping_sub(ww.regs_base) as usize;
        &ww.regs[s..s + inst.ndst as usize + inst.nsrc as usize]
    }

    /// Per-lane addresses of `inst` (an instruction of warp `w`).
    pub fn addrs(&self, w: usize, inst: &WarpInst) -> Addrs<'_> {
        let ww = &self.warps[w];
        Addrs::at(
            &ww.addrs,
            inst.addr_start.wrapping_sub(ww.addrs_base) as usize,
            inst,
        )
    }

    /// Reads warp `w`'s instructions up to (not including) `end`, a chunk at a time.
    pub fn ensure(&mut self, w: usize, end: u32) -> Result<(), WorkloadError> {
        if self.warps[w].read >= end.min(self.warps[w].len) {
            return Ok(());
        }
        // A refill reads one chunk of lines after a seek: a small buffer.
        let mut trace = KernelTrace::open_plain(&self.plain, 16 << 10)?;
        while self.warps[w].read < end.min(self.warps[w].len) {
            let ww = &mut self.warps[w];
            let count = (ww.len - ww.read).min(self.chunk) as usize;
            let what = (w, ww.read as usize, ww.len as usize);
            let mut push = |i: &TraceInst, kind: OpKind| {
                let width = u8::try_from(i.mem_width).expect("the reader keeps widths below 256");
                let addr_start = ww.addrs_base.wrapping_add(ww.addrs.len() as u32);
                let strided = width > 0 && Addrs::store(&mut ww.addrs, &i.addrs);
                ww.insts.push(WarpInst {
                    pc: u32::try_from(i.pc).expect("the reader keeps PCs below 2^32"),
                    mask: i.mask,
                    class: kind.class,
                    cache: kind.cache,
                    width,
                    ndst: i.dsts.len() as u8,
                    nsrc: i.srcs.len() as u8,
                    reg_start: ww.regs_base.wrapping_add(ww.regs.len() as u32),
                    addr_start,
                    strided,
                });
                ww.regs.extend_from_slice(&i.dsts);
                ww.regs.extend_from_slice(&i.srcs);
            };
            let next = trace.read_insts(ww.next_at, what, count, &mut push)?;
            ww.next_at = next;
            ww.read += count as u32;
        }
        Ok(())
    }

    /// Drops warp `w`'s instructions before `keep_from` when a whole chunk of them can go.
    pub fn trim(&mut self, w: usize, keep_from: u32) {
        let ww = &mut self.warps[w];
        if keep_from < ww.first.saturating_add(self.chunk) {
            return;
        }
        let drop = (keep_from - ww.first) as usize;
        let (regs, addrs) = match ww.insts.get(drop) {
            Some(i) => (
                i.reg_start.wrapping_sub(ww.regs_base),
                i.addr_start.wrapping_sub(ww.addrs_base),
            ),
            None => (ww.regs.len() as u32, ww.addrs.len() as u32),
        };
        ww.insts.drain(..drop);
        ww.regs.drain(..regs as usize);
        ww.addrs.drain(..addrs as usize);
        ww.first = keep_from;
        ww.regs_base = ww.regs_base.wrapping_add(regs);
        ww.addrs_base = ww.addrs_base.wrapping_add(addrs);
    }
}

/// The instructions of a running thread block: decoded whole, or streamed from the trace.
#[derive(Debug)]
pub enum RunBlock {
    /// Every instruction in memory.
    Whole(BlockInsts),
    /// Warps read a chunk at a time.
    Streamed(Box<StreamedBlock>),
}

impl Default for RunBlock {
    fn default() -> Self {
        RunBlock::Whole(BlockInsts::default())
    }
}

impl RunBlock {
    /// Block index in the grid.
    pub fn id(&self) -> Dim3 {
        match self {
            RunBlock::Whole(b) => b.id,
            RunBlock::Streamed(b) => b.id(),
        }
    }

    /// Warps of the block.
    pub fn warps(&self) -> usize {
        match self {
            RunBlock::Whole(b) => b.warps.len(),
            RunBlock::Streamed(b) => b.warps(),
        }
    }

    /// Instructions of warp `w`.
    pub fn len(&self, w: usize) -> u32 {
        match self {
            RunBlock::Whole(b) => b.warps[w].len() as u32,
            RunBlock::Streamed(b) => b.len(w),
        }
    }

    /// Instruction `i` of warp `w`, `None` past its end (streamed: `i` must be in the window
    /// that [`Self::ensure`] read and [`Self::trim`] kept).
    pub fn get(&self, w: usize, i: u32) -> Option<WarpInst> {
        match self {
            RunBlock::Whole(b) => b.warps[w].get(i as usize).copied(),
            RunBlock::Streamed(b) => b.get(w, i),
        }
    }

    /// Asks the host CPU to bring instruction `i` of warp `w` into its cache, when it is held
    /// (a hint: nothing else changes).
    pub fn prefetch(&self, w: usize, i: u32) {
        let held = match self {
            RunBlock::Whole(b) => b.warps[w].get(i as usize),
            RunBlock::Streamed(b) => {
                let ww = &b.warps[w];
                i.checked_sub(ww.first)
                    .and_then(|k| ww.insts.get(k as usize))
            }
        };
        if let Some(inst) = held {
            crate::host::prefetch(inst);
        }
    }

    /// Instruction `i` of warp `w` (which must exist).
    pub fn inst(&self, w: usize, i: u32) -> WarpInst {
        self.get(w, i).expect("an instruction of the warp")
    }

    /// The destination then source registers of `inst`, an instruction of warp `w`.
    pub fn operands(&self, w: usize, inst: &WarpInst) -> &[u16] {
        match self {
            RunBlock::Whole(b) => {
                let s = inst.reg_start as usize;
                &b.regs[s..s + inst.ndst as usize + inst.nsrc as usize]
            }
            RunBlock::Streamed(b) => b.operands(w, inst),
        }
    }

    /// The destination registers of `inst`, an instruction of warp `w`.
    pub fn dsts(&self, w: usize, inst: &WarpInst) -> &[u16] {
        &self.operands(w, inst)[..inst.ndst as usize]
    }

    /// Per-lane addresses of `inst`, an instruction of warp `w`.
    pub fn addrs(&self, w: usize, inst: &WarpInst) -> Addrs<'_> {
        match self {
            RunBlock::Whole(b) => b.addrs(inst),
            RunBlock::Streamed(b) => b.addrs(w, inst),
        }
    }

    /// Makes warp `w`'s instructions before `end` readable (reads the trace when streamed).
    pub fn ensure(&mut self, w: usize, end: u32) -> Result<(), WorkloadError> {
        match self {
            RunBlock::Whole(_) => Ok(()),
            RunBlock::Streamed(b) => b.ensure(w, end),
        }
    }

    /// Lets warp `w`'s instructions before `keep_from` go (streamed blocks).
    pub fn trim(&mut self, w: usize, keep_from: u32) {
        if let RunBlock::Streamed(b) = self {
            b.trim(w, keep_from)
        }
    }

    /// Whether the block streams (its instructions can be dropped once used).
    pub fn streamed(&self) -> bool {
        matches!(self, RunBlock::Streamed(_))
    }
}

#[cfg(test)]
mod tests {
    use crate::workload::kernel::{KernelSource, TraceKernel};

    fn trace(dir: &std::path::Path) -> std::path::PathBuf {
        let p = dir.join("kernel-1.traceg");
        let mut t = String::from(
            "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n\
             -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
             -accelsim tracer version = 4\n-enable lineinfo = 0\n\n#BEGIN_TB\n\
             thread block = 0,0,0\nwarp = 0\ninsts = 40\n",
        );
        for k in 0..40 {
            t.push_str(&format!("{:04x} ffffffff 1 R1 IADD 2 R2 R3 0\n", k * 8));
        }
        t.push_str("#END_TB\n");
        std::fs::write(&p, t).unwrap();
        p
    }

    #[test]
    fn a_streamed_warp_reads_its_chunks_and_drops_what_it_used() {
        let dir = tempfile::tempdir().unwrap();
        let p = trace(dir.path());
        let mut k = TraceKernel::open(&p).unwrap().with_streaming(0, 8);
        let mut b = k.run_block(0).unwrap();
        assert!(b.streamed());
        assert_eq!((b.warps(), b.len(0)), (1, 40));
        b.ensure(0, 1).unwrap();
        assert_eq!(b.inst(0, 0).pc, 0);
        b.ensure(0, 20).unwrap();
        assert_eq!(b.inst(0, 19).pc, 19 * 8);
        assert_eq!(b.operands(0, &b.inst(0, 19)), &[1, 2, 3]);
        // Less than a chunk used: nothing goes; then the first 16 go.
        b.trim(0, 5);
        assert_eq!(b.inst(0, 0).pc, 0);
        b.trim(0, 16);
        assert_eq!(b.inst(0, 16).pc, 16 * 8);
        assert_eq!(b.operands(0, &b.inst(0, 17)), &[1, 2, 3]);
        b.ensure(0, 100).unwrap();
        assert_eq!(b.get(0, 39).map(|i| i.pc), Some(39 * 8));
        assert_eq!(b.get(0, 40), None);
    }

    #[test]
    fn a_trace_changed_under_a_streamed_block_is_an_error_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = trace(dir.path());
        let mut k = TraceKernel::open(&p).unwrap().with_streaming(0, 8);
        let mut b = k.run_block(0).unwrap();
        b.ensure(0, 8).unwrap();
        // Instruction 9 (line 25) gets a source count its line does not have, same length.
        let text = std::fs::read_to_string(&p).unwrap();
        let bad = text.replacen(
            "0048 ffffffff 1 R1 IADD 2 R2 R3 0",
            "0048 ffffffff 1 R1 IADD 9 R2 R3 0",
            1,
        );
        assert_ne!(bad, text);
        std::fs::write(&p, bad).unwrap();
        let e = b.ensure(0, 16).unwrap_err().to_string();
        assert!(e.contains("kernel-1.traceg:25:"), "{e}");
    }
}
