//! `rtl-out/REPORT.md`: FPGA figures of every module `gen` emits (every block of the registry x
//! policy x preset, in manifest order), the storage of the ELF and NewCAR blocks against the
//! thesis's 1.39 kB budget (spec elf.md §3.1), that of the locality blocks against seed 000's
//! Table 5.2 (spec locality_bypass_paws.md §1.2) and that of the GPU Maestro blocks against
//! seed 003 §5.4.
//!
//! Per module: Yosys `synth_xilinx` (7-series cells: LUTs, flip-flops, CARRY4, MUXF7/8, and the
//! cells on the longest path between flip-flops and ports, see [`synth_xilinx`]) and the logic
//! depth in LUT6 levels (generic `synth`, `abc -fast -lut 6`, `ltp -noff`). Every row names the SHA-256 of the Verilog it was
//! synthesized from, so `gpusched gen --check` can tell, without running Yosys, whether the
//! report still describes `rtl-out/`, and `gpusched gen` re-synthesizes only the modules whose
//! Verilog changed (minutes for the ELF `fermi` module and the 80-SM dispatchers). Its last
//! section, place and route of every module's self-test on its board, is written by `gpusched
//! fpga --all` ([`table`]) and kept here as it is; `gen --check` checks its hashes too.

use crate::emit::Generated;
use crate::fpga::table;
use crate::lint::{lut6_depth, synth_xilinx, GateError, XilinxFigures};
use gpusim::block::preset_of;
use gpusim::blocks::{
    elf, kernel_lrr, la_tb_dispatch as la, locality_degree as laws, newcar, paver_tb, twoway_alloc,
};
use sha2::{Digest, Sha256};
use std::path::Path;

/// File name of the report in `rtl-out/`.
pub const REPORT: &str = "REPORT.md";

/// The modules of the storage section (the thesis's budget covers ELF and NewCAR).
pub const STORAGE_MODULES: [&str; 4] = [
    "elf_base_fermi",
    "elf_base_proto",
    "newcar_base_fermi",
    "newcar_base_proto",
];

/// The modules of the locality storage section (seed 000's Table 5.2).
pub const LOCALITY_MODULES: [&str; 4] = [
    "locality_degree_base_fermi",
    "locality_degree_base_proto",
    "la_tb_dispatch_base_fermi",
    "la_tb_dispatch_base_proto",
];

/// Columns of a figures row: module, hash, LUTs, flip-flops, CARRY4, MUXF7/8, 7-series depth,
/// LUT6 depth, critical path.
const ROW_COLUMNS: usize = 9;

/// Named signals shown of a critical path: the first and last ones when it has more.
const PATH_SHOWN: usize = 10;

/// A critical path as the report writes it: `a > b > c`, elided in the middle when long.
fn path_text(path: &[String]) -> String {
    if path.len() <= PATH_SHOWN {
        return path.join(" > ");
    }
    let head = &path[..PATH_SHOWN / 2];
    let tail = &path[path.len() - (PATH_SHOWN / 2 - 1)..];
    format!("{} > ... > {}", head.join(" > "), tail.join(" > "))
}

/// First 16 hex digits of the SHA-256 of `text`.
pub fn short_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One module's figures row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Module name.
    pub module: String,
    /// Short hash of the Verilog synthesized.
    pub hash: String,
    /// `synth_xilinx` figures.
    pub xilinx: XilinxFigures,
    /// Logic depth in LUT6 levels.
    pub lut6_depth: u64,
}

impl Row {
    fn render(&self) -> String {
        let f = &self.xilinx;
        format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            self.module,
            self.hash,
            f.luts,
            f.ffs,
            f.carry,
            f.muxf,
            f.depth,
            self.lut6_depth,
            path_text(&f.path)
        )
    }
}

/// The figures rows of a report's text (lines of the figures table that parse).
pub fn rows_in(report: &str) -> Vec<Row> {
    crate::fpga::table::before_section(report)
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('|').map(str::trim).collect();
            // "| a | b |" splits into ["", a, b, ""].
            if cols.len() != ROW_COLUMNS + 2 || !cols[2].starts_with('`') {
                return None;
            }
            let n: Vec<u64> = cols[3..ROW_COLUMNS]
                .iter()
                .map(|c| c.parse().ok())
                .collect::<Option<_>>()?;
            Some(Row {
                module: cols[1].to_string(),
                hash: cols[2].trim_matches('`').to_string(),
                xilinx: XilinxFigures {
                    luts: n[0],
                    ffs: n[1],
                    carry: n[2],
                    muxf: n[3],
                    depth: n[4],
                    path: cols[ROW_COLUMNS]
                        .split(" > ")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect(),
                },
                lut6_depth: n[5],
            })
        })
        .collect()
}

/// The figures rows of `dir/REPORT.md` (none when it is missing).
pub fn rows_at(dir: &Path) -> Vec<Row> {
    std::fs::read_to_string(dir.join(REPORT))
        .map(|t| rows_in(&t))
        .unwrap_or_default()
}

/// The row of `rows` made from exactly the Verilog of `module` whose [`short_hash`] is `hash`:
/// its figures stand for that text, and Yosys need not run on it again.
pub fn row_for<'a>(rows: &'a [Row], module: &str, hash: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.module == module && r.hash == hash)
}

/// (module, short hash of its Verilog) of every module `gen` emits, in manifest order.
fn modules(gen: &Generated) -> Vec<(String, String)> {
    gen.manifest
        .modules
        .iter()
        .map(|m| {
            let text = gen
                .files
                .iter()
                .find(|(f, _)| *f == m.file)
                .map(|(_, t)| t.as_str())
                .unwrap_or_default();
            (m.module.clone(), short_hash(text))
        })
        .collect()
}

/// Whether `dir/REPORT.md` was made from the Verilog `gen` produces now and reads as `gen`
/// renders it (`None`: fresh; else why not).
pub fn stale(gen: &Generated, dir: &Path) -> Option<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(REPORT)) else {
        return Some(format!("{REPORT} is missing"));
    };
    let on_disk = rows_in(&text);
    let want = modules(gen);
    for (m, h) in &want {
        match on_disk.iter().find(|r| &r.module == m) {
            Some(r) if &r.hash == h => {}
            Some(_) => return Some(format!("{REPORT} describes an older {m}.v")),
            None => return Some(format!("{REPORT} has no row for {m}")),
        }
    }
    if let Some(r) = on_disk
        .iter()
        .find(|r| !want.iter().any(|(m, _)| *m == r.module))
    {
        return Some(format!(
            "{REPORT} has a row for {}, which gen no longer emits",
            r.module
        ));
    }
    if let Some(why) = table::stale(&text, &fpga_pairs(gen)) {
        return Some(format!("{REPORT}: {why}"));
    }
    // Every row is current: the rest of the text (the storage sections) renders without Yosys.
    match render(gen, dir, &mut |_| {}) {
        Ok(fresh) if fresh == text => None,
        Ok(_) => Some(format!("{REPORT}'s text differs from what gen renders now")),
        Err(e) => Some(format!("{REPORT} does not render: {e}")),
    }
}

/// Storage bits of the ELF block per the thesis's accounting (table 42-bit slots, 8-bit WPT)
/// and the extra state of this RTL: per warp its age row and its two WPT relation rows
/// (below, equal) over its scheduler's warps (the relations of a warp with itself are
/// constant, and synthesis removes those flip-flops), and per scheduler the live mask and the
/// last and pending grants (one-hot).
fn elf_bits(p: &elf::Params) -> (u64, u64) {
    let (n, s, p_) = (p.warps as u64, p.per_sched() as u64, p.slots as u64);
    let thesis = p_ * 42 + n * 8;
    let extra = n * s + 2 * n * (s - 1) + 3 * n;
    (thesis, extra)
}

/// Control bits of NewCAR in this RTL: per slot valid, warp, store and one "blocked by" bit
/// per slot; the service pointer as a round robin's mask of the slots after the last one
/// served (`E - 1` bits: slot 0 is never after another); the occupancy counter
/// (clog2(`E + 1`) bits). The payload stays in the SM.
fn newcar_bits(p: &newcar::Params) -> u64 {
    let e = p.entries as u64;
    let wb = 64 - (p.warps.max(2) as u64 - 1).leading_zeros() as u64;
    let cb = 64 - e.leading_zeros() as u64;
    e * (1 + wb + 1 + e) + (e - 1) + cb
}

/// State bits of one `locality_degree` block (one warp scheduler) as its RTL keeps them: the
/// table's `warps (warps - 1) / 2` 7-bit entries, per warp its access-range vector (5 x 11-bit
/// region fields, 5 x 16-bit subregion masks), age row, 5-bit starvation gap and registered
/// promotion score (clog2(`active` x 80 + 1) bits: the sum over the active group), and the
/// live, active, last and dirty masks.
/// Returns (table + vectors: what the thesis counts, the rest).
fn laws_bits(p: &laws::Params) -> (u64, u64) {
    let n = p.warps as u64;
    let score = 64 - (p.active as u64 * 80).leading_zeros() as u64;
    let thesis_style = n * (n - 1) / 2 * 7 + n * (55 + 80);
    (thesis_style, n * n + n * 5 + n * score + 4 * n)
}

/// State bits of `la_tb_dispatch` as its RTL keeps them after synthesis: per window entry the
/// block id (32), its rectangles (`arrays` x 57), a 24-bit score per SM and their sum and three
/// phase bits; the age matrix (one bit per pair of entries: the mirror bit is its complement and
/// the diagonal is constant); per running slot its rectangles and three bits (occupied, finish
/// pending, to visit); the pipeline (broadcast rectangles, 16-bit overlaps per entry and array,
/// two entry masks, SM masks and signs, three event bits), the kernel counters (3 x 32), the
/// round robin's mask and the SM chosen for the next cycle (`sms` bits each). Returns
/// (rectangles of the window and the running blocks: what the thesis's 15-byte queue entries
/// hold, the rest).
fn la_tb_bits(p: &la::Params) -> (u64, u64) {
    let (s, j, w, a) = (
        p.sms as u64,
        p.slots as u64,
        p.window as u64,
        p.arrays as u64,
    );
    let tot = 24 + (64 - (s - 1).max(1).leading_zeros() as u64);
    let rects = (w + s * j) * a * 57;
    let entry = 32 + s * 24 + tot + 3;
    let age = w * (w - 1) / 2;
    let pipeline = a * 57 + w * a * 16 + 2 * w + 2 * s + 2 + 3;
    (rects, w * entry + age + s * j * 3 + pipeline + 96 + 2 * s)
}

/// Renders the report for the modules of `gen` (written into `dir` first): rows of unchanged
/// Verilog come from the report on disk, the others are synthesized (`progress` names each
/// module before its synthesis).
pub fn render(
    gen: &Generated,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<String, GateError> {
    let old = rows_at(dir);
    let mut rows = vec![];
    for (m, hash) in modules(gen) {
        if let Some(r) = row_for(&old, &m, &hash) {
            rows.push(r.clone());
            continue;
        }
        progress(&m);
        let file = dir.join(format!("{m}.v"));
        rows.push(Row {
            xilinx: synth_xilinx(&file, &m)?,
            lut6_depth: lut6_depth(&file, &m)?,
            module: m,
            hash,
        });
    }
    let mut s = String::new();
    s.push_str("# Hardware figures of the blocks\n\n");
    s.push_str(
        "Generated by `gpusched gen` (do not edit), one row per module in this directory. \
         Yosys `synth_xilinx -flatten` (Xilinx 7-series cells), then `stat`: LUTs, flip-flops, \
         CARRY4, MUXF7/8; then the flip-flops and I/O buffers are deleted and `ltp` gives \
         *7-series depth*, the cells on the longest path between flip-flops and ports, counting \
         LUTs, MUXF7/8, inverters and every CARRY4 of a carry chain (so wide adders and \
         compares read long); the project's bound of 30 per module applies to it. *LUT6 depth*: \
         generic `synth -flatten`, `abc -fast -lut 6`, `ltp -noff`: LUT levels on the longest \
         path, carry logic mapped into LUTs. *Critical path*: the named signals on the \
         7-series longest path, from where it starts (a register's `.q` or an input) to where it \
         ends (a register's `__d` or an output), through the locals and sub-block ports \
         (`inst__port`: the primitive or sub-block it crosses) it passes. The hash is the \
         SHA-256 (first 16 hex digits) of the Verilog synthesized; `gpusched gen --check` fails \
         when it no longer matches.\n\n",
    );
    s.push_str(
        "| module | Verilog sha256 | LUTs | flip-flops | CARRY4 | MUXF7/8 | 7-series depth | LUT6 depth | critical path |\n",
    );
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for r in &rows {
        s.push_str(&r.render());
    }
    s.push_str("\n## Storage against the thesis's budget (1.39 kB per SM, Table 3.3)\n\n");
    s.push_str(
        "The thesis counts the program-point table (32 x 42 bits: valid, branch, 32-bit PC, 8-bit \
         score), the WPT (48 x 8 bits) and NewCAR (32 x 301 bits, entries with their payload): \
         11,360 bits = 1.387 kB. Our ELF block also keeps per-scheduler age matrices (GTO's \
         tie-break), WPT relation matrices (which warps' values each warp's is below and equal \
         to, kept in step with the WPT so that no cycle compares every pair), live masks and \
         the last and pending grants (one-hot); our NewCAR block keeps only control \
         state per slot (valid, warp, load/store and a row of the \"blocked by\" matrix that \
         replaces sequence numbers), a round-robin mask and an occupancy counter, the request payload (line address, byte mask, request \
         id) staying in the SM, as in the thesis's LSU.\n\n",
    );
    s.push_str(
        "| block, preset | thesis-style bits | extra state bits | flip-flops after synthesis |\n",
    );
    s.push_str("|---|---:|---:|---:|\n");
    for r in rows
        .iter()
        .filter(|r| STORAGE_MODULES.contains(&r.module.as_str()))
    {
        let m = &r.module;
        // (thesis-style bits, extra state bits); NewCAR's payload is in the SM.
        let (thesis_style, extra) = match m.as_str() {
            "elf_base_fermi" => elf_bits(&elf::Params::preset(elf::Preset::Fermi)),
            "elf_base_proto" => elf_bits(&elf::Params::preset(elf::Preset::Proto)),
            "newcar_base_fermi" => (
                0,
                newcar_bits(&newcar::Params::preset(newcar::Preset::Fermi)),
            ),
            _ => (
                0,
                newcar_bits(&newcar::Params::preset(newcar::Preset::Proto)),
            ),
        };
        s.push_str(&format!(
            "| {m} | {} | {extra} | {} |\n",
            if thesis_style > 0 {
                thesis_style.to_string()
            } else {
                "(payload in the SM)".into()
            },
            r.xilinx.ffs
        ));
    }
    let (elf_t, elf_x) = elf_bits(&elf::Params::preset(elf::Preset::Fermi));
    let nc = newcar_bits(&newcar::Params::preset(newcar::Preset::Fermi));
    s.push_str(&format!(
        "\nFermi preset, ELF + NewCAR: {elf_t} thesis-style bits + {elf_x} extra + {nc} NewCAR \
         control bits = {} bits = {:.2} kB (1 kB = 1024 B), against the thesis's 1.39 kB of which \
         1.18 kB is NewCAR's 301-bit entries with their payload.\n",
        elf_t + elf_x + nc,
        (elf_t + elf_x + nc) as f64 / 8.0 / 1024.0
    ));
    s.push_str(&locality_storage(&rows));
    s.push_str(&maestro_storage(&rows));
    s.push_str(&paver_storage(&rows));
    // The FPGA section as `gpusched fpga --all` left it (place and route is not re-run here).
    let on_disk = std::fs::read_to_string(dir.join(REPORT)).unwrap_or_default();
    s.push_str(&table::section(
        &table::rows_in(&on_disk),
        &table::expected(&gen.manifest),
    ));
    Ok(s)
}

/// (module, board, [`table::pair_hash`]) of every row the FPGA section must have, from what
/// `gen` produces now.
fn fpga_pairs(gen: &Generated) -> Vec<(String, &'static str, String)> {
    let text = |name: &str, list: &[(String, String)]| {
        list.iter()
            .find(|(f, _)| f == name)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    table::expected(&gen.manifest)
        .into_iter()
        .map(|(m, b, _)| {
            let module = text(&format!("{m}.v"), &gen.files);
            let wrapper = text(&format!("{}/{m}_selftest.v", crate::fpga::DIR), &gen.fpga);
            let hash = table::pair_hash(&module, &wrapper);
            (m, b.name, hash)
        })
        .collect()
}

/// The storage section of the locality blocks (seed 000, Table 5.2).
fn locality_storage(rows: &[Row]) -> String {
    let mut s = String::from(
        "\n## Storage of the locality blocks against seed 000's budget (Table 5.2)\n\n\
         The thesis counts, per SM, the locality degree table (48 x 48 / 2 one-byte entries, \
         9,216 bits), the warps' access-range vectors (48 x 16 B, 6,144 bits) and, per block \
         queue entry, 15 B (5 arrays x start, width, height, 1 B each). Our `locality_degree` \
         is one block per warp scheduler (two per SM): its table holds the pairs of its own \
         warps, the only ones a scheduler reads (R6), in 7-bit entries (the most is 5 x 16 = \
         80), and its vectors keep an 11-bit region field per array (10 bits and a valid bit, \
         the thesis's M = 10) and a 16-bit subregion mask. Our `la_tb_dispatch` keeps the \
         rectangles of its window and of every running block at 57 bits per array (24-bit \
         start column, 16-bit start row, 8-bit width and height, a valid bit: the thesis's \
         1-byte start cannot name a line of a real array, ambiguity A1), and adds what the \
         thesis leaves to serial hardware it does not count: a 24-bit score per (entry, SM), \
         updated one event per cycle instead of recomputed per decision, and the pipeline. \
         *Thesis-style bits* are the bits of the same things at our sizes (table and vectors; \
         rectangles); *extra* is the rest of the state; together they are the flip-flops \
         synthesis keeps.\n\n\
         | block, preset | thesis-style bits | extra state bits | flip-flops after synthesis |\n\
         |---|---:|---:|---:|\n",
    );
    for r in rows
        .iter()
        .filter(|r| LOCALITY_MODULES.contains(&r.module.as_str()))
    {
        let m = r.module.as_str();
        let preset = m.rsplit('_').next().unwrap_or_default();
        let (thesis_style, extra) = if m.starts_with("locality_degree") {
            laws_bits(&preset_of(laws::PRESETS, preset))
        } else {
            la_tb_bits(&preset_of(la::PRESETS, preset))
        };
        s.push_str(&format!(
            "| {m} | {thesis_style} | {extra} | {} |\n",
            r.xilinx.ffs
        ));
    }
    let lp = preset_of(laws::PRESETS, "fermi");
    let (lt, lx) = laws_bits(&lp);
    let dp = preset_of(la::PRESETS, "fermi");
    let (dt, dx) = la_tb_bits(&dp);
    s.push_str(&format!(
        "\nFermi preset, per SM: two `locality_degree` blocks, {} bits = {:.2} kB (1 kB = 1024 \
         B), against the thesis's 2.1 kB (1.1 kB table + 1 kB vectors) for 48 warps. The \
         dispatcher is one per GPU: {} bits = {:.2} kB for a window of {} and {} running \
         blocks, against 15 B x {} = {:.2} kB for as many of the thesis's queue entries.\n",
        2 * (lt + lx),
        2.0 * (lt + lx) as f64 / 8.0 / 1024.0,
        dt + dx,
        (dt + dx) as f64 / 8.0 / 1024.0,
        dp.window,
        dp.sms * dp.slots,
        dp.window + dp.sms * dp.slots,
        (15 * (dp.window + dp.sms * dp.slots)) as f64 / 1024.0
    ));
    s
}

/// The state of the GPU Maestro blocks against the thesis's accounting (§5.4.1-§5.4.3, spec
/// §3.3 "Hardware cost"): per `twoway_alloc` (thesis-style bits, extra bits), per `kernel_lrr`
/// the same against GTO's state for as many warps.
fn maestro_bits(module: &str) -> Option<(u32, u32)> {
    let preset = module.rsplit('_').next().unwrap_or_default();
    if module.starts_with("twoway_alloc") {
        let p = preset_of(twoway_alloc::PRESETS, preset);
        // Per end: the slot bitmap and whether the end is taken (which kernel owns it);
        // ours adds the owner's 16-bit kernel id and the latched 16-bit threads, register rows
        // and shared-memory units of one block (the high-water mark and the bases are
        // combinational from the bitmap).
        return Some((2 * (p.blocks + 1), 2 * (16 + 3 * 16)));
    }
    if module.starts_with("kernel_lrr") {
        let n = preset_of(kernel_lrr::PRESETS, preset).warps as u32;
        // GTO's live mask, last grant and age matrix (n x n), plus the thesis's priority bit;
        // ours keeps a second kernel's last grant (one greedy warp per kernel, REC).
        return Some((n + n + n * n + 1, n));
    }
    None
}

/// The storage section of the GPU Maestro blocks.
fn maestro_storage(rows: &[Row]) -> String {
    let mut s = String::from(
        "\n## Storage of the GPU Maestro blocks against the thesis's budget (seed 003 §5.4)\n\n\
         The thesis gives the partitioning 2 bits per SM for the role (dedicated, trial, \
         follower, spatial), held by the command processor's software (our golden model: 32 \
         bits for the GTX 980's 16 SMs; the epoch decision is software, L1228), the 2-way \
         allocator its slot bitmaps and high-water marks per end, and the kernel-aware LRR one \
         ready bit per kernel (an input: whether a kernel has an eligible warp) and one priority \
         bit on top of GTO. *Thesis-style bits*: per `twoway_alloc` two slot bitmaps and two \
         end-taken bits (our high-water marks and bases are combinational from the bitmaps); \
         per `kernel_lrr` GTO's state for as many warps (live mask, last grant, age matrix) \
         and the priority bit. *Extra*: the owner's 16-bit kernel id and the latched \
         16-bit need (threads, register rows, shared-memory units) per end; the second \
         kernel's last grant (one greedy warp per kernel, a resolution of ours).\n\n\
         | block, preset | thesis-style bits | extra state bits | flip-flops after synthesis |\n\
         |---|---:|---:|---:|\n",
    );
    for r in rows {
        if let Some((t, x)) = maestro_bits(&r.module) {
            s.push_str(&format!(
                "| {} | {t} | {x} | {} |\n",
                r.module, r.xilinx.ffs
            ));
        }
    }
    s
}

/// `paver_tb`'s state against the paper's 18 B per SM and 6 B of stealer (seed 004 L253,
/// L289): (SMs, paper bits, the golden model's architectural state bits) for `module`'s preset.
fn paver_bits(module: &str) -> Option<(usize, usize, usize)> {
    let preset = module.strip_prefix("paver_tb_base_")?;
    let sms = preset_of(paver_tb::PRESETS, preset);
    let state = paver_tb::Golden::new(paver_tb::Params::new(sms));
    let ours = gpusim::block::Inspect::state_specs(&state)
        .iter()
        .map(|p| p.width as usize)
        .sum();
    Some((sms, 8 * (18 * sms + 6), ours))
}

/// The storage section of PAVER's scheduler.
fn paver_storage(rows: &[Row]) -> String {
    let mut s = String::from(
        "\n## Storage of PAVER's scheduler against the paper's budget (seed 004 L253, L289)\n\n\
         The paper gives each SM a 64-bit `next`, a 64-bit `tail` (byte pointers) and a 16-bit \
         `nextTB`, 18 B, and the task stealer 6 B. Ours holds block indices: 16-bit `next`, \
         `tail` and `nextTB` with three flags (`nextTB` valid, a read outstanding, the read is \
         a descriptor) per SM, the group queue's head and count, the round-robin pointers, the \
         kernel's stealer mode, and the stealer's cycle, sum, maximum and donor. *Golden \
         state*: the golden model's architectural state (`Inspect::state_specs`); the \
         synthesized flip-flops add the registered free and done flags, the serial divider \
         and the stolen count. The group tables are in global memory, as in the paper (L246).\n\n\
         | module | SMs | paper bits | golden state bits | flip-flops after synthesis |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for r in rows {
        if let Some((sms, paper, ours)) = paver_bits(&r.module) {
            s.push_str(&format!(
                "| {} | {sms} | {paper} | {ours} | {} |\n",
                r.module, r.xilinx.ffs
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maestro_state_counts_every_flip_flop() {
        // The synthesized flip-flops of rtl-out/REPORT.md: twoway_alloc 146 (fermi) and 194
        // (gtx980), kernel_lrr 649 (fermi) = GTO's 624 + 24 + 1.
        let sum = |m: &str| maestro_bits(m).map(|(t, x)| t + x);
        assert_eq!(sum("twoway_alloc_base_fermi"), Some(146));
        assert_eq!(sum("twoway_alloc_base_gtx980"), Some(194));
        assert_eq!(sum("kernel_lrr_base_fermi"), Some(649));
        assert_eq!(sum("kernel_lrr_base_proto"), Some(89));
        assert_eq!(sum("elf_base_fermi"), None);
    }

    #[test]
    fn paver_state_counts_the_papers_registers_and_ours() {
        // The paper: 270 B at Fermi's 15 SMs, 504 B at 28, 1,440 B at 80 (L253), plus the
        // stealer's 6 B. Ours at 15 SMs: 15 x (3 x 16 + 3) + 32 + 2 x 4 + 3 + 6 + 32 + 4.
        assert_eq!(paver_bits("paver_tb_base_fermi"), Some((15, 8 * 276, 850)));
        assert_eq!(
            paver_bits("paver_tb_base_titanv").map(|b| b.1),
            Some(8 * 1446)
        );
        assert_eq!(paver_bits("kernel_lrr_base_fermi"), None);
    }

    #[test]
    fn the_thesis_budget_counts_as_table_3_3() {
        // 32 x 42 + 48 x 8 = 1728 bits of ELF state in the thesis's accounting.
        let (t, _) = elf_bits(&elf::Params::preset(elf::Preset::Fermi));
        assert_eq!(t, 1344 + 384);
        let n = newcar_bits(&newcar::Params::preset(newcar::Preset::Fermi));
        assert_eq!(n, 32 * (1 + 6 + 1 + 32) + 31 + 6);
    }

    #[test]
    fn rows_parse_back() {
        let row = Row {
            module: "elf_base_fermi".into(),
            hash: "0123456789abcdef".into(),
            xilinx: XilinxFigures {
                luts: 1,
                ffs: 2,
                carry: 3,
                muxf: 4,
                depth: 5,
                path: vec!["last.q".into(), "pick__sel".into(), "grant".into()],
            },
            lut6_depth: 6,
        };
        let text = format!(
            "{}| other | x |\n| elf_base_fermi | 1728 | 1224 | 2952 |\n",
            row.render()
        );
        assert_eq!(rows_in(&text), vec![row.clone()]);
        // A long path is elided in the middle, and renders the same once parsed back.
        let mut long = row;
        long.xilinx.path = (0..14).map(|i| format!("s{i}")).collect();
        let once = long.render();
        assert!(once.contains("s4 > ... > s10"), "{once}");
        assert_eq!(rows_in(&once)[0].render(), once);
    }
}

#[cfg(test)]
mod committed {
    use super::*;

    /// The committed report's text.
    fn committed() -> String {
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../rtl-out")
                .join(REPORT),
        )
        .unwrap()
    }

    /// Every storage row of `modules` in `text` adds up: thesis-style bits (none where the
    /// cell is a parenthesised note, as NewCAR's payload kept in the SM) plus
    /// extra bits equal the flip-flops synthesis kept, and each module has its row.
    fn rows_add_up(text: &str, modules: &[&str]) {
        let mut rows = 0;
        for line in text.lines() {
            let cols: Vec<&str> = line.split('|').map(str::trim).collect();
            if cols.len() == 6 && modules.contains(&cols[1]) {
                let thesis: u64 = if cols[2].starts_with('(') {
                    0
                } else {
                    cols[2].parse().unwrap()
                };
                let extra: u64 = cols[3].parse().unwrap();
                let ffs: u64 = cols[4].parse().unwrap();
                assert_eq!(thesis + extra, ffs, "{line}");
                rows += 1;
            }
        }
        assert_eq!(rows, modules.len());
    }

    #[test]
    fn the_committed_report_counts_every_flip_flop_in_its_storage_accounting() {
        // Synthesis keeps exactly the state bits the accounting names (nothing optimized away,
        // nothing unaccounted).
        rows_add_up(&committed(), &STORAGE_MODULES);
    }

    #[test]
    fn the_locality_storage_accounting_counts_every_flip_flop() {
        let text = committed();
        let section = text
            .split("## Storage of the locality blocks")
            .nth(1)
            .expect("the locality storage section");
        rows_add_up(section, &LOCALITY_MODULES);
    }
}
