//! The interpreter: a synthetic kernel's program run per warp into decoded instruction
//! streams, exactly as a trace would list them.
//!
//! Each warp keeps a SIMT reconvergence stack of `(pc, reconvergence pc, mask)` entries
//! (GPGPU-Sim's post-dominator stack). A divergent branch turns the current entry into the
//! reconvergence entry and pushes the taken lanes; an entry whose `pc` reaches its
//! reconvergence point is popped. `EXIT` removes its lanes from every entry. Loop counters
//! are per lane and per loop id; a lane leaving a loop resets its counter, so nested loops
//! restart. Nothing is random: pseudo-random addresses come from a hash of the thread's
//! coordinates.

use super::ir::{Addr, CmpOp, Cond, Expr, Op, SynthDef, Var};
use crate::workload::kernel::{BlockInsts, KernelInfo, KernelSource, WorkloadError};
use crate::workload::sass::OpClass;
use crate::workload::{Dim3, WARP_SIZE};

/// Most loop ids a program may use.
pub const MAX_LOOPS: usize = 8;
/// Most dynamic instructions one warp may execute (a guard against runaway trip counts).
pub const MAX_WARP_INSTS: usize = 1 << 24;

/// Where one lane is: its coordinates and loop counters.
#[derive(Clone, Copy, Debug, Default)]
struct Lane {
    tx: i64,
    ty: i64,
    gx: i64,
    gy: i64,
    thread: i64,
    loops: [i64; MAX_LOOPS],
}

/// The block-wide values of [`Var`].
#[derive(Clone, Copy, Debug)]
struct BlockPos {
    bx: i64,
    by: i64,
    block: i64,
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn var(v: Var, l: &Lane, b: &BlockPos) -> i64 {
    match v {
        Var::Tx => l.tx,
        Var::Ty => l.ty,
        Var::Bx => b.bx,
        Var::By => b.by,
        Var::Gx => l.gx,
        Var::Gy => l.gy,
        Var::Block => b.block,
        Var::Thread => l.thread,
        Var::Loop(n) => l.loops[n as usize],
        Var::ThreadHash { salt, range } => {
            let h = mix(salt as u64 ^ (b.block as u64) << 32 ^ l.thread as u64);
            (h % range.max(1) as u64) as i64
        }
        Var::Hash { salt, range } => {
            let mut h = mix(salt as u64 ^ (b.block as u64) << 32 ^ l.thread as u64);
            for c in l.loops {
                h = mix(h ^ c as u64);
            }
            (h % range.max(1) as u64) as i64
        }
    }
}

fn eval(e: &Expr, l: &Lane, b: &BlockPos) -> i64 {
    let v = e.terms.iter().fold(e.constant, |acc, (c, x)| {
        acc.wrapping_add(c.wrapping_mul(var(*x, l, b)))
    });
    let v = e.inner.iter().fold(v, |acc, (c, x)| {
        acc.wrapping_add(c.wrapping_mul(eval(x, l, b)))
    });
    match e.modulo {
        Some(m) if m > 0 => v.rem_euclid(m),
        _ => v,
    }
}

fn holds(c: &Cond, l: &Lane, b: &BlockPos) -> bool {
    let (x, y) = (eval(&c.lhs, l, b), eval(&c.rhs, l, b));
    match c.op {
        CmpOp::Lt => x < y,
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
    }
}

fn address(a: &Addr, l: &Lane, b: &BlockPos) -> u64 {
    a.base
        .wrapping_add((eval(&a.index, l, b) as u64).wrapping_mul(a.elem as u64))
}

/// One entry of the reconvergence stack.
#[derive(Clone, Copy, Debug)]
struct Entry {
    pc: usize,
    /// Reconvergence point (`usize::MAX` for the bottom entry).
    rpc: usize,
    mask: u32,
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// Runs thread block `block` (linear index) of `def` into its instruction streams.
pub fn run_block(def: &SynthDef, block: u32) -> Result<BlockInsts, WorkloadError> {
    let (g, bd) = (def.grid, def.block);
    let pos = BlockPos {
        bx: (block % g.x) as i64,
        by: (block / g.x % g.y.max(1)) as i64,
        block: block as i64,
    };
    let threads = bd.volume() as usize;
    let nwarps = threads.div_ceil(WARP_SIZE);
    let mut out = BlockInsts {
        id: Dim3 {
            x: pos.bx as u32,
            y: pos.by as u32,
            z: block / (g.x * g.y.max(1)),
        },
        warps: Vec::with_capacity(nwarps),
        ..Default::default()
    };
    let prog = &def.program.insts;
    let mut addrs = Vec::with_capacity(WARP_SIZE);
    for w in 0..nwarps {
        out.warps.push(vec![]);
        let mut lane = [Lane::default(); WARP_SIZE];
        let mut mask = 0u32;
        for (i, l) in lane.iter_mut().enumerate() {
            let t = w * WARP_SIZE + i;
            if t < threads {
                mask |= 1 << i;
                let (tx, ty) = ((t as u32 % bd.x) as i64, (t as u32 / bd.x % bd.y) as i64);
                *l = Lane {
                    tx,
                    ty,
                    gx: pos.bx * bd.x as i64 + tx,
                    gy: pos.by * bd.y as i64 + ty,
                    thread: t as i64,
                    loops: [0; MAX_LOOPS],
                };
            }
        }
        let mut stack = vec![Entry {
            pc: 0,
            rpc: usize::MAX,
            mask,
        }];
        let mut executed = 0usize;
        while let Some(top) = stack.last().copied() {
            if top.pc == top.rpc || top.mask == 0 {
                stack.pop();
                continue;
            }
            let Some(inst) = prog.get(top.pc) else {
                return Err(WorkloadError::Invalid(format!(
                    "{}: warp {w} of block {block} ran past the end of the program (pc {:#x})",
                    def.name,
                    8 * top.pc
                )));
            };
            executed += 1;
            if executed > MAX_WARP_INSTS {
                return Err(WorkloadError::Invalid(format!(
                    "{}: warp {w} of block {block} exceeds {MAX_WARP_INSTS} instructions (a trip count that never ends?)",
                    def.name
                )));
            }
            addrs.clear();
            let width = match inst.addr() {
                Some(a) => {
                    addrs.extend(lanes(top.mask).map(|i| address(a, &lane[i], &pos)));
                    a.elem
                }
                None => 0,
            };
            out.push(
                w,
                (8 * top.pc) as u32,
                top.mask,
                inst.kind(),
                &inst.dsts,
                &inst.srcs,
                width,
                &addrs,
            );
            let cur = stack.len() - 1;
            match &inst.op {
                Op::Exit => {
                    for e in &mut stack {
                        e.mask &= !top.mask;
                    }
                    stack[cur].pc += 1;
                }
                Op::Loop { id, target, trips } => {
                    let id = *id as usize;
                    let mut taken = 0u32;
                    for i in lanes(top.mask) {
                        let l = &mut lane[i];
                        if l.loops[id] + 1 < eval(trips, l, &pos) {
                            l.loops[id] += 1;
                            taken |= 1 << i;
                        } else {
                            l.loops[id] = 0;
                        }
                    }
                    let after = top.pc + 1;
                    if taken == top.mask {
                        stack[cur].pc = *target;
                    } else {
                        stack[cur].pc = after;
                        if taken != 0 {
                            stack.push(Entry {
                                pc: *target,
                                rpc: after,
                                mask: taken,
                            });
                        }
                    }
                }
                Op::If { cond, skip } => {
                    let run = lanes(top.mask)
                        .filter(|&i| holds(cond, &lane[i], &pos))
                        .fold(0u32, |m, i| m | 1 << i);
                    if run == top.mask {
                        stack[cur].pc = top.pc + 1;
                    } else {
                        stack[cur].pc = *skip;
                        if run != 0 {
                            stack.push(Entry {
                                pc: top.pc + 1,
                                rpc: *skip,
                                mask: run,
                            });
                        }
                    }
                }
                _ => stack[cur].pc += 1,
            }
        }
    }
    Ok(out)
}

/// A synthetic kernel as a [`KernelSource`]: blocks are interpreted on demand, by id.
pub struct SynthKernel {
    def: SynthDef,
    info: KernelInfo,
}

impl SynthKernel {
    /// The kernel of `def`.
    pub fn new(def: SynthDef) -> Self {
        let info = KernelInfo {
            name: def.name.clone(),
            grid: def.grid,
            block: def.block,
            regs_per_thread: def.regs_per_thread,
            shmem_bytes: def.shmem_bytes,
            binary_version: 20,
        };
        Self { def, info }
    }

    /// The definition.
    pub fn def(&self) -> &SynthDef {
        &self.def
    }
}

impl KernelSource for SynthKernel {
    fn info(&self) -> &KernelInfo {
        &self.info
    }

    fn block(&mut self, id: u64) -> Result<BlockInsts, WorkloadError> {
        self.info.check_block(id)?;
        run_block(&self.def, id as u32)
    }

    fn visit_memory(
        &self,
        visit: &mut dyn FnMut(&crate::workload::kernel::MemAccess),
    ) -> Result<Option<Vec<OpClass>>, WorkloadError> {
        for id in 0..self.info.blocks() {
            let b = run_block(&self.def, id as u32)?;
            for (w, insts) in b.warps.iter().enumerate() {
                for inst in insts.iter().filter(|i| i.width > 0) {
                    let addrs = b.addrs(inst).to_vec();
                    visit(&crate::workload::kernel::MemAccess {
                        block: id,
                        warp: w,
                        pc: inst.pc as u64,
                        // `OpClass::ALL` lists the classes in declaration order.
                        key: inst.class as u16,
                        mask: inst.mask,
                        addrs: &addrs,
                        width: inst.width as u32,
                    });
                }
            }
        }
        Ok(self.memory_classes())
    }

    fn memory_classes(&self) -> Option<Vec<OpClass>> {
        Some(OpClass::ALL.to_vec())
    }

    fn array_decls(&self) -> Vec<crate::workload::kernel::ArrayDecl> {
        self.def.arrays.clone()
    }

    fn overwriting_pcs(&self) -> Option<Vec<u32>> {
        Some(super::overwriting_pcs(&self.def))
    }

    fn static_code(
        &self,
    ) -> Result<Option<crate::workload::static_code::KernelCode>, WorkloadError> {
        Ok(Some(crate::workload::static_code::KernelCode::of_program(
            &self.def.program,
        )))
    }
}
