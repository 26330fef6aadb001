//! An Accel-Sim kernel trace as a [`KernelSource`]: thread blocks decoded as the trace is read,
//! on a second thread ahead of the simulation ([`super::read_ahead`]), found again by seeking
//! when asked for out of file order, and streamed per warp when too large to hold.

use super::accelsim::{self, BlockSet, KernelTrace};
use super::compressed::PlainTrace;
use super::kernel::{
    Arrival, BlockInsts, KernelInfo, KernelSource, Launch, MemAccess, WorkloadError, WorkloadSource,
};
use super::read_ahead::{Ahead, ReadAhead};
use super::sass::{OpClass, OpcodeTable};
use super::static_code::KernelCode;
use super::stream::{RunBlock, StreamedBlock};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Blocks whose decoded instructions ([`BlockInsts::bytes`]) would take more than this run
/// streamed, a warp chunk at a time ([`KernelSource::run_block`]; bytes). Smaller blocks are
/// decoded whole.
pub const KEEP_BLOCK_BYTES: u64 = 2 << 20;

/// Traces of at least this many bytes are read ahead on a second thread unless told otherwise
/// ([`TraceKernel::with_read_ahead`]). Below it, reading is a small part of a run (and most
/// blocks are read before the first cycle, for the first wave), so a thread only adds its
/// hand-over: measured on 2 cores, read ahead made `hs` medium (15 MB) 10% slower and
/// `spmv` medium (17 MB) no faster, and `mm` medium (400 MB) 15% faster.
pub const READ_AHEAD_MIN_BYTES: u64 = 64 << 20;

/// Decoded bytes of the blocks read ahead but not asked for yet that are kept (above it, such
/// a block is dropped and read again when asked for).
pub const PARKED_BYTES: u64 = 16 << 20;

/// An Accel-Sim kernel trace as a [`KernelSource`]: blocks are read as the trace streams, on
/// a second thread ahead of the requests ([`super::read_ahead`]) when the trace has at least
/// [`READ_AHEAD_MIN_BYTES`] (or as [`TraceKernel::with_read_ahead`] says); the byte offset of every block passed on the
/// way is kept, so a block asked for out of file order is found by seeking (not by loading the
/// file), and blocks read ahead but not asked for yet are kept up to [`PARKED_BYTES`]. Blocks
/// larger than [`KEEP_BLOCK_BYTES`] decoded are read for [`KernelSource::run_block`] without
/// keeping their instructions, then streamed per warp.
pub struct TraceKernel {
    /// The trace text (a compressed trace's decoded copy lives as long as this).
    plain: Arc<PlainTrace>,
    /// Reads the blocks asked for again (by seeking), and reads ahead without the thread.
    trace: KernelTrace,
    info: KernelInfo,
    /// Opcode classes of what was read here and of what the thread read.
    opcodes: OpcodeTable,
    ahead_opcodes: OpcodeTable,
    /// Grid index -> (byte offset, lines before it) of every block read so far.
    index: HashMap<u64, (u64, usize)>,
    /// The blocks read so far: each once, all of the grid by the end (the checks of every
    /// reader, [`KernelTrace::read_every_block`]).
    blocks: BlockSet,
    /// How far the trace has been read: the position after the last block read.
    frontier: (u64, usize),
    /// The reading thread (started at the first block read ahead), whether to start it, and
    /// whether it has ended (the end of the file, or an error, which is then read again here).
    ahead: Option<ReadAhead>,
    read_ahead: bool,
    ahead_done: bool,
    /// Blocks read ahead, not asked for yet, and their decoded bytes in total.
    parked: HashMap<u64, accelsim::BlockRead>,
    parked_bytes: u64,
    /// At most this many bytes parked ([`PARKED_BYTES`]).
    parked_limit: u64,
    /// Blocks of more than this decoded stream when run (bytes), `chunk` instructions at a
    /// time.
    keep_bytes: u64,
    chunk: usize,
}

/// Bytes a block read ahead takes while it waits to be asked for.
fn parked_size(read: &accelsim::BlockRead) -> u64 {
    match read {
        // The instructions and their opcode ids (2 bytes each).
        accelsim::BlockRead::Whole(b) => {
            b.insts.bytes() + 2 * b.opcodes.iter().map(Vec::len).sum::<usize>() as u64
        }
        accelsim::BlockRead::Indexed(ix) => {
            (ix.warps.len() * std::mem::size_of::<accelsim::WarpExtent>()) as u64
        }
    }
}

impl TraceKernel {
    /// Opens `kernel-N.traceg` (or its xz form, [`super::compressed`]).
    pub fn open(path: &Path) -> Result<Self, WorkloadError> {
        let trace = KernelTrace::open(path)?;
        let read_ahead = trace.plain().at_least(READ_AHEAD_MIN_BYTES);
        let h = &trace.header;
        let info = KernelInfo {
            name: h.name.clone(),
            grid: h.grid,
            block: h.block,
            regs_per_thread: h.nregs,
            shmem_bytes: h.shmem_bytes,
            binary_version: h.binary_version,
        };
        Ok(Self {
            plain: trace.plain().clone(),
            blocks: BlockSet::new(path, h.grid),
            frontier: trace.position(),
            trace,
            info,
            opcodes: OpcodeTable::default(),
            ahead_opcodes: OpcodeTable::default(),
            index: Default::default(),
            ahead: None,
            read_ahead,
            ahead_done: false,
            parked: HashMap::new(),
            parked_bytes: 0,
            parked_limit: PARKED_BYTES,
            keep_bytes: KEEP_BLOCK_BYTES,
            chunk: super::stream::CHUNK,
        })
    }

    /// Streams the blocks of more than `keep_bytes` decoded when run, `chunk` instructions
    /// per warp at a time (defaults: [`KEEP_BLOCK_BYTES`], [`super::stream::CHUNK`]).
    pub fn with_streaming(mut self, keep_bytes: u64, chunk: usize) -> Self {
        self.keep_bytes = keep_bytes;
        self.chunk = chunk;
        self
    }

    /// Reads the trace ahead on a second thread (`Some(true)`), only when a block is asked for
    /// (`Some(false)`), or by the trace's size (`None`, the default: from
    /// [`READ_AHEAD_MIN_BYTES`]). Results are the same either way.
    pub fn with_read_ahead(mut self, on: Option<bool>) -> Self {
        if let Some(on) = on {
            self.read_ahead = on;
        }
        self
    }

    /// The error for a block the trace does not hold (read to its end).
    fn missing(&self, id: u64) -> WorkloadError {
        self.blocks.missing(id, self.trace.position().1).into()
    }

    /// Takes the block read at `at` (its `#BEGIN_TB` at `line`) into the index; once the
    /// whole grid is, reads the rest of the file, where any block is listed twice and
    /// anything else is malformed.
    fn take(
        &mut self,
        id: super::Dim3,
        line: usize,
        at: (u64, usize),
    ) -> Result<(), WorkloadError> {
        self.blocks.add(id, line)?;
        self.index.insert(self.info.grid.linear(id), at);
        if self.blocks.complete() {
            while let Some((read, _, next)) = self.read_next()? {
                self.frontier = next;
                self.blocks.add(read.id(), read.line())?;
            }
        }
        Ok(())
    }

    /// Reads the block at `pos` again, keeping its instructions up to `keep` bytes decoded.
    fn read_at(
        &mut self,
        id: u64,
        pos: (u64, usize),
        keep: u64,
    ) -> Result<accelsim::BlockRead, WorkloadError> {
        self.trace.seek(pos)?;
        let read = self
            .trace
            .next_block_bounded(keep, &mut |_, _, _, _| {})?
            .ok_or_else(|| self.missing(id))?;
        self.opcodes.clone_from(self.trace.opcode_table());
        Ok(read)
    }

    /// The next block in file order after the frontier, with where it starts and where the
    /// next one starts; `None` at the end of the file.
    #[allow(clippy::type_complexity)]
    fn read_next(
        &mut self,
    ) -> Result<Option<(accelsim::BlockRead, (u64, usize), (u64, usize))>, WorkloadError> {
        if self.read_ahead && !self.ahead_done {
            if self.ahead.is_none() {
                let mut t = KernelTrace::open_plain(&self.plain, 0)?;
                t.seek(self.frontier)?;
                self.ahead = ReadAhead::start(t, self.keep_bytes);
                self.ahead_done = self.ahead.is_none();
            }
            let got = self.ahead.as_mut().and_then(ReadAhead::next);
            match got {
                Some(Ahead::Block {
                    at,
                    next,
                    read,
                    opcodes,
                }) => {
                    if let Some(o) = opcodes {
                        self.ahead_opcodes = *o;
                    }
                    return Ok(Some((read, at, next)));
                }
                // The end, an error or a lost thread: the end and the error are read again
                // here, so they come out as without the thread.
                Some(Ahead::Stopped) | None => {
                    self.ahead = None;
                    self.ahead_done = true;
                }
            }
        }
        if self.trace.position() != self.frontier {
            self.trace.seek(self.frontier)?;
        }
        let at = self.trace.position();
        let read = self
            .trace
            .next_block_bounded(self.keep_bytes, &mut |_, _, _, _| {})?;
        self.opcodes.clone_from(self.trace.opcode_table());
        Ok(read.map(|r| (r, at, self.trace.position())))
    }

    /// Reads block `id`, keeping its instructions if they take at most `keep` bytes decoded
    /// (`keep` is either the streaming limit or unlimited).
    fn read_block(&mut self, id: u64, keep: u64) -> Result<accelsim::BlockRead, WorkloadError> {
        self.info.check_block(id)?;
        let limit = self.keep_bytes;
        let fits =
            |r: &accelsim::BlockRead| keep <= limit || matches!(r, accelsim::BlockRead::Whole(_));
        if let Some(read) = self.parked.remove(&id) {
            self.parked_bytes -= parked_size(&read);
            if fits(&read) {
                return Ok(read);
            }
        }
        if let Some(&pos) = self.index.get(&id) {
            return self.read_at(id, pos, keep);
        }
        loop {
            let Some((read, at, next)) = self.read_next()? else {
                return Err(self.missing(id));
            };
            self.frontier = next;
            let linear = self.info.grid.linear(read.id());
            self.take(read.id(), read.line(), at)?;
            if linear == id {
                return if fits(&read) {
                    Ok(read)
                } else {
                    self.read_at(id, at, keep)
                };
            }
            let bytes = parked_size(&read);
            if self.parked_bytes + bytes <= self.parked_limit {
                self.parked_bytes += bytes;
                self.parked.insert(linear, read);
            }
        }
    }
}

impl KernelSource for TraceKernel {
    fn info(&self) -> &KernelInfo {
        &self.info
    }

    fn block(&mut self, id: u64) -> Result<BlockInsts, WorkloadError> {
        match self.read_block(id, u64::MAX)? {
            accelsim::BlockRead::Whole(tb) => Ok(tb.insts),
            accelsim::BlockRead::Indexed(_) => unreachable!("kept whole without a limit"),
        }
    }

    fn run_block(&mut self, id: u64) -> Result<RunBlock, WorkloadError> {
        match self.read_block(id, self.keep_bytes)? {
            accelsim::BlockRead::Whole(tb) => Ok(RunBlock::Whole(tb.insts)),
            accelsim::BlockRead::Indexed(ix) => Ok(RunBlock::Streamed(Box::new(
                StreamedBlock::open(&self.plain, &ix, self.chunk)?,
            ))),
        }
    }

    fn unknown_opcodes(&self) -> Vec<String> {
        merged(self.ahead_opcodes.unknown(), self.opcodes.unknown())
    }

    fn unknown_modifiers(&self) -> Vec<String> {
        merged(
            self.ahead_opcodes.unknown_modifiers(),
            self.opcodes.unknown_modifiers(),
        )
    }

    fn visit_memory(
        &self,
        visit: &mut dyn FnMut(&MemAccess),
    ) -> Result<Option<Vec<OpClass>>, WorkloadError> {
        let mut trace = KernelTrace::open_plain(&self.plain, 0)?;
        let grid = trace.header.grid;
        let mut each = |id, w, _, inst: &accelsim::TraceInst| {
            if inst.mem_width == 0 {
                return;
            }
            visit(&MemAccess {
                block: grid.linear(id),
                warp: w,
                pc: inst.pc,
                key: inst.opcode,
                mask: inst.mask,
                addrs: &inst.addrs,
                width: inst.mem_width,
            });
        };
        trace.read_every_block(0, &mut each, &mut |_| {})?;
        let opcodes = trace.opcode_table();
        Ok(Some(
            (0..trace.opcodes().len() as u16)
                .map(|k| opcodes.class(k))
                .collect(),
        ))
    }

    fn static_code(&self) -> Result<Option<KernelCode>, WorkloadError> {
        let mut trace = KernelTrace::open_plain(&self.plain, 0)?;
        let mut code = super::static_code::StaticCode::new(trace.header.binary_version);
        // Instruction by instruction: memory stays bounded whatever the blocks' size.
        trace.read_every_block(
            0,
            &mut |_, _, k, inst| code.observe_inst(k, inst),
            &mut |_| {},
        )?;
        Ok(Some(KernelCode::of_trace(&code, trace.opcode_table())))
    }
}

/// `a`, then the entries of `b` not in `a`.
fn merged(a: &[String], b: &[String]) -> Vec<String> {
    let mut v = a.to_vec();
    for o in b {
        if !v.contains(o) {
            v.push(o.clone());
        }
    }
    v
}

/// The kernels of an Accel-Sim trace directory (`kernelslist.g`), opened one at a time.
pub struct TraceWorkload {
    name: String,
    kernels: std::vec::IntoIter<PathBuf>,
    /// [`TraceKernel::with_streaming`] for every kernel, when set.
    streaming: Option<(u64, usize)>,
    /// [`TraceKernel::with_read_ahead`] for every kernel.
    read_ahead: Option<bool>,
}

impl TraceWorkload {
    /// Reads `dir/kernelslist.g` (memory copies are skipped: the model has no host transfers).
    pub fn open(dir: &Path) -> Result<Self, WorkloadError> {
        let cmds = accelsim::read_kernelslist(dir)?;
        let kernels: Vec<PathBuf> = cmds
            .into_iter()
            .filter_map(|c| match c {
                accelsim::Command::Kernel { path } => Some(path),
                accelsim::Command::MemcpyHtoD { .. } => None,
            })
            .collect();
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        Ok(Self {
            name,
            kernels: kernels.into_iter(),
            streaming: None,
            read_ahead: None,
        })
    }

    /// Runs every kernel's blocks of more than `keep_bytes` decoded streamed, `chunk`
    /// instructions per warp at a time ([`TraceKernel::with_streaming`]).
    pub fn with_streaming(mut self, keep_bytes: u64, chunk: usize) -> Self {
        self.streaming = Some((keep_bytes, chunk));
        self
    }

    /// Reads every kernel's trace ahead on a second thread or on demand, as
    /// [`TraceKernel::with_read_ahead`] says.
    pub fn with_read_ahead(mut self, on: Option<bool>) -> Self {
        self.read_ahead = on;
        self
    }
}

impl WorkloadSource for TraceWorkload {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        match self.kernels.next() {
            Some(p) => Ok(Some(self.open_kernel(&p)?)),
            None => Ok(None),
        }
    }

    /// Every kernel of `kernelslist.g` on its `-cuda stream id` (read from its header now; the
    /// kernel is opened when it starts): kernels of one stream run in order, kernels of
    /// different streams may overlap, as Accel-Sim with `-gpgpu_concurrent_kernel_sm`.
    fn launches(&mut self) -> Result<Vec<Launch>, WorkloadError> {
        let mut v = vec![];
        // Per stream: the last kernel's launch id and file (ids grow in launch order).
        let mut last: HashMap<u32, (u32, PathBuf)> = HashMap::new();
        for path in self.kernels.by_ref() {
            let header = KernelTrace::read_header_only(&path)?;
            if let Some((id, prev)) = last.get(&header.stream) {
                if header.id <= *id {
                    return Err(WorkloadError::Invalid(format!(
                        "{}: kernel id {} on stream {} is listed after {} (kernel id {id}) in                          kernelslist.g: a stream's kernels must be listed in launch order",
                        path.display(),
                        header.id,
                        header.stream,
                        prev.display()
                    )));
                }
            }
            last.insert(header.stream, (header.id, path.clone()));
            let (streaming, read_ahead) = (self.streaming, self.read_ahead);
            let p = path.clone();
            v.push(Launch {
                info: KernelInfo {
                    name: header.name.clone(),
                    grid: header.grid,
                    block: header.block,
                    regs_per_thread: header.nregs,
                    shmem_bytes: header.shmem_bytes,
                    binary_version: header.binary_version,
                },
                origin: path.display().to_string(),
                stream: header.stream,
                arrival: Arrival::AfterPrevious,
                priority: 0,
                period: None,
                count: None,
                deadline: None,
                open: Box::new(move || open_trace_kernel(&p, streaming, read_ahead)),
            });
        }
        Ok(v)
    }
}

impl TraceWorkload {
    fn open_kernel(&self, path: &Path) -> Result<Box<dyn KernelSource>, WorkloadError> {
        open_trace_kernel(path, self.streaming, self.read_ahead)
    }
}

/// The kernel trace at `path`, streamed and read ahead as asked.
fn open_trace_kernel(
    path: &Path,
    streaming: Option<(u64, usize)>,
    read_ahead: Option<bool>,
) -> Result<Box<dyn KernelSource>, WorkloadError> {
    let k = TraceKernel::open(path)?.with_read_ahead(read_ahead);
    Ok(Box::new(match streaming {
        Some((keep, chunk)) => k.with_streaming(keep, chunk),
        None => k,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace of `n` one-warp blocks, written last to first: block `b` runs `b + 1`
    /// instructions.
    fn reversed_trace(dir: &Path, n: u32) -> PathBuf {
        let mut t = format!(
            "-kernel name = k\n-kernel id = 1\n-grid dim = ({n},1,1)\n-block dim = (32,1,1)\n\
             -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
             -accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
        );
        for b in (0..n).rev() {
            t.push_str(&format!(
                "#BEGIN_TB\nthread block = {b},0,0\nwarp = 0\ninsts = {}\n",
                b + 1
            ));
            for k in 0..=b {
                t.push_str(&format!("{:04x} ffffffff 1 R1 IADD 2 R2 R3 0\n", k * 8));
            }
            t.push_str("#END_TB\n");
        }
        let p = dir.join("kernel-1.traceg");
        std::fs::write(&p, t).unwrap();
        p
    }

    #[test]
    fn blocks_read_ahead_out_of_order_are_parked_or_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let p = reversed_trace(dir.path(), 12);
        // Parked without limit, parked up to one block, never parked (read again by seeking).
        for limit in [u64::MAX, 200, 0] {
            for ahead in [false, true] {
                let mut k = TraceKernel::open(&p).unwrap().with_read_ahead(Some(ahead));
                k.parked_limit = limit;
                for id in [0u64, 5, 1, 11, 2, 3, 4, 10, 6, 7, 8, 9] {
                    let b = k.block(id).unwrap();
                    assert_eq!(b.warps[0].len() as u64, id + 1, "{limit} {ahead} {id}");
                    assert_eq!(b.id.x as u64, id);
                }
                assert!(k.parked_bytes <= limit, "{}", k.parked_bytes);
                assert!(k.parked.is_empty() && k.parked_bytes == 0);
                let e = k.block(12).unwrap_err().to_string();
                assert!(e.contains("no thread block 12"), "{e}");
            }
        }
    }
}
