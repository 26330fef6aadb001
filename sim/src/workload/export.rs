//! Writes any workload as an Accel-Sim trace directory: `kernelslist.g` and one
//! `kernel-N.traceg` per kernel (or `kernel-N.traceg.xz`, [`export_with`]), tracer version 4 text, SASS-like opcode names (one per unit
//! class, so reading the trace back classifies every instruction as it was).
//!
//! Addresses use `base_stride` compression (mode 1) when the active lanes are evenly spaced
//! and `list_all` (mode 0) otherwise. Reading the files back with
//! [`crate::workload::kernel::TraceWorkload`] gives the same instruction streams.

use super::compressed::TraceWriter;
use super::kernel::{BlockInsts, KernelInfo, WorkloadError, WorkloadSource};
use super::sass::{pc_of_slot, slot_of_pc, OpClass};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The opcode written for an instruction class (its class when read back is the same).
pub fn opcode_name(class: OpClass) -> &'static str {
    match class {
        OpClass::IntAlu => "IADD",
        OpClass::IntMul => "IMAD",
        OpClass::Fp => "FFMA",
        OpClass::Dp => "DFMA",
        OpClass::Sfu => "MUFU.RSQ",
        OpClass::LoadGlobal => "LDG.E",
        OpClass::StoreGlobal => "STG.E",
        OpClass::LoadShared => "LDS",
        OpClass::StoreShared => "STS",
        OpClass::LoadLocal => "LDL",
        OpClass::StoreLocal => "STL",
        OpClass::LoadConst => "LDC",
        OpClass::AtomicGlobal => "ATOMG.ADD",
        OpClass::AtomicShared => "ATOMS.ADD",
        OpClass::Branch => "BRA",
        OpClass::Barrier => "BAR.SYNC",
        OpClass::MemBarrier => "MEMBAR.CTA",
        OpClass::Exit => "EXIT",
        OpClass::Nop => "NOP",
    }
}

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Files written (kernelslist.g first).
    pub files: Vec<PathBuf>,
    /// Thread blocks written.
    pub blocks: u64,
    /// Warp instructions written.
    pub warp_instructions: u64,
    /// Bytes of trace text written (before any compression).
    pub bytes: u64,
}

fn io(path: &Path, e: std::io::Error) -> WorkloadError {
    WorkloadError::Invalid(format!("{}: {e}", path.display()))
}

fn header(info: &KernelInfo, id: usize) -> String {
    let d = |x: &super::Dim3| format!("({},{},{})", x.x, x.y, x.z);
    format!(
        "-kernel name = {}\n-kernel id = {id}\n-grid dim = {}\n-block dim = {}\n-shmem = {}\n\
         -nregs = {}\n-binary version = {}\n-cuda stream id = 0\n\
         -shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0100000000\n\
         -nvbit version = gpusched\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n\
         #traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width \
         [adrrescompress?] [mem_addresses]\n\n",
        info.name,
        d(&info.grid),
        d(&info.block),
        info.shmem_bytes,
        info.regs_per_thread,
        info.binary_version
    )
}

/// SASS binary versions `trace export` writes: 20 (Fermi, the layout of the built-in and
/// suite kernels) and 60, 61 (Pascal: Accel-Sim's trace front end accepts them, and its Pascal
/// opcode map holds every opcode the export writes; it rejects 20).
pub const BINARY_VERSIONS: [u32; 3] = [20, 60, 61];

/// Appends one thread block in trace text to `out`.
pub fn write_block(b: &BlockInsts, out: &mut String) {
    write_block_at(b, out, &|pc| pc)
}

/// Appends one thread block in trace text to `out`, each PC written as `pc` maps it.
fn write_block_at(b: &BlockInsts, out: &mut String, pc: &dyn Fn(u32) -> u32) {
    let _ = writeln!(
        out,
        "#BEGIN_TB\n\nthread block = {},{},{}\n",
        b.id.x, b.id.y, b.id.z
    );
    for (w, insts) in b.warps.iter().enumerate() {
        let _ = writeln!(out, "warp = {w}\ninsts = {}", insts.len());
        for i in insts {
            let _ = write!(out, "{:04x} {:08x} {}", pc(i.pc), i.mask, i.ndst);
            for r in b.dsts(i) {
                let _ = write!(out, " R{r}");
            }
            let _ = write!(out, " {}", opcode_name(i.class));
            if let Some(m) = i.cache.modifier() {
                let _ = write!(out, ".{m}");
            }
            let _ = write!(out, " {}", i.nsrc);
            for r in b.srcs(i) {
                let _ = write!(out, " R{r}");
            }
            let _ = write!(out, " {}", i.width);
            let a = b.addrs(i).to_vec();
            if i.width > 0 {
                let stride = (a.len() >= 2).then(|| a[1].wrapping_sub(a[0]) as i64);
                let even = stride
                    .is_some_and(|s| a.windows(2).all(|p| p[1].wrapping_sub(p[0]) as i64 == s));
                match (even, stride) {
                    (true, Some(s)) => {
                        let _ = write!(out, " 1 0x{:016x} {s}", a[0]);
                    }
                    _ if a.len() == 1 => {
                        let _ = write!(out, " 1 0x{:016x} 0", a[0]);
                    }
                    _ => {
                        let _ = write!(out, " 0");
                        for x in &a {
                            let _ = write!(out, " 0x{x:016x}");
                        }
                    }
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str("#END_TB\n\n");
}

/// Writes every kernel of `workload` into `dir` (created if needed); `progress` gets the
/// blocks written so far.
pub fn export(
    workload: &mut dyn WorkloadSource,
    dir: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<ExportSummary, WorkloadError> {
    export_as(workload, dir, None, progress)
}

/// As [`export`], declaring SASS binary version `version` (one of [`BINARY_VERSIONS`]; `None`:
/// each kernel's own): every PC is moved to the same instruction slot in that version's code
/// layout ([`super::sass::pc_of_slot`]: Pascal's control words, for instance), so the static
/// code read back is the same program. The instruction addresses the L1I sees change with the
/// layout.
pub fn export_as(
    workload: &mut dyn WorkloadSource,
    dir: &Path,
    version: Option<u32>,
    progress: &mut dyn FnMut(u64),
) -> Result<ExportSummary, WorkloadError> {
    export_with(workload, dir, version, None, progress)
}

/// As [`export_as`], writing each kernel as `kernel-N.traceg.xz` (xz preset `xz_level`, 0-9)
/// when `xz_level` is given, as Accel-Sim's tracer does since 2025.
pub fn export_with(
    workload: &mut dyn WorkloadSource,
    dir: &Path,
    version: Option<u32>,
    xz_level: Option<u32>,
    progress: &mut dyn FnMut(u64),
) -> Result<ExportSummary, WorkloadError> {
    if let Some(l) = xz_level.filter(|&l| l > 9) {
        return Err(WorkloadError::Invalid(format!(
            "xz level {l}: the presets are 0 (fastest) to 9 (smallest)"
        )));
    }
    if let Some(v) = version.filter(|v| !BINARY_VERSIONS.contains(v)) {
        return Err(WorkloadError::Invalid(format!(
            "binary version {v} is not one the export writes ({BINARY_VERSIONS:?}: 20 is Fermi's \
             layout, 60 and 61 are Pascal's, which Accel-Sim accepts)"
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut s = ExportSummary::default();
    let mut list = String::new();
    let mut id = 0;
    while let Some(mut k) = workload.next_kernel()? {
        id += 1;
        let xz = if xz_level.is_some() { ".xz" } else { "" };
        let name = format!("kernel-{id}.traceg{xz}");
        let path = dir.join(&name);
        let mut w = TraceWriter::create(&path, xz_level).map_err(|e| io(&path, e))?;
        let from = k.info().binary_version;
        let to = version.unwrap_or(from);
        let mut info = k.info().clone();
        info.binary_version = to;
        let bad_pc = std::cell::Cell::new(None);
        let map = |pc: u32| -> u32 {
            if from == to {
                return pc;
            }
            match slot_of_pc(pc as u64, from).map(|s| pc_of_slot(s, to)) {
                Some(p) if p <= u32::MAX as u64 => p as u32,
                _ => {
                    bad_pc.set(Some(pc));
                    pc
                }
            }
        };
        let mut text = header(&info, id);
        for bid in 0..k.info().blocks() {
            let b = k.block(bid)?;
            write_block_at(&b, &mut text, &map);
            if let Some(pc) = bad_pc.get() {
                return Err(WorkloadError::Invalid(format!(
                    "{}: PC {pc:#x} is not an instruction's in binary version {from}'s code \
                     layout, so it has no place in version {to}'s",
                    info.name
                )));
            }
            s.blocks += 1;
            s.warp_instructions += b.warp_instructions();
            s.bytes += text.len() as u64;
            w.write_all(text.as_bytes()).map_err(|e| io(&path, e))?;
            text.clear();
            progress(s.blocks);
        }
        s.bytes += text.len() as u64;
        w.write_all(text.as_bytes()).map_err(|e| io(&path, e))?;
        w.finish().map_err(|e| io(&path, e))?;
        let _ = writeln!(list, "{name}");
        s.files.push(path);
    }
    let path = dir.join("kernelslist.g");
    std::fs::write(&path, &list).map_err(|e| io(&path, e))?;
    s.bytes += list.len() as u64;
    s.files.insert(0, path);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;
    use crate::gpu::{Gpu, SimOptions};
    use crate::workload::kernel::{KernelSource, TraceWorkload, WarpInst};
    use crate::workload::open_named;

    type Canon = (u32, u32, OpClass, u8, Vec<u16>, Vec<u16>, Vec<u64>);

    fn canon(b: &BlockInsts, i: &WarpInst) -> Canon {
        (
            i.pc,
            i.mask,
            i.class,
            i.width,
            b.dsts(i).to_vec(),
            b.srcs(i).to_vec(),
            b.addrs(i).to_vec(),
        )
    }

    fn blocks(k: &mut dyn KernelSource) -> Vec<(crate::workload::Dim3, Vec<Vec<Canon>>)> {
        let mut v = vec![];
        for id in 0..k.info().blocks() {
            let b = k.block(id).unwrap();
            let warps = b
                .warps
                .iter()
                .map(|w| w.iter().map(|i| canon(&b, i)).collect())
                .collect();
            v.push((b.id, warps));
        }
        v
    }

    fn report_json(w: &mut dyn WorkloadSource) -> serde_json::Value {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
        let mut v = serde_json::to_value(gpu.run(w, &mut |_| {}).unwrap()).unwrap();
        v["workload"] = serde_json::Value::Null;
        v
    }

    /// Exported as binary version 61, a kernel declares a version Accel-Sim accepts, and reads
    /// back as the same instruction stream with every PC moved to the same instruction slot of
    /// Pascal's layout (control words skipped); a version the export does not write is an
    /// error.
    #[test]
    fn an_export_as_pascal_moves_every_pc_to_its_slot() {
        let dir = tempfile::tempdir().unwrap();
        let (fermi, pascal) = (dir.path().join("20"), dir.path().join("61"));
        for (d, v) in [(&fermi, None), (&pascal, Some(61))] {
            let mut w = open_named("lud", "small").unwrap();
            export_as(&mut *w, d, v, &mut |_| {}).unwrap();
        }
        let header = std::fs::read_to_string(pascal.join("kernel-1.traceg")).unwrap();
        assert!(header.contains("\n-binary version = 61\n"));
        // The versions Accel-Sim's trace front end accepts.
        assert!([35, 60, 61, 70, 75, 80, 86].contains(&61));
        let open = |d: &Path| {
            let mut w = TraceWorkload::open(d).unwrap();
            let mut k = w.next_kernel().unwrap().unwrap();
            (k.info().binary_version, blocks(&mut *k))
        };
        let ((v20, b20), (v61, b61)) = (open(&fermi), open(&pascal));
        assert_eq!((v20, v61), (20, 61));
        assert_eq!(b20.len(), b61.len());
        let mut n = 0;
        for ((id20, w20), (id61, w61)) in b20.iter().zip(&b61) {
            assert_eq!(id20, id61);
            for (a, b) in w20.iter().flatten().zip(w61.iter().flatten()) {
                let slot = slot_of_pc(a.0 as u64, 20).unwrap();
                assert_eq!(b.0 as u64, pc_of_slot(slot, 61));
                assert_eq!(
                    (a.1, a.2, a.3, &a.4, &a.5, &a.6),
                    (b.1, b.2, b.3, &b.4, &b.5, &b.6)
                );
                n += 1;
            }
        }
        assert!(n > 1000);
        let mut w = open_named("lud", "small").unwrap();
        let e = export_as(&mut *w, &dir.path().join("70"), Some(70), &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("binary version 70"), "{e}");
    }

    #[test]
    fn synthetic_kernels_survive_the_trace_round_trip_bit_for_bit() {
        // Irregular addresses (list_all), strided ones (base_stride), shared memory, atomics,
        // divergence, partial warps, 2-D grids, and a built-in kernel.
        for name in ["bfs", "his", "nw", "mm", "tran", "spmv", "stream"] {
            let dir = tempfile::tempdir().unwrap();
            let s = export(
                &mut *open_named(name, "small").unwrap(),
                dir.path(),
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(s.files.len(), 2, "{name}");
            let mut direct = open_named(name, "small").unwrap();
            let mut traced = TraceWorkload::open(dir.path()).unwrap();
            let (mut a, mut b) = (
                direct.next_kernel().unwrap().unwrap(),
                traced.next_kernel().unwrap().unwrap(),
            );
            assert_eq!(a.info(), b.info(), "{name}: header");
            let (ba, bb) = (blocks(a.as_mut()), blocks(b.as_mut()));
            assert_eq!(ba.len() as u64, s.blocks);
            assert!(ba == bb, "{name}: instruction streams differ");
            assert!(traced.next_kernel().unwrap().is_none());
            let direct = report_json(&mut *open_named(name, "small").unwrap());
            let traced = report_json(&mut TraceWorkload::open(dir.path()).unwrap());
            assert_eq!(direct, traced, "{name}: simulation");
        }
    }

    /// The exported trace of `name` (small) and its kernel file.
    fn exported(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        export(
            &mut *open_named(name, "small").unwrap(),
            dir.path(),
            &mut |_| {},
        )
        .unwrap();
        let file = dir.path().join("kernel-1.traceg");
        (dir, file)
    }

    /// `text`'s thread blocks (from the first `#BEGIN_TB`) split off its header.
    fn split_blocks(text: &str) -> (&str, Vec<&str>) {
        let first = text.find("#BEGIN_TB").unwrap();
        let blocks = text[first..]
            .split_inclusive("#END_TB\n")
            .filter(|b| !b.trim().is_empty())
            .collect();
        (&text[..first], blocks)
    }

    #[test]
    fn trace_blocks_are_taken_by_id_in_any_order_and_in_any_file_order() {
        let (_dir, file) = exported("mm");
        let mut direct = open_named("mm", "small")
            .unwrap()
            .next_kernel()
            .unwrap()
            .unwrap();
        let n = direct.info().blocks();
        assert!(n >= 8, "{n} blocks");
        let want: Vec<_> = (0..n).map(|id| direct.block(id).unwrap()).collect();
        // Backwards, then forwards again (seeks over the index, then streams).
        let mut k = super::super::kernel::TraceKernel::open(&file).unwrap();
        for id in (0..n).rev().chain(0..n) {
            assert_eq!(k.block(id).unwrap(), want[id as usize], "block {id}");
        }
        // The same blocks written in reverse order read back by id.
        let text = std::fs::read_to_string(&file).unwrap();
        let (head, blocks) = split_blocks(&text);
        assert_eq!(blocks.len() as u64, n);
        let reversed: String = blocks.iter().rev().copied().collect();
        std::fs::write(&file, format!("{head}{reversed}")).unwrap();
        let mut k = super::super::kernel::TraceKernel::open(&file).unwrap();
        for id in 0..n {
            assert_eq!(
                k.block(id).unwrap(),
                want[id as usize],
                "block {id}, reversed file"
            );
        }
    }

    #[test]
    fn a_thread_block_listed_twice_is_an_error_naming_its_line() {
        let (_dir, file) = exported("mm");
        let text = std::fs::read_to_string(&file).unwrap();
        let (head, blocks) = split_blocks(&text);
        // Block 0 again in place of the last block.
        let mut dup: Vec<&str> = blocks[..blocks.len() - 1].to_vec();
        dup.push(blocks[0]);
        let dup = dup.concat();
        std::fs::write(&file, format!("{head}{dup}")).unwrap();
        let line =
            head.lines().count() + dup[..dup.rfind("#BEGIN_TB").unwrap()].lines().count() + 1;
        let first = head.lines().count() + 1;
        let mut k = super::super::kernel::TraceKernel::open(&file).unwrap();
        let last = blocks.len() as u64 - 1;
        let e = k.block(last).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!(
                "kernel-1.traceg:{line}: thread block (0,0,0) appears twice in the trace \
                 (first at line {first})"
            )),
            "{e}"
        );
    }

    #[test]
    fn every_class_has_an_opcode_that_reads_back_as_itself() {
        use crate::workload::sass::classify;
        for c in OpClass::ALL {
            assert_eq!(classify(opcode_name(c)), Some(c));
        }
    }
}
