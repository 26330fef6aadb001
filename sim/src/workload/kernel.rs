//! What the GPU model executes: kernels that hand out thread blocks of decoded warp
//! instructions, one block at a time, whatever their origin (an Accel-Sim trace, a built-in
//! synthetic kernel).
//!
//! A block's instructions are stored compactly: every [`WarpInst`] indexes the block's shared
//! register and address pools, so a block costs 24 bytes per dynamic warp instruction plus
//! its registers (2 bytes each) and addresses: 32 bytes for a memory instruction whose lanes
//! follow one or two strides ([`Addrs::Strided`]: 1-D and 2-D thread blocks), else 8 bytes
//! per active lane.

use super::accelsim::TraceError;
use super::cache_op::CacheOp;
use super::sass::{OpClass, OpKind};
use super::static_code::KernelCode;
use super::stream::RunBlock;
use super::Dim3;
use thiserror::Error;

/// A workload that cannot be read or built.
#[derive(Debug, Error)]
pub enum WorkloadError {
    /// A malformed or unreadable trace.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// Anything else (unknown built-in name, size...).
    #[error("{0}")]
    Invalid(String),
}

/// One dynamic warp instruction, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpInst {
    /// Program counter, bytes from the kernel's start.
    pub pc: u32,
    /// Active lanes (bit `i` = lane `i`).
    pub mask: u32,
    /// Unit/latency class.
    pub class: OpClass,
    /// L1D cache operator (loads and stores; the default for everything else).
    pub cache: CacheOp,
    /// Bytes accessed per thread (memory instructions; 0 otherwise).
    pub width: u8,
    /// Destination registers: `regs[reg_start .. reg_start + ndst]` of the block.
    pub ndst: u8,
    /// Source registers: the `nsrc` entries after the destinations.
    pub nsrc: u8,
    /// First register of this instruction in the block's register pool.
    pub reg_start: u32,
    /// First address of this instruction in the block's address pool (memory instructions):
    /// one per active lane in lane order, or the four words of [`Addrs::Strided`].
    pub addr_start: u32,
    /// The addresses are stored strided (see [`Addrs`]).
    pub strided: bool,
}

impl WarpInst {
    /// Number of active lanes.
    pub fn active(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// The per-lane byte addresses of one memory instruction, for its active lanes in lane order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addrs<'a> {
    /// One address per active lane.
    Listed(&'a [u64]),
    /// Active lane `k` of `n` accesses `base + (k % group) * inner + (k / group) * outer`
    /// (wrapping): a 1-D block's lanes (`group == n`) or rows of a 2-D block.
    Strided {
        base: u64,
        inner: u64,
        outer: u64,
        group: u32,
        n: u32,
    },
}

impl<'a> Addrs<'a> {
    /// The addresses stored at `pool[start..]` for `inst` (none unless it accesses memory).
    pub fn at(pool: &'a [u64], start: usize, inst: &WarpInst) -> Self {
        if inst.width == 0 {
            return Addrs::Listed(&[]);
        }
        if inst.strided {
            let w = &pool[start..start + 4];
            return Addrs::Strided {
                base: w[0],
                inner: w[1],
                outer: w[2],
                group: w[3] as u32,
                n: inst.active(),
            };
        }
        Addrs::Listed(&pool[start..start + inst.active() as usize])
    }

    /// Appends `addrs` to `pool`, strided when they follow one or two strides and are more
    /// than four (fewer take no more room listed); returns whether they were.
    pub fn store(pool: &mut Vec<u64>, addrs: &[u64]) -> bool {
        let n = addrs.len();
        if n > 4 {
            let d = |k: usize| addrs[k].wrapping_sub(addrs[k - 1]);
            let inner = d(1);
            let group = (2..n).find(|&k| d(k) != inner).unwrap_or(n);
            if group == n {
                // One stride throughout: every step was compared already.
                pool.extend_from_slice(&[addrs[0], inner, 0, n as u64]);
                return true;
            }
            let outer = if group < n {
                addrs[group].wrapping_sub(addrs[0])
            } else {
                0
            };
            let s = Addrs::Strided {
                base: addrs[0],
                inner,
                outer,
                group: group as u32,
                n: n as u32,
            };
            if s.iter().eq(addrs.iter().copied()) {
                pool.extend_from_slice(&[addrs[0], inner, outer, group as u64]);
                return true;
            }
        }
        pool.extend_from_slice(addrs);
        false
    }

    /// Number of addresses.
    pub fn len(&self) -> usize {
        match self {
            Addrs::Listed(a) => a.len(),
            Addrs::Strided { n, .. } => *n as usize,
        }
    }

    /// No address (not a memory instruction, or no active lane).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Address `k` (panics past the end).
    pub fn get(&self, k: usize) -> u64 {
        match *self {
            Addrs::Listed(a) => a[k],
            Addrs::Strided {
                base,
                inner,
                outer,
                group,
                n,
            } => {
                assert!(k < n as usize, "address {k} of {n}");
                let (g, i) = ((k as u64) / group as u64, (k as u64) % group as u64);
                base.wrapping_add(i.wrapping_mul(inner))
                    .wrapping_add(g.wrapping_mul(outer))
            }
        }
    }

    /// The addresses in order.
    pub fn iter(&self) -> AddrIter<'a> {
        match *self {
            Addrs::Listed(a) => AddrIter::Listed(a.iter()),
            Addrs::Strided {
                base,
                inner,
                outer,
                group,
                n,
            } => AddrIter::Strided {
                row: base,
                next: base,
                inner,
                outer,
                group,
                in_row: 0,
                left: n,
            },
        }
    }

    /// The addresses as a vector.
    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }
}

/// The addresses of an [`Addrs`] in order, strided ones stepped without division.
#[derive(Clone, Debug)]
pub enum AddrIter<'a> {
    /// Listed addresses.
    Listed(std::slice::Iter<'a, u64>),
    /// Strided: `next` is the next address, `row` the first of its group, `in_row` its index
    /// in the group, `left` how many remain.
    Strided {
        row: u64,
        next: u64,
        inner: u64,
        outer: u64,
        group: u32,
        in_row: u32,
        left: u32,
    },
}

impl Iterator for AddrIter<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        match self {
            AddrIter::Listed(it) => it.next().copied(),
            AddrIter::Strided {
                row,
                next,
                inner,
                outer,
                group,
                in_row,
                left,
            } => {
                if *left == 0 {
                    return None;
                }
                let a = *next;
                *left -= 1;
                *in_row += 1;
                if *in_row == *group {
                    *in_row = 0;
                    *row = row.wrapping_add(*outer);
                    *next = *row;
                } else {
                    *next = next.wrapping_add(*inner);
                }
                Some(a)
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            AddrIter::Listed(it) => it.len(),
            AddrIter::Strided { left, .. } => *left as usize,
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for AddrIter<'_> {}

/// The instructions of one thread block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockInsts {
    /// Block index in the grid.
    pub id: Dim3,
    /// `warps[w]` = the dynamic instructions of warp `w` of the block, in program order.
    pub warps: Vec<Vec<WarpInst>>,
    /// Register pool (general-purpose register numbers).
    pub regs: Vec<u16>,
    /// Address pool (byte addresses).
    pub addrs: Vec<u64>,
}

impl BlockInsts {
    /// Destination registers of `inst`.
    pub fn dsts(&self, inst: &WarpInst) -> &[u16] {
        let s = inst.reg_start as usize;
        &self.regs[s..s + inst.ndst as usize]
    }

    /// Source registers of `inst`.
    pub fn srcs(&self, inst: &WarpInst) -> &[u16] {
        let s = inst.reg_start as usize + inst.ndst as usize;
        &self.regs[s..s + inst.nsrc as usize]
    }

    /// Per-lane addresses of `inst` (active lanes in lane order).
    pub fn addrs(&self, inst: &WarpInst) -> Addrs<'_> {
        Addrs::at(&self.addrs, inst.addr_start as usize, inst)
    }

    /// Bytes the block's instructions take in memory (the vectors' contents).
    pub fn bytes(&self) -> u64 {
        let insts: usize = self.warps.iter().map(Vec::len).sum();
        Self::bytes_of(insts, self.regs.len(), self.addrs.len())
    }

    /// Bytes of `insts` instructions with `regs` registers and `addrs` address words.
    pub fn bytes_of(insts: usize, regs: usize, addrs: usize) -> u64 {
        (insts * std::mem::size_of::<WarpInst>() + regs * 2 + addrs * 8) as u64
    }

    /// Appends one instruction to warp `warp` (created as needed): `kind` is its class, with
    /// its cache operator when it has one.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        warp: usize,
        pc: u32,
        mask: u32,
        kind: impl Into<OpKind>,
        dsts: &[u16],
        srcs: &[u16],
        width: u8,
        addrs: &[u64],
    ) {
        if self.warps.len() <= warp {
            self.warps.resize_with(warp + 1, Vec::new);
        }
        let addr_start = self.addrs.len() as u32;
        let strided = width > 0 && Addrs::store(&mut self.addrs, addrs);
        let kind = kind.into();
        let inst = WarpInst {
            pc,
            mask,
            class: kind.class,
            cache: kind.cache,
            width,
            ndst: dsts.len() as u8,
            nsrc: srcs.len() as u8,
            reg_start: self.regs.len() as u32,
            addr_start,
            strided,
        };
        self.regs.extend_from_slice(dsts);
        self.regs.extend_from_slice(srcs);
        self.warps[warp].push(inst);
    }

    /// An empty block `id` of `warps` warps whose pools have room for `regs` registers and
    /// `addrs` addresses (a reader gives the sizes of the block before, so that the pools are
    /// not grown step by step).
    pub fn with_room(id: Dim3, warps: usize, regs: usize, addrs: usize) -> Self {
        Self {
            id,
            warps: vec![Vec::new(); warps],
            regs: Vec::with_capacity(regs),
            addrs: Vec::with_capacity(addrs),
        }
    }

    /// Warp instructions of the block.
    pub fn warp_instructions(&self) -> u64 {
        self.warps.iter().map(|w| w.len() as u64).sum()
    }
}

/// What the GPU needs to know about a kernel before its blocks run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Kernel name.
    pub name: String,
    /// Grid dimensions (thread blocks).
    pub grid: Dim3,
    /// Block dimensions (threads).
    pub block: Dim3,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Shared memory per block, bytes.
    pub shmem_bytes: u32,
    /// SASS binary version (instruction size and control words; see `sass::next_pc`).
    pub binary_version: u32,
}

impl KernelInfo {
    /// `Ok` when `id` names a thread block of the grid (`0..blocks()`), else an error naming
    /// the kernel.
    pub fn check_block(&self, id: u64) -> Result<(), WorkloadError> {
        if id < self.blocks() {
            return Ok(());
        }
        Err(WorkloadError::Invalid(format!(
            "{}: no thread block {id} in a grid of {}",
            self.name,
            self.blocks()
        )))
    }

    /// Threads per block.
    pub fn block_threads(&self) -> u32 {
        self.block.volume() as u32
    }

    /// Thread blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.volume()
    }
}

/// A kernel whose thread blocks are produced one at a time, by id.
pub trait KernelSource {
    /// The kernel's launch parameters.
    fn info(&self) -> &KernelInfo;
    /// Thread block `id`, its linear index in the grid (x fastest), `0..info().blocks()`.
    /// Blocks may be asked for in any order; asking in increasing order is the fast path
    /// (a trace streams).
    fn block(&mut self, id: u64) -> Result<BlockInsts, WorkloadError>;
    /// Thread block `id` for running: as [`Self::block`], or streamed from its source when it
    /// is too large to hold decoded (a trace's blocks above a size; see [`RunBlock`]).
    fn run_block(&mut self, id: u64) -> Result<RunBlock, WorkloadError> {
        Ok(RunBlock::Whole(self.block(id)?))
    }
    /// Opcodes that were not recognized (run as integer ALU), each once.
    fn unknown_opcodes(&self) -> Vec<String> {
        vec![]
    }
    /// Loads' and stores' modifiers that were not recognized (the opcode runs with the default
    /// cache operator), one note each ([`super::sass::OpcodeTable::unknown_modifiers`]).
    fn unknown_modifiers(&self) -> Vec<String> {
        vec![]
    }
    /// The kernel's static code for compiler-side analyses, when it can be known: synthetic
    /// kernels have their program; a trace kernel reads its trace once more and reconstructs it
    /// from the executed instructions ([`KernelCode::of_trace`]).
    fn static_code(&self) -> Result<Option<KernelCode>, WorkloadError> {
        Ok(None)
    }
    /// Visits every executed memory instruction of every block, in block order, for the
    /// address pre-computation of locality-aware dispatch (`analysis::locality`); returns the
    /// class of each [`MemAccess::key`] (indexed by key), or `None` when the kernel cannot be
    /// visited. Memory stays bounded by one instruction whatever the blocks' size.
    fn visit_memory(
        &self,
        visit: &mut dyn FnMut(&MemAccess),
    ) -> Result<Option<Vec<OpClass>>, WorkloadError> {
        let _ = visit;
        Ok(None)
    }
    /// The classes [`Self::visit_memory`] would return, when they are known without a visit
    /// (synthetic kernels: every key is its class; a trace's keys are its opcodes in the order
    /// it meets them, known only once it has been read).
    fn memory_classes(&self) -> Option<Vec<OpClass>> {
        None
    }
    /// Row pitches of the kernel's 2-D arrays, as its compiler knows them from their
    /// declarations (synthetic kernels); arrays not listed, and every array of a trace, are
    /// treated as 1-D.
    fn array_decls(&self) -> Vec<ArrayDecl> {
        vec![]
    }
    /// The PCs of the global stores and atomics that end a block's idempotence (Chimera's
    /// strict idempotence: they overwrite what the kernel reads), when the kernel's code says
    /// which (synthetic kernels); `None`: every global store and atomic does (traces, whose
    /// arrays are not known).
    fn overwriting_pcs(&self) -> Option<Vec<u32>> {
        None
    }
}

/// One executed memory instruction of one warp ([`KernelSource::visit_memory`]).
#[derive(Clone, Copy, Debug)]
pub struct MemAccess<'a> {
    /// Linear id of the thread block.
    pub block: u64,
    /// Warp of the block.
    pub warp: usize,
    /// Program counter, bytes.
    pub pc: u64,
    /// Key of the instruction's opcode (its class is known once the visit returns).
    pub key: u16,
    /// Active lanes (bit `i` = lane `i`).
    pub mask: u32,
    /// Byte addresses of the active lanes, in lane order.
    pub addrs: &'a [u64],
    /// Bytes each lane accesses (4: a 32-bit scalar; 16: a 128-bit vector load).
    pub width: u32,
}

/// A 2-D array as its declaration gives it: the base address and the row pitch, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDecl {
    /// Base address (bytes; the array's element 0).
    pub base: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
}

/// When a kernel launch arrives at the GPU. Whatever it says, a launch also waits for the
/// launches before it in its stream to finish (kernels of one stream run in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// When the launch before it in its stream has finished (at once for the first).
    AfterPrevious,
    /// At this core cycle (or when the launch before it in its stream has finished, if that
    /// is later).
    At(u64),
}

/// Opens a launch's kernel (once per instance: a periodic launch opens a fresh kernel for
/// each).
pub type KernelOpener = Box<dyn FnMut() -> Result<Box<dyn KernelSource>, WorkloadError>>;

/// Highest kernel priority (priorities are `0..=MAX_PRIORITY`, 0 the lowest: 4 bits).
pub const MAX_PRIORITY: u8 = 15;

/// One kernel launch of a workload: which kernel, on which stream, when, how urgent.
pub struct Launch {
    /// The kernel's launch parameters (known before it is opened: its trace header, its
    /// definition).
    pub info: KernelInfo,
    /// Where it comes from, for errors (`mix.toml:12`, a trace directory).
    pub origin: String,
    /// Its CUDA stream.
    pub stream: u32,
    /// When it arrives.
    pub arrival: Arrival,
    /// Priority, `0..=MAX_PRIORITY` (0 the lowest); policies that look at priorities use it.
    pub priority: u8,
    /// With a period: a new instance arrives every `period` cycles after the first (each its
    /// own launch in the report, on the same stream).
    pub period: Option<u64>,
    /// Instances of a periodic launch (`None`: one every period while another launch of the
    /// workload has not finished).
    pub count: Option<u32>,
    /// Each instance should finish within this many cycles of its arrival (reported as met or
    /// missed).
    pub deadline: Option<u64>,
    /// Opens its kernel.
    pub open: KernelOpener,
}

impl Launch {
    /// `kernel` on stream 0, after the launch before it: the launches of a workload that runs
    /// its kernels one after the other.
    pub fn in_order(kernel: Box<dyn KernelSource>) -> Self {
        let info = kernel.info().clone();
        let mut kernel = Some(kernel);
        Self {
            origin: info.name.clone(),
            info,
            stream: 0,
            arrival: Arrival::AfterPrevious,
            priority: 0,
            period: None,
            count: None,
            deadline: None,
            open: Box::new(move || {
                kernel.take().ok_or_else(|| {
                    WorkloadError::Invalid("a kernel of this workload runs only once".into())
                })
            }),
        }
    }
}

/// The kernels a run executes: in launch order, each with its stream and arrival.
pub trait WorkloadSource {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// The next kernel, or `None` after the last one.
    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError>;
    /// Every launch, in launch order (read before the run starts; kernels are opened when
    /// they start). By default each kernel of [`WorkloadSource::next_kernel`] in order on one
    /// stream.
    fn launches(&mut self) -> Result<Vec<Launch>, WorkloadError> {
        let mut v = vec![];
        while let Some(k) = self.next_kernel()? {
            v.push(Launch::in_order(k));
        }
        Ok(v)
    }
}

/// A workload of one kernel (built-in and synthetic kernels).
pub struct SingleKernel {
    name: String,
    kernel: Option<Box<dyn KernelSource>>,
}

impl SingleKernel {
    /// The workload running `kernel` once, named after it.
    pub fn new(kernel: Box<dyn KernelSource>) -> Self {
        Self {
            name: kernel.info().name.clone(),
            kernel: Some(kernel),
        }
    }
}

impl WorkloadSource for SingleKernel {
    fn name(&self) -> &str {
        &self.name
    }

    fn next_kernel(&mut self) -> Result<Option<Box<dyn KernelSource>>, WorkloadError> {
        Ok(self.kernel.take())
    }
}

pub use super::trace_kernel::{TraceKernel, TraceWorkload, KEEP_BLOCK_BYTES};

/// A set of thread-block ids kept as a dense prefix plus the ids above it, so ids that come
/// (mostly) in order cost no memory.
#[derive(Clone, Debug, Default)]
pub struct BlockIdSet {
    /// Every id below this one is in the set.
    prefix: u64,
    /// Ids above the prefix.
    above: std::collections::HashSet<u64>,
}

impl BlockIdSet {
    /// Adds `id`; false if it was in the set already.
    pub fn insert(&mut self, id: u64) -> bool {
        if id < self.prefix || !self.above.insert(id) {
            return false;
        }
        while self.above.remove(&self.prefix) {
            self.prefix += 1;
        }
        true
    }
}

/// Size figures of a kernel, counted by running its source to the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KernelCounts {
    /// Thread blocks.
    pub blocks: u64,
    /// Warps.
    pub warps: u64,
    /// Warp instructions.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes summed).
    pub thread_instructions: u64,
}

/// Counts every block of `k`.
pub fn count(k: &mut dyn KernelSource) -> Result<KernelCounts, WorkloadError> {
    let mut c = KernelCounts::default();
    for id in 0..k.info().blocks() {
        let b = k.block(id)?;
        c.blocks += 1;
        c.warps += b.warps.len() as u64;
        for w in &b.warps {
            c.warp_instructions += w.len() as u64;
            c.thread_instructions += w.iter().map(|i| i.active() as u64).sum::<u64>();
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stored(addrs: &[u64]) -> (bool, Vec<u64>) {
        let mut b = BlockInsts::default();
        let mask = if addrs.len() == 32 {
            u32::MAX
        } else {
            (1u32 << addrs.len()) - 1
        };
        b.push(0, 0, mask, OpClass::LoadGlobal, &[], &[], 4, addrs);
        let i = b.warps[0][0];
        (i.strided, b.addrs(&i).to_vec())
    }

    #[test]
    fn one_and_two_stride_lanes_are_stored_as_four_words() {
        let row: Vec<u64> = (0..32).map(|k| 0x1000 + 4 * k).collect();
        assert_eq!(stored(&row), (true, row.clone()));
        // A 16x16 block: two rows of 16 lanes, 0x340 bytes apart.
        let rows: Vec<u64> = (0..32)
            .map(|k| 0x10 + 4 * (k % 16) + 0x340 * (k / 16))
            .collect();
        assert_eq!(stored(&rows), (true, rows.clone()));
        let mut b = BlockInsts::default();
        b.push(0, 0, u32::MAX, OpClass::LoadGlobal, &[], &[], 4, &rows);
        assert_eq!(b.addrs.len(), 4);
        // Irregular: listed.
        let mut odd = row.clone();
        odd[7] = 3;
        assert_eq!(stored(&odd), (false, odd.clone()));
        assert_eq!(stored(&[5, 9]), (false, vec![5, 9]));
        assert_eq!(
            stored(&[0, 4, 8, 12]),
            (false, vec![0, 4, 8, 12]),
            "no smaller strided"
        );
    }

    proptest! {
        /// Whatever the addresses, they read back as stored.
        #[test]
        fn addresses_read_back_as_stored(
            base in any::<u64>(), inner in any::<u64>(), outer in any::<u64>(),
            group in 1u64..33, n in 0usize..33, noise in proptest::collection::vec(any::<u64>(), 0..3)
        ) {
            let mut a: Vec<u64> = (0..n as u64)
                .map(|k| base.wrapping_add((k % group).wrapping_mul(inner)).wrapping_add((k / group).wrapping_mul(outer)))
                .collect();
            for (j, x) in noise.iter().enumerate() {
                if let Some(v) = a.get_mut((*x as usize + j) % n.max(1)) {
                    *v = *x;
                }
            }
            prop_assert_eq!(stored(&a).1, a.clone());
            let mut b = BlockInsts::default();
            let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            b.push(0, 0, mask, OpClass::LoadGlobal, &[], &[], 4, &a);
            let addrs = b.addrs(&b.warps[0][0]);
            prop_assert_eq!((0..n).map(|k| addrs.get(k)).collect::<Vec<_>>(), a);
        }
    }
}
