//! A trace's summary: per kernel, its dimensions, resources, instruction counts and opcode-class
//! mix, read in one streaming pass (`gpusched trace info`).

use super::accelsim::{read_kernelslist, Command, KernelTrace, TraceError, TraceInst};
use super::sass::{OpClass, OpcodeTable};
use super::Dim3;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
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

/// Reads the whole trace in `dir` once; `progress(blocks_done, blocks_total)` is called after
/// every thread block.
pub fn summarize(
    dir: &Path,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<TraceSummary, TraceError> {
    let mut out = TraceSummary {
        memcpy_bytes: 0,
        kernels: vec![],
    };
    for cmd in read_kernelslist(dir)? {
        let path = match cmd {
            Command::MemcpyHtoD { bytes, .. } => {
                out.memcpy_bytes += bytes;
                continue;
            }
            Command::Kernel { path } => path,
        };
        let mut k = KernelTrace::open(&path)?;
        let h = k.header.clone();
        let grid = [h.grid.x, h.grid.y, h.grid.z];
        let block = [h.block.x, h.block.y, h.block.z];
        let total = h.grid.volume();
        let mut per_opcode: Vec<u64> = vec![];
        let mut s = KernelSummary {
            name: h.name.clone(),
            id: h.id,
            grid,
            block,
            nregs: h.nregs,
            shmem_bytes: h.shmem_bytes,
            blocks: 0,
            warp_instructions: 0,
            thread_instructions: 0,
            classes: BTreeMap::new(),
            unknown_opcodes: vec![],
        };
        // A block listed twice is an error, as in `sim` (the trace kernel's index).
        let mut lines: HashMap<u64, usize> = HashMap::new();
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
        let mut blocks = 0;
        while let Some(tb) = k.next_block_bounded(0, &mut count)? {
            if let Some(first) = lines.insert(h.grid.linear(tb.id()), tb.line()) {
                return Err(TraceError::Invalid {
                    file: path.clone(),
                    line: tb.line(),
                    message: format!(
                        "thread block {} appears twice in the trace (first at line {first})",
                        tb.id()
                    ),
                });
            }
            blocks += 1;
            progress(blocks, total);
        }
        s.blocks = blocks;
        let mut table = OpcodeTable::default();
        table.update(k.opcodes());
        for (id, n) in per_opcode.iter().enumerate() {
            *s.classes
                .entry(class_name(table.class(id as u16)))
                .or_default() += n;
        }
        s.unknown_opcodes = table.unknown().to_vec();
        out.kernels.push(s);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_block_listed_twice_is_an_error_as_in_sim() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
        let header =
            "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (32,1,1)\n\
            -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
            -accelsim tracer version = 4\n-enable lineinfo = 0\n\n";
        let block = "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n";
        std::fs::write(
            dir.path().join("kernel-1.traceg"),
            format!("{header}{block}{block}"),
        )
        .unwrap();
        let e = summarize(dir.path(), &mut |_, _| {})
            .unwrap_err()
            .to_string();
        let first = header.lines().count() + 1;
        assert!(
            e.ends_with(&format!(
                "kernel-1.traceg:{}: thread block (1,0,0) appears twice in the trace (first at line {first})",
                first + 6
            )),
            "{e}"
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
