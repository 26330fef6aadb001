//! ELF's compiler side (seed 003 ch. III; `shared/spec/elf.md` §1.2-§1.4, §6): find the
//! program points of a kernel (Algorithm 1), merge them down to the table size (Algorithm 2),
//! and set each branch's recalculation bit. The result is what the program-point table of the
//! `elf` block is loaded with at kernel launch.
//!
//! The kernel is a list of static instructions in PC order ([`Code`]). Distances are counted in
//! instructions along that list. Scores saturate at `max_score` (255 for the 8-bit field),
//! which also means "no load ahead".
//!
//! Choices the thesis leaves open follow the spec's recommendations, each with a switch:
//! * which branches are program points: [`PpBranches::Backward`] (default) or `All`;
//!   an unconditional branch's fall-through is unreachable (scored `max + 1`);
//! * the recalculation bit (A-2, revised): [`RecalcPolicy::Literal`] (default, the thesis's
//!   L508: bit 1 when the taken path has fewer remaining instructions), `Consistent` (bit 0,
//!   recalculate on not-taken, for branches in or merged out of the table; bit 1 for the
//!   others) or `Always` (every branch recalculates);
//! * Algorithm 2: the first program point, if a load, has no predecessor and is
//!   skipped; when no pair qualifies, the branch with the largest score (ties: highest PC),
//!   else the last load, is dropped; [`MergePolicy::Literal`] keeps line 11's in-loop
//!   subtraction, `Clean` applies it to the winner only and prefers absorbing into unmerged
//!   loads.

use std::collections::BTreeMap;

/// What a static instruction is to ELF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A load that counts (global, local, texture; A-9).
    Load,
    /// A branch to instruction index `target`.
    Branch {
        /// Index of the target in the code.
        target: usize,
        /// The branch is always taken (its fall-through is unreachable).
        unconditional: bool,
    },
    /// Anything else.
    Other,
}

/// One static instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInst {
    /// Byte PC.
    pub pc: u64,
    /// What it is.
    pub kind: Kind,
}

/// A kernel's static code in PC order.
pub type Code = Vec<CodeInst>;

/// Which branches become program points (spec A-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PpBranches {
    /// Backward branches only (the thesis's evaluation text).
    Backward,
    /// Every branch (the listing of Algorithm 1).
    All,
}

/// How recalculation bits are set (spec A-2, revised: `Literal` is the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecalcPolicy {
    /// The thesis text (L508): bit 1 (recalculate when taken) when the taken path has fewer
    /// remaining instructions, else bit 0.
    #[default]
    Literal,
    /// Bit 0 (recalculate on not-taken) for branches in the final table or merged out of it,
    /// bit 1 for every other branch: a decrement is exact on the path the score assumed.
    Consistent,
    /// Recalculate on every branch, either direction (for debugging).
    Always,
}

impl RecalcPolicy {
    /// Names, as the command line spells them.
    pub const NAMES: &'static [&'static str] = &["literal", "consistent", "always"];

    /// The policy named `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "literal" => Some(Self::Literal),
            "consistent" => Some(Self::Consistent),
            "always" => Some(Self::Always),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Literal => "literal",
            Self::Consistent => "consistent",
            Self::Always => "always",
        }
    }
}

/// Algorithm 2's variant (spec A-4c, A-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergePolicy {
    /// Line 11's subtraction inside the candidate loop, as listed.
    Literal,
    /// Candidates compared by raw distance; the subtraction applies to the winner only; loads
    /// that already carry a score absorb only when nothing else qualifies.
    Clean,
}

/// Compiler parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Program-point slots (32 in the thesis).
    pub max_pp: usize,
    /// Largest score (255 for 8 bits): saturation and "no load ahead".
    pub max_score: u32,
    /// Which branches are program points.
    pub branches: PpBranches,
    /// Recalculation-bit policy.
    pub recalc: RecalcPolicy,
    /// Algorithm 2 variant.
    pub merge: MergePolicy,
    /// PC bits per distance unit (3: 8-byte steps, as the priority calculator counts).
    pub inst_shift: u32,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            max_pp: 32,
            max_score: 255,
            branches: PpBranches::Backward,
            recalc: RecalcPolicy::Literal,
            merge: MergePolicy::Literal,
            inst_shift: 3,
        }
    }
}

/// One program point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pp {
    /// Index of its instruction in the code.
    pub idx: usize,
    /// Its PC.
    pub pc: u64,
    /// It is a branch (else a load).
    pub branch: bool,
    /// Score: for a branch, the minimum distance to the next load over both paths (counting
    /// the branch); for a load, 0 or the backward offset of a merged-away point.
    pub score: u32,
}

/// The compiler's output for one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// Program points in ascending PC order, at most `max_pp`.
    pub table: Vec<Pp>,
    /// Recalculation bit of every branch, by PC (1: recalculate when taken; 0: when not taken).
    pub recalc: BTreeMap<u64, bool>,
    /// Merges performed (Algorithm 2 runs), each removing one program point: Algorithm 1
    /// found `table.len() + merges`.
    pub merges: usize,
}

/// Distances along the code in the unit the priority calculator counts: PC difference
/// `>> inst_shift`. On contiguous code (8-byte instructions) that is the instruction count; on
/// a trace's reconstructed code it also counts control words and instructions that never ran,
/// as the hardware's PC arithmetic does (issue 18 item 6).
struct Walk {
    /// Per instruction: its PC in units.
    pos: Vec<u64>,
}

impl Walk {
    fn new(code: &Code, inst_shift: u32) -> Self {
        Self {
            pos: code.iter().map(|c| c.pc >> inst_shift).collect(),
        }
    }

    /// Algorithm 1's `get_score`: walks sequentially from `start` to the first program point
    /// and returns the distance plus its score, saturated; `max` if none is ahead.
    fn get_score(&self, pps: &[Pp], start: usize, max: u32) -> u32 {
        // `pps` is sorted by idx: the first one at or after `start`.
        let k = pps.partition_point(|p| p.idx < start);
        match pps.get(k) {
            Some(p) if p.idx < self.pos.len() => {
                let d = self.pos[p.idx].saturating_sub(self.pos[start]);
                u32::try_from(d)
                    .unwrap_or(u32::MAX)
                    .saturating_add(p.score)
                    .min(max)
            }
            _ => max,
        }
    }

    /// The sequential step from instruction `i` to `i + 1` (1 past the end).
    fn step(&self, i: usize) -> u32 {
        match self.pos.get(i + 1) {
            Some(&next) => u32::try_from(next.saturating_sub(self.pos[i]))
                .unwrap_or(u32::MAX)
                .max(1),
            None => 1,
        }
    }

    /// Algorithm 1's fall-through score of the instruction at `i`: the step to `i + 1` plus
    /// `get_score(i + 1)` (saturating).
    fn fall_through(&self, pps: &[Pp], i: usize, max: u32) -> u32 {
        self.get_score(pps, i + 1, max).saturating_add(self.step(i))
    }
}

fn is_pp_branch(code: &Code, i: usize, which: PpBranches) -> Option<(usize, bool)> {
    match code[i].kind {
        Kind::Branch {
            target,
            unconditional,
        } if which == PpBranches::All || target <= i => Some((target, unconditional)),
        _ => None,
    }
}

/// Phases 1-3 of Algorithm 1: seed, fixed point, prune. Returns the program points before
/// merging.
pub fn find_program_points(code: &Code, p: &Params) -> Vec<Pp> {
    let walk = Walk::new(code, p.inst_shift);
    let max = p.max_score;
    let mut pps: Vec<Pp> = code
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c.kind {
            Kind::Load => Some(Pp {
                idx: i,
                pc: c.pc,
                branch: false,
                score: 0,
            }),
            Kind::Branch { .. } if is_pp_branch(code, i, p.branches).is_some() => Some(Pp {
                idx: i,
                pc: c.pc,
                branch: true,
                score: max,
            }),
            _ => None,
        })
        .collect();
    // Phase 2: monotone fixed point.
    loop {
        let mut changed = false;
        for k in 0..pps.len() {
            if !pps[k].branch {
                continue;
            }
            let (target, uncond) = is_pp_branch(code, pps[k].idx, p.branches).expect("a PP branch");
            let ns = if uncond {
                max + 1
            } else {
                walk.fall_through(&pps, pps[k].idx, max)
            };
            let ts = walk.get_score(&pps, target, max) + 1;
            let m = ns.min(ts);
            if m < pps[k].score {
                pps[k].score = m;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Phase 3: prune branches with no load ahead or whose fall-through is already minimal,
    // each judged against the set before any removal.
    let before = pps.clone();
    pps.retain(|b| {
        if !b.branch {
            return true;
        }
        let ft = walk.fall_through(&before, b.idx, max);
        !(b.score == max || b.score == ft)
    });
    pps
}

/// One run of Algorithm 2 (with the spec's fallback when no pair qualifies). Returns the PC
/// of the removed program point.
fn merge(pps: &mut Vec<Pp>, walk: &Walk, p: &Params) -> u64 {
    let max = p.max_score;
    let mut min_d = max;
    let mut best: Option<(usize, u32)> = None; // (index of the absorbing load, its new score)
    for pass in 0..2 {
        for j in 1..pps.len() {
            let (cur_pp, prev) = (pps[j], pps[j - 1]);
            if cur_pp.branch {
                continue;
            }
            if p.merge == MergePolicy::Clean && pass == 0 && cur_pp.score != 0 {
                continue;
            }
            let cur = walk.fall_through(pps, prev.idx, max);
            match p.merge {
                MergePolicy::Literal => {
                    if cur < min_d {
                        min_d = cur;
                        if prev.branch {
                            min_d -= prev.score.min(min_d);
                        }
                        best = Some((j, min_d));
                    }
                }
                MergePolicy::Clean => {
                    let raw = u32::try_from(walk.pos[cur_pp.idx] - walk.pos[prev.idx])
                        .unwrap_or(u32::MAX);
                    if raw < min_d {
                        min_d = raw;
                        let s = if prev.branch {
                            cur.saturating_sub(prev.score)
                        } else {
                            cur
                        };
                        best = Some((j, s));
                    }
                }
            }
        }
        if best.is_some() || p.merge == MergePolicy::Literal {
            break;
        }
    }
    match best {
        Some((j, score)) => {
            pps[j].score = score.clamp(1, max - 1);
            pps.remove(j - 1).pc
        }
        None => {
            // Fallback (A-4b): the branch with the largest score (ties: highest PC), else the
            // load with the highest PC.
            let k = pps
                .iter()
                .enumerate()
                .filter(|(_, q)| q.branch)
                .max_by_key(|(_, q)| (q.score, q.idx))
                .map(|(k, _)| k)
                .unwrap_or(pps.len() - 1);
            pps.remove(k).pc
        }
    }
}

/// Algorithms 1 and 2 and the recalculation bits.
pub fn compile(code: &Code, p: &Params) -> Compiled {
    assert!(
        p.max_pp >= 1 && p.max_score >= 2,
        "at least one slot, scores of 2 or more"
    );
    let walk = Walk::new(code, p.inst_shift);
    let mut table = find_program_points(code, p);
    let mut merged_away: Vec<u64> = vec![];
    let mut merges = 0;
    while table.len() > p.max_pp {
        merged_away.push(merge(&mut table, &walk, p));
        merges += 1;
    }
    let mut recalc = BTreeMap::new();
    for (i, c) in code.iter().enumerate() {
        let Kind::Branch {
            target,
            unconditional,
        } = c.kind
        else {
            continue;
        };
        let bit = match p.recalc {
            RecalcPolicy::Always => true,
            RecalcPolicy::Consistent => {
                let in_table = table.iter().any(|q| q.pc == c.pc);
                !(in_table || merged_away.contains(&c.pc))
            }
            RecalcPolicy::Literal => {
                // Literal L508: set when the taken path has fewer remaining instructions.
                let final_pps = &table;
                let ft = if unconditional {
                    p.max_score + 1
                } else {
                    walk.fall_through(final_pps, i, p.max_score)
                };
                let tk = walk.get_score(final_pps, target, p.max_score) + 1;
                tk < ft
            }
        };
        recalc.insert(c.pc, bit);
    }
    Compiled {
        table,
        recalc,
        merges,
    }
}

/// The priority of a warp whose next instruction is at `pc`, from a compiled table: the `elf`
/// block's calculator ([`crate::blocks::elf::calc`], spec §1.6) on the table as it is loaded.
/// `inst_shift` converts PC differences to instructions (3 for 8-byte instructions);
/// `merge_ge` selects `d >= s` or the literal `d > s`.
pub fn priority(table: &[Pp], pc: u64, inst_shift: u32, max: u32, merge_ge: bool) -> u32 {
    debug_assert_eq!(max, crate::blocks::elf::MAX_PRIO as u32, "8-bit scores");
    let t: Vec<crate::blocks::elf::PpEntry> = table
        .iter()
        .map(|q| crate::blocks::elf::PpEntry {
            valid: true,
            branch: q.branch,
            pc: q.pc as u32,
            score: q.score.min(255) as u8,
        })
        .collect();
    crate::blocks::elf::calc(&t, pc as u32, inst_shift, merge_ge).prio as u32
}

/// ELF's view of a kernel's static code: global and local loads are program-point loads,
/// instructions with a known branch target are branches, everything else is plain. On traces
/// the code holds the executed instructions only ([`KernelCode::of_trace`]), so distances count
/// executed static instructions; on Maxwell/Pascal code the PCs also skip one control word in
/// four, which the hardware's PC-difference distance counts and this list does not.
///
/// [`KernelCode::of_trace`]: crate::workload::static_code::KernelCode::of_trace
pub fn code_of(code: &crate::workload::static_code::KernelCode) -> Code {
    use crate::workload::sass::OpClass;
    code.insts
        .iter()
        .map(|op| CodeInst {
            pc: op.pc,
            kind: match (op.class, op.target) {
                (OpClass::LoadGlobal | OpClass::LoadLocal, _) => Kind::Load,
                (_, Some(target)) => Kind::Branch {
                    target,
                    unconditional: false,
                },
                _ => Kind::Other,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests;
