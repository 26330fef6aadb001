//! The synthetic-kernel program: what a kernel is, instruction by instruction.
//!
//! A [`Program`] is a list of [`Inst`]s; instruction `i` has PC `8 * i` (Fermi-style 8-byte
//! steps, binary version 20). Control flow is structured: a [`Op::Loop`] is the backward branch
//! at the end of a loop body, an [`Op::If`] the forward branch around a region. Per-thread
//! quantities (addresses, trip counts, conditions) are [`Expr`]essions of the thread's
//! coordinates and of the counters of the loops around it, so loops and divergence exist and
//! every access pattern is explicit.

use crate::workload::cache_op::CacheOp;
use crate::workload::sass::{OpClass, OpKind};
use crate::workload::Dim3;

/// A per-thread integer quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    /// `threadIdx.x`.
    Tx,
    /// `threadIdx.y`.
    Ty,
    /// `blockIdx.x`.
    Bx,
    /// `blockIdx.y`.
    By,
    /// Global x index `blockIdx.x * blockDim.x + threadIdx.x`.
    Gx,
    /// Global y index `blockIdx.y * blockDim.y + threadIdx.y`.
    Gy,
    /// Linear block index `blockIdx.y * gridDim.x + blockIdx.x`.
    Block,
    /// Linear thread index within the block.
    Thread,
    /// Counter of loop `n` (0 on the first iteration).
    Loop(u8),
    /// A deterministic pseudo-random value in `0..range` that is fixed per thread: a hash of
    /// `salt`, the block and the thread (per-thread trip counts, branch conditions).
    ThreadHash {
        /// Distinguishes independent hash streams.
        salt: u32,
        /// Values are in `0..range`.
        range: u32,
    },
    /// A deterministic pseudo-random value in `0..range`, a hash of `salt`, the block, the
    /// thread and the loop counters (irregular accesses: graph neighbours, sparse columns).
    Hash {
        /// Distinguishes independent hash streams.
        salt: u32,
        /// Values are in `0..range`.
        range: u32,
    },
}

/// `sum(coef * var) + sum(coef * inner) + constant`, then optionally `mod modulo`
/// (non-negative remainder).
///
/// Built left to right: [`Expr::wrap`] applies to everything built so far, and anything added
/// after it applies outside the wrap (`Expr::v(1, Var::Thread).wrap(4).offset(1)` is
/// `threadIdx % 4 + 1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expr {
    /// Terms `(coefficient, variable)`.
    pub terms: Vec<(i64, Var)>,
    /// Wrapped sub-expressions `(coefficient, expression)`.
    pub inner: Vec<(i64, Expr)>,
    /// Constant term.
    pub constant: i64,
    /// Wrap into `0..modulo` (e.g. a stencil at the array edge), when set.
    pub modulo: Option<i64>,
}

impl Expr {
    /// A constant.
    pub fn c(v: i64) -> Self {
        Self {
            constant: v,
            ..Default::default()
        }
    }

    /// `coef * var`.
    pub fn v(coef: i64, var: Var) -> Self {
        Self {
            terms: vec![(coef, var)],
            ..Default::default()
        }
    }

    /// This expression as one term of a new one when it is wrapped (so what follows applies
    /// outside the wrap).
    fn sealed(self) -> Self {
        if self.modulo.is_some() {
            Self {
                inner: vec![(1, self)],
                ..Default::default()
            }
        } else {
            self
        }
    }

    /// Adds `coef * var`.
    pub fn plus(self, coef: i64, var: Var) -> Self {
        let mut e = self.sealed();
        e.terms.push((coef, var));
        e
    }

    /// Adds a constant.
    pub fn offset(self, c: i64) -> Self {
        let mut e = self.sealed();
        e.constant += c;
        e
    }

    /// Wraps everything so far into `0..m`.
    pub fn wrap(self, m: i64) -> Self {
        let mut e = self.sealed();
        e.modulo = Some(m);
        e
    }

    /// The whole expression multiplied by `k`.
    pub fn times(self, k: i64) -> Self {
        let mut e = self.sealed();
        for t in &mut e.terms {
            t.0 *= k;
        }
        for t in &mut e.inner {
            t.0 *= k;
        }
        e.constant *= k;
        e
    }

    /// The sum of two expressions.
    pub fn and(self, other: Expr) -> Self {
        let mut e = self.sealed();
        if other.modulo.is_some() {
            e.inner.push((1, other));
        } else {
            e.terms.extend(other.terms);
            e.inner.extend(other.inner);
            e.constant += other.constant;
        }
        e
    }
}

/// Memory space of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Global memory (through the L1D).
    Global,
    /// Shared memory (bank conflicts).
    Shared,
    /// Local memory (per-thread spill space, through the L1D).
    Local,
    /// Constant memory.
    Const,
}

/// An address: `base + index * elem` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr {
    /// Array base address.
    pub base: u64,
    /// Element index.
    pub index: Expr,
    /// Element size, bytes (also the access width).
    pub elem: u8,
}

/// Comparison of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// A per-thread condition `lhs op rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    /// Left side.
    pub lhs: Expr,
    /// Comparison.
    pub op: CmpOp,
    /// Right side.
    pub rhs: Expr,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Arithmetic (any non-memory, non-control class).
    Alu {
        /// Unit/latency class.
        class: OpClass,
    },
    /// A load into the destination register.
    Load {
        /// Space.
        space: Space,
        /// Address per thread.
        addr: Addr,
        /// L1D cache operator (`ld.ca`, `ld.cg` or none).
        cache: CacheOp,
    },
    /// A store of the source registers.
    Store {
        /// Space.
        space: Space,
        /// Address per thread.
        addr: Addr,
    },
    /// An atomic read-modify-write (global or shared).
    Atomic {
        /// Space (`Global` or `Shared`).
        space: Space,
        /// Address per thread.
        addr: Addr,
    },
    /// Backward branch closing loop `id`: threads whose counter + 1 is below `trips` go back
    /// to instruction `target` (counter incremented); the others leave the loop (counter
    /// reset). A loop body always runs at least once.
    Loop {
        /// Loop id (its counter is [`Var::Loop`]`(id)`).
        id: u8,
        /// First instruction of the body.
        target: usize,
        /// Iterations per thread.
        trips: Expr,
    },
    /// Forward branch: threads for which `cond` is false skip to instruction `skip` (the end of
    /// the region, where the warp reconverges).
    If {
        /// Threads that run the region.
        cond: Cond,
        /// First instruction after the region.
        skip: usize,
    },
    /// Thread-block barrier.
    Barrier,
    /// The threads leave.
    Exit,
}

/// One static instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// What it does.
    pub op: Op,
    /// Destination registers.
    pub dsts: Vec<u16>,
    /// Source registers.
    pub srcs: Vec<u16>,
}

impl Inst {
    /// The class of the instruction and its cache operator.
    pub fn kind(&self) -> OpKind {
        let cache = match &self.op {
            Op::Load { cache, .. } => *cache,
            _ => CacheOp::Default,
        };
        OpKind {
            class: self.class(),
            cache,
        }
    }

    /// The unit/latency class of the instruction.
    pub fn class(&self) -> OpClass {
        match &self.op {
            Op::Alu { class } => *class,
            Op::Load { space, .. } => match space {
                Space::Global => OpClass::LoadGlobal,
                Space::Shared => OpClass::LoadShared,
                Space::Local => OpClass::LoadLocal,
                Space::Const => OpClass::LoadConst,
            },
            Op::Store { space, .. } => match space {
                Space::Shared => OpClass::StoreShared,
                Space::Local => OpClass::StoreLocal,
                Space::Global | Space::Const => OpClass::StoreGlobal,
            },
            Op::Atomic { space, .. } => match space {
                Space::Shared => OpClass::AtomicShared,
                _ => OpClass::AtomicGlobal,
            },
            Op::Loop { .. } | Op::If { .. } => OpClass::Branch,
            Op::Barrier => OpClass::Barrier,
            Op::Exit => OpClass::Exit,
        }
    }

    /// The address of a memory instruction.
    pub fn addr(&self) -> Option<&Addr> {
        match &self.op {
            Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Atomic { addr, .. } => Some(addr),
            _ => None,
        }
    }
}

/// A static program, built with the helper methods (PCs follow from positions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Instructions; instruction `i` is at PC `8 * i`.
    pub insts: Vec<Inst>,
    /// Open loops: (id, first instruction of the body).
    open_loops: Vec<(u8, usize)>,
    /// Open `if` regions: index of their branch.
    open_ifs: Vec<usize>,
}

impl Program {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, op: Op, dsts: &[u16], srcs: &[u16]) -> &mut Self {
        self.insts.push(Inst {
            op,
            dsts: dsts.to_vec(),
            srcs: srcs.to_vec(),
        });
        self
    }

    /// An arithmetic instruction.
    pub fn alu(&mut self, class: OpClass, dst: &[u16], srcs: &[u16]) -> &mut Self {
        self.push(Op::Alu { class }, dst, srcs)
    }

    /// `n` independent arithmetic instructions of `class` writing `dst` from `srcs`.
    pub fn alus(&mut self, n: usize, class: OpClass, dst: u16, srcs: &[u16]) -> &mut Self {
        for _ in 0..n {
            self.alu(class, &[dst], srcs);
        }
        self
    }

    /// A load of `addr` into `dst`, the address computed from `addr_reg`.
    pub fn load(&mut self, space: Space, dst: u16, addr_reg: u16, addr: Addr) -> &mut Self {
        self.load_with(space, dst, addr_reg, addr, CacheOp::Default)
    }

    /// A load of `addr` into `dst` with the cache operator `cache` (`ld.global.cg`...).
    pub fn load_with(
        &mut self,
        space: Space,
        dst: u16,
        addr_reg: u16,
        addr: Addr,
        cache: CacheOp,
    ) -> &mut Self {
        self.push(Op::Load { space, addr, cache }, &[dst], &[addr_reg])
    }

    /// A store of `val` to `addr`.
    pub fn store(&mut self, space: Space, val: u16, addr_reg: u16, addr: Addr) -> &mut Self {
        self.push(Op::Store { space, addr }, &[], &[addr_reg, val])
    }

    /// An atomic on `addr` returning into `dst`.
    pub fn atomic(&mut self, space: Space, dst: u16, val: u16, addr: Addr) -> &mut Self {
        self.push(Op::Atomic { space, addr }, &[dst], &[val])
    }

    /// A barrier.
    pub fn barrier(&mut self) -> &mut Self {
        self.push(Op::Barrier, &[], &[])
    }

    /// Opens loop `id` (its body starts at the next instruction).
    pub fn begin_loop(&mut self, id: u8) -> &mut Self {
        self.open_loops.push((id, self.insts.len()));
        self
    }

    /// Closes the innermost loop with its per-thread trip count (a compare and the branch).
    pub fn end_loop(&mut self, trips: Expr) -> &mut Self {
        let (id, target) = self.open_loops.pop().expect("end_loop without begin_loop");
        self.alu(OpClass::IntAlu, &[], &[]);
        self.push(Op::Loop { id, target, trips }, &[], &[])
    }

    /// Opens a region run only by threads for which `cond` holds.
    pub fn begin_if(&mut self, cond: Cond) -> &mut Self {
        self.open_ifs.push(self.insts.len());
        self.push(Op::If { cond, skip: 0 }, &[], &[])
    }

    /// Closes the innermost `if` region.
    pub fn end_if(&mut self) -> &mut Self {
        let at = self.open_ifs.pop().expect("end_if without begin_if");
        let end = self.insts.len();
        if let Op::If { skip, .. } = &mut self.insts[at].op {
            *skip = end;
        }
        self
    }

    /// Ends the program with `EXIT`.
    pub fn exit(&mut self) -> &mut Self {
        assert!(
            self.open_loops.is_empty() && self.open_ifs.is_empty(),
            "unclosed loop or if"
        );
        self.push(Op::Exit, &[], &[])
    }

    /// Branch targets (instruction index -> target index) of the program, for analyses.
    pub fn branch_targets(&self) -> Vec<(usize, usize)> {
        self.insts
            .iter()
            .enumerate()
            .filter_map(|(i, inst)| match &inst.op {
                Op::Loop { target, .. } => Some((i, *target)),
                Op::If { skip, .. } => Some((i, *skip)),
                _ => None,
            })
            .collect()
    }
}

/// A synthetic kernel: launch shape, resources, program, and what it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthDef {
    /// Kernel name (`<workload>_<size>`).
    pub name: String,
    /// Grid (thread blocks).
    pub grid: Dim3,
    /// Block (threads).
    pub block: Dim3,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Shared memory per block, bytes.
    pub shmem_bytes: u32,
    /// The program.
    pub program: Program,
    /// The row pitch of each 2-D global array, as declared (address pre-computation of
    /// locality-aware dispatch); other arrays are 1-D to it.
    pub arrays: Vec<crate::workload::kernel::ArrayDecl>,
}

impl SynthDef {
    /// This kernel with global array `base` declared 2-D, `pitch_elems` elements of `elem`
    /// bytes per row.
    pub fn with_rows(mut self, base: u64, pitch_elems: u64, elem: u64) -> Self {
        self.arrays.push(crate::workload::kernel::ArrayDecl {
            base,
            pitch: pitch_elems * elem,
        });
        self
    }
}
