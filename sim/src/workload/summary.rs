//! A trace's summary: per kernel, its dimensions, resources, instruction counts and opcode-class
//! mix, read in one streaming pass (`gpusched trace info`).

use super::accelsim::{
    memcpy_bytes, read_kernelslist, Command, KernelTrace, TraceError, TraceInst,
};
use super::sass::{OpClass, OpcodeTable};
use super::Dim3;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Summary of one kernel launch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelSummary {
    /// Mangled name.
    pub name: String,
    /// Launch id.
    pub id: u32,
    /// Grid, blocks `[x, y, z]`.
    pub grid: [u32; 3],
    /// Block, threads `[x, y, z]`.
    pub block: [u32; 3],
    /// Registers per thread.
    pub nregs: u32,
    /// Shared memory per block, bytes.
    pub shmem_bytes: u32,
    /// Thread blocks in the trace.
    pub blocks: u64,
    /// Warp instructions.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes summed).
    pub thread_instructions: u64,
    /// Warp instructions per opcode class.
    pub classes: BTreeMap<String, u64>,
    /// Opcodes not in the classification table (run as integer ALU).
    pub unknown_opcodes: Vec<String>,
}

/// Summary of a trace directory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceSummary {
    /// Host-to-device copies, bytes in total.
    pub memcpy_bytes: u64,
    /// Kernels in launch order.
    pub kernels: Vec<KernelSummary>,
}

fn class_name(c: OpClass) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Reads the whole trace in `dir` once, with the checks of every reader (the kernel list's
/// and [`KernelTrace::read_every_block`]); `progress(blocks_done, blocks_total)` is called
/// after every thread block.
pub fn summarize(
    dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<TraceSummary, TraceError> {
    let commands = read_kernelslist(dir)?;
    let mut kernels = vec![];
    for cmd in &commands {
        if let Command::Kernel { path } = cmd {
            kernels.push(summarize_kernel(path, progress)?);
        }
    }
    Ok(TraceSummary {
        memcpy_bytes: memcpy_bytes(&commands),
        kernels,
    })
}

/// Reads the kernel trace `path` once (see [`summarize`]).
fn summarize_kernel(
    path: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<KernelSummary, TraceError> {
    let mut k = KernelTrace::open(path)?;
    let h = k.header.clone();
    let total = h.grid.volume();
    let mut per_opcode: Vec<u64> = vec![];
    let mut s = KernelSummary {
        name: h.name.clone(),
        id: h.id,
        grid: [h.grid.x, h.grid.y, h.grid.z],
        block: [h.block.x, h.block.y, h.block.z],
        nregs: h.nregs,
        shmem_bytes: h.shmem_bytes,
        blocks: 0,
        warp_instructions: 0,
        thread_instructions: 0,
        classes: BTreeMap::new(),
        unknown_opcodes: vec![],
    };
    // Instruction by instruction, nothing kept: memory stays bounded whatever the blocks'
    // size.
    let mut count = |_: Dim3, _: usize, _: usize, inst: &TraceInst| {
        s.warp_instructions += 1;
        s.thread_instructions += inst.active_threads() as u64;
        let i = inst.opcode as usize;
        if per_opcode.len() <= i {
            per_opcode.resize(i + 1, 0);
        }
        per_opcode[i] += 1;
    };
    let mut done = 0;
    s.blocks = k.read_every_block(0, &mut count, &mut |_| {
        done += 1;
        progress(done, total);
    })?;
    let mut table = OpcodeTable::default();
    table.update(k.opcodes());
    for (id, n) in per_opcode.iter().enumerate() {
        *s.classes
            .entry(class_name(table.class(id as u16)))
            .or_default() += n;
    }
    s.unknown_opcodes = table.unknown().to_vec();
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::kernel::TraceKernel;

    /// A one-kernel trace of one-warp blocks: the blocks `ids` in this order, then `tail`.
    fn trace(dir: &Path, grid: u32, ids: &[u32], tail: &str) -> usize {
        std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
        let header = format!(
            "-kernel name = k\n-kernel id = 1\n-grid dim = ({grid},1,1)\n-block dim = (32,1,1)\n\
             -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
             -accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
        );
        let blocks: String = ids
            .iter()
            .map(|b| {
                format!(
                    "#BEGIN_TB\nthread block = {b},0,0\nwarp = 0\ninsts = 1\n\
                     0000 ffffffff 0 EXIT 0 0\n#END_TB\n"
                )
            })
            .collect();
        std::fs::write(
            dir.join("kernel-1.traceg"),
            format!("{header}{blocks}{tail}"),
        )
        .unwrap();
        header.lines().count() + 1
    }

    /// `trace info` (the summary) and `sim` (the trace kernel, asked for every block in order,
    /// read ahead or not) refuse the same traces with the same message: a block listed twice
    /// (also after the whole grid, where a run used to stop reading), anything after the last
    /// block, a block of the grid not listed.
    #[test]
    fn sim_and_trace_info_refuse_the_same_traces_alike() {
        let dir = tempfile::tempdir().unwrap();
        let twice = |line: usize, b: u32, first: usize| {
            format!(
                "kernel-1.traceg:{line}: thread block ({b},0,0) appears twice in the trace \
                 (first at line {first})"
            )
        };
        // (grid, blocks in file order, what follows them, the error from the first block's line)
        type Case<'a> = (u32, &'a [u32], &'a str, &'a dyn Fn(usize) -> String);
        let cases: [Case; 5] = [
            (1, &[0, 0], "", &|f| twice(f + 6, 0, f)),
            (2, &[1, 1], "", &|f| twice(f + 6, 1, f)),
            (2, &[0, 1, 0], "", &|f| twice(f + 12, 0, f)),
            (1, &[0], "garbage\n", &|f| {
                format!(
                    "kernel-1.traceg:{}: expected `#BEGIN_TB`, found `garbage`",
                    f + 6
                )
            }),
            (2, &[0], "\n", &|f| {
                format!(
                    "kernel-1.traceg:{}: the trace ends without thread block (1,0,0) of the \
                     grid (2,1,1) (1 of 2 blocks listed)",
                    f + 6
                )
            }),
        ];
        for (grid, ids, tail, want) in cases {
            let first = trace(dir.path(), grid, ids, tail);
            let want = want(first);
            let e = summarize(dir.path(), &mut |_, _| {})
                .unwrap_err()
                .to_string();
            assert!(e.ends_with(&want), "{ids:?}: {e}");
            for ahead in [false, true] {
                let path = dir.path().join("kernel-1.traceg");
                let mut k = TraceKernel::open(&path)
                    .unwrap()
                    .with_read_ahead(Some(ahead));
                let e = crate::workload::kernel::count(&mut k)
                    .unwrap_err()
                    .to_string();
                assert!(e.ends_with(&want), "{ids:?} {ahead}: {e}");
            }
        }
        // The trace itself, whole, is read alike.
        trace(dir.path(), 2, &[1, 0], "");
        assert_eq!(
            summarize(dir.path(), &mut |_, _| {}).unwrap().kernels[0].blocks,
            2
        );
    }

    #[test]
    fn matrixmul_summary() {
        let Some(dir) = crate::workload::shared_trace("matrixmul-32-32") else {
            return;
        };
        let mut calls = 0;
        let s = summarize(&dir, &mut |done, total| {
            calls += 1;
            assert!(done <= total);
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert_eq!(s.memcpy_bytes, 8192);
        let k = &s.kernels[0];
        assert_eq!(
            (k.blocks, k.warp_instructions, k.thread_instructions),
            (1, 4416, 139_264)
        );
        assert_eq!((k.block, k.nregs, k.shmem_bytes), ([32, 32, 1], 30, 8192));
        assert_eq!(k.classes.values().sum::<u64>(), 4416);
        assert_eq!(k.classes["load_shared"], 1280);
        assert_eq!(k.classes["barrier"], 64);
        assert!(k.unknown_opcodes.is_empty());
    }
}
