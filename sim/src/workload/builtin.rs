//! Built-in synthetic kernels: a memory-bound and a compute-bound kernel, generated block by
//! block from a fixed static program (deterministic, nothing stored). They exercise the GPU
//! model at both ends of the roofline for the RTL-in-the-loop tests and `gpusched bench`; the
//! workload suite of the papers' benchmarks builds on the same [`KernelSource`] interface.
//!
//! * `stream`: `c[i] = a[i] + b[i]` over a grid-stride loop; every load and store is a fully
//!   coalesced 128 B line that is used once, so the kernel is bound by DRAM bandwidth.
//! * `compute`: one load per thread, then a loop of four independent FFMA chains and one MUFU
//!   per iteration, one store at the end: bound by the SP/SFU pipelines.
//!
//! Programs use Fermi's 8-byte instruction steps (binary version 20). Blocks have 256 threads.

use super::kernel::{BlockInsts, KernelInfo, KernelSource, SingleKernel, WorkloadError};
use super::sass::OpClass::{self, *};
use super::{Dim3, WARP_SIZE};

/// Names of the built-in kernels.
pub const NAMES: &[&str] = &["stream", "compute"];
/// Size names.
pub const SIZES: &[&str] = &["small", "medium", "large"];

const BLOCK_THREADS: u32 = 256;
const A_BASE: u64 = 0x1000_0000;
const B_BASE: u64 = 0x2000_0000;
const C_BASE: u64 = 0x3000_0000;

/// Which built-in kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Stream,
    Compute,
}

/// One step of a static program: class, destinations, sources, and for memory instructions
/// the array it touches (`Some(base)`).
struct Op {
    class: OpClass,
    dsts: &'static [u16],
    srcs: &'static [u16],
    array: Option<u64>,
}

const fn op(class: OpClass, dsts: &'static [u16], srcs: &'static [u16]) -> Op {
    Op {
        class,
        dsts,
        srcs,
        array: None,
    }
}

const fn mem(class: OpClass, dsts: &'static [u16], srcs: &'static [u16], base: u64) -> Op {
    Op {
        class,
        dsts,
        srcs,
        array: Some(base),
    }
}

/// Prologue, loop body (ends with its backward branch), epilogue (ends with EXIT).
struct Program {
    prologue: &'static [Op],
    body: &'static [Op],
    epilogue: &'static [Op],
}

const SETUP: [Op; 4] = [
    op(IntAlu, &[0], &[]),     // S2R R0, SR_TID.X
    op(IntAlu, &[1], &[]),     // S2R R1, SR_CTAID.X
    op(IntMul, &[2], &[1, 0]), // IMAD R2, R1, blockDim, R0
    op(IntAlu, &[3], &[2]),    // SHL R3, R2, 2
];

const STREAM: Program = Program {
    prologue: &SETUP,
    body: &[
        op(IntAlu, &[4], &[3]),                 // IADD R4, R3, a
        mem(LoadGlobal, &[5], &[4], A_BASE),    // LDG R5, [R4]
        op(IntAlu, &[6], &[3]),                 // IADD R6, R3, b
        mem(LoadGlobal, &[7], &[6], B_BASE),    // LDG R7, [R6]
        op(Fp, &[8], &[5, 7]),                  // FADD R8, R5, R7
        op(IntAlu, &[9], &[3]),                 // IADD R9, R3, c
        mem(StoreGlobal, &[], &[9, 8], C_BASE), // STG [R9], R8
        op(IntAlu, &[3], &[3]),                 // IADD R3, R3, stride
        op(IntAlu, &[], &[3]),                  // ISETP P0, R3, n
        op(Branch, &[], &[]),                   // @P0 BRA loop
    ],
    epilogue: &[op(Exit, &[], &[])],
};

const COMPUTE: Program = Program {
    prologue: &[
        op(IntAlu, &[0], &[]),
        op(IntAlu, &[1], &[]),
        op(IntMul, &[2], &[1, 0]),
        op(IntAlu, &[3], &[2]),
        mem(LoadGlobal, &[4], &[3], A_BASE), // LDG R4, [R3]
    ],
    body: &[
        op(Fp, &[5], &[4, 5]), // FFMA R5, R4, R5, R5
        op(Fp, &[6], &[4, 6]),
        op(Fp, &[7], &[4, 7]),
        op(Fp, &[8], &[4, 8]),
        op(Fp, &[5], &[5, 6]),
        op(Fp, &[7], &[7, 8]),
        op(Sfu, &[9], &[5]),      // MUFU.RSQ R9, R5
        op(Fp, &[4], &[9, 7]),    // FFMA R4, R9, R7, R4
        op(IntAlu, &[10], &[10]), // IADD R10, R10, 1
        op(IntAlu, &[], &[10]),   // ISETP P0, R10, n
        op(Branch, &[], &[]),     // @P0 BRA loop
    ],
    epilogue: &[
        mem(StoreGlobal, &[], &[3, 4], C_BASE), // STG [R3], R4
        op(Exit, &[], &[]),
    ],
};

/// A built-in kernel at one size.
pub struct Builtin {
    kind: Kind,
    info: KernelInfo,
    iterations: u32,
}

impl Builtin {
    /// The kernel `name` (see [`NAMES`]) at size `size` (see [`SIZES`]).
    pub fn new(name: &str, size: &str) -> Result<Self, WorkloadError> {
        let kind = match name {
            "stream" => Kind::Stream,
            "compute" => Kind::Compute,
            _ => {
                return Err(WorkloadError::Invalid(format!(
                    "unknown workload `{name}`; workloads: {}",
                    super::names().join(", ")
                )))
            }
        };
        let si = SIZES.iter().position(|s| *s == size).ok_or_else(|| {
            WorkloadError::Invalid(format!(
                "unknown size `{size}`; sizes: {}",
                SIZES.join(", ")
            ))
        })?;
        // (grid blocks, loop iterations) per size.
        let (grid, iterations) = match kind {
            Kind::Stream => [(30, 2), (120, 8), (480, 24)][si],
            Kind::Compute => [(30, 4), (120, 16), (240, 48)][si],
        };
        let info = KernelInfo {
            name: format!("{name}_{size}"),
            grid: Dim3 {
                x: grid,
                y: 1,
                z: 1,
            },
            block: Dim3 {
                x: BLOCK_THREADS,
                y: 1,
                z: 1,
            },
            regs_per_thread: 16,
            shmem_bytes: 0,
            binary_version: 20,
        };
        Ok(Self {
            kind,
            info,
            iterations,
        })
    }

    fn program(&self) -> &'static Program {
        match self.kind {
            Kind::Stream => &STREAM,
            Kind::Compute => &COMPUTE,
        }
    }

    /// Thread instructions of the whole kernel (every lane is active).
    pub fn thread_instructions(&self) -> u64 {
        let p = self.program();
        let per_thread =
            (p.prologue.len() + p.body.len() * self.iterations as usize + p.epilogue.len()) as u64;
        per_thread * self.info.blocks() * BLOCK_THREADS as u64
    }
}

impl KernelSource for Builtin {
    fn info(&self) -> &KernelInfo {
        &self.info
    }

    /// Prologue, body and epilogue in PC order, with their registers; the body's repetition
    /// has no branch instruction (the generator restarts its PC), so there is no branch.
    fn static_code(
        &self,
    ) -> Result<Option<crate::workload::static_code::KernelCode>, WorkloadError> {
        use crate::workload::static_code::{CodeOp, KernelCode};
        let p = self.program();
        let insts = p
            .prologue
            .iter()
            .chain(p.body)
            .chain(p.epilogue)
            .enumerate()
            .map(|(i, o)| CodeOp {
                pc: 8 * i as u64,
                class: o.class,
                target: None,
                addr: None,
                dsts: o.dsts.to_vec(),
                srcs: o.srcs.to_vec(),
                // A memory step's address register is its first source (`LDG R5, [R4]`).
                addr_srcs: u8::from(o.array.is_some() && !o.srcs.is_empty()),
            })
            .collect();
        Ok(Some(KernelCode { insts }))
    }

    fn block(&mut self, id: u64) -> Result<BlockInsts, WorkloadError> {
        self.info.check_block(id)?;
        let block = id as u32;
        let total_threads = self.info.blocks() * BLOCK_THREADS as u64;
        let p = self.program();
        let mut b = BlockInsts {
            id: Dim3 {
                x: block,
                y: 0,
                z: 0,
            },
            ..Default::default()
        };
        let mut addrs = Vec::with_capacity(WARP_SIZE);
        for w in 0..(BLOCK_THREADS as usize / WARP_SIZE) {
            let first_thread = block as u64 * BLOCK_THREADS as u64 + (w * WARP_SIZE) as u64;
            let mut pc = 0u32;
            let mut emit = |b: &mut BlockInsts, o: &Op, pc: u32, iteration: u64| {
                addrs.clear();
                let width = if let Some(base) = o.array {
                    let elem0 = first_thread + iteration * total_threads;
                    addrs.extend((0..WARP_SIZE as u64).map(|l| base + 4 * (elem0 + l)));
                    4
                } else {
                    0
                };
                b.push(w, pc, u32::MAX, o.class, o.dsts, o.srcs, width, &addrs);
            };
            for o in p.prologue {
                emit(&mut b, o, pc, 0);
                pc += 8;
            }
            let body_pc = pc;
            for it in 0..self.iterations as u64 {
                pc = body_pc;
                for o in p.body {
                    emit(&mut b, o, pc, it);
                    pc += 8;
                }
            }
            for o in p.epilogue {
                emit(&mut b, o, pc, 0);
                pc += 8;
            }
        }
        Ok(b)
    }
}

/// The built-in kernel `name` at `size`, as a one-kernel workload.
pub fn workload(name: &str, size: &str) -> Result<SingleKernel, WorkloadError> {
    Ok(SingleKernel::new(Box::new(Builtin::new(name, size)?)))
}
