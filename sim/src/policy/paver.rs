//! PAVER's thread-block scheduling (seed 004; `--tb-sched mst-ts|kway-ts|rb-ts`): before a
//! kernel's first block the JIT pass ([`crate::analysis::paver`]) builds its locality graph and
//! groups its blocks; the `paver_tb` block hands the groups to the SMs and steals at the end.
//! The unit holds the group tables as the kernel's global memory would and answers the block's
//! reads after `--paver-fetch-lat` cycles; the reads are not cache traffic (V-R6).

use super::{RegressOn, RegressRun};
use super::{OptError, OptSpec, OptValues, PolicyEntry, SiteKind, SitePolicy, TbDispatchPolicy};
use crate::analysis::paver::{self, Granularity, LeafRule, Scheme, Schedule};
use crate::block::BlockKind;
use crate::blocks::paver_tb::{self, PaverIn, Steal};
use crate::blocks::DynProvider;
use crate::config::GpuConfig;
use crate::gpu::kernel::{KernelCtx, Prepared};
use crate::gpu::sites::dispatch::{DispatchIn, DispatchUnit, Grant};
use crate::gpu::sites::{Site, Slot};
use crate::gpu::SimError;
use crate::workload::kernel::KernelSource;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

const NO_STEAL: OptSpec = OptSpec::flag(
    "no-steal",
    "PAVER without its task stealer (the paper's no-stealing comparison, L340)",
);
const STEAL: OptSpec = OptSpec::value(
    "paver-steal",
    "MODE",
    "literal",
    "PAVER's stolen count: literal (Algorithm 2: max - average waiting blocks) or clamp (at \
     most max - 1: the donor keeps its next block; the spec's variant)",
)
.one_of(&["literal", "clamp"]);
const RECIPIENT: OptSpec = OptSpec::value(
    "paver-recipient",
    "RULE",
    "free",
    "Which SMs receive stolen blocks: free (an exhausted SM with room for a block, L285) or \
     idle (an exhausted SM holding no block, L52)",
)
.one_of(&["free", "idle"]);
const GRANULARITY: OptSpec = OptSpec::value(
    "paver-granularity",
    "UNIT",
    "word",
    "What one shared element of the locality graph is: word (4 bytes, the paper's element \
     sets) or line (128 bytes)",
)
.one_of(Granularity::NAMES);
const LEAF: OptSpec = OptSpec::value(
    "paver-leaf",
    "RULE",
    "below",
    "RB-TS's leaves: below (a part smaller than the blocks an SM holds, Algorithm 1) or \
     at-most (a part of at most that many)",
)
.one_of(&["below", "at-most"]);
const FETCH_LAT: OptSpec = OptSpec::value(
    "paver-fetch-lat",
    "CYCLES",
    "1",
    "Cycles a read of PAVER's group tables takes (the next block, a group's bounds; 1: the \
     paper's background fetch, L255)",
);

/// `mst-ts`, `kway-ts` and `rb-ts`.
pub const ENTRIES: &[&PolicyEntry] = &[&MST, &KWAY, &RB];

static MST: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "mst-ts",
    summary: "PAVER MST-TS: blocks in the order of the locality graph's maximum spanning tree, \
              a group of x per SM then one at a time (no stealing)",
    blocks: &[<paver_tb::Kind as BlockKind>::NAME],
    options: &[GRANULARITY, FETCH_LAT],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(RegressOn::Kernels, "+mst_ts", "--tb-sched mst-ts")],
    parse: |v| parse(v, Scheme::Mst, &MST),
};

static KWAY: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "kway-ts",
    summary: "PAVER kway-TS: METIS k-way partition of the locality graph, a part per SM, task \
              stealing at the end",
    blocks: &[<paver_tb::Kind as BlockKind>::NAME],
    options: &[NO_STEAL, STEAL, RECIPIENT, GRANULARITY, FETCH_LAT],
    flag: None,
    implies: &[],
    regress: &[],
    parse: |v| parse(v, Scheme::Kway, &KWAY),
};

static RB: PolicyEntry = PolicyEntry {
    site: SiteKind::TbDispatch,
    name: "rb-ts",
    summary: "PAVER RB-TS: recursive METIS bisection into groups smaller than an SM holds, \
              handed out round robin, task stealing at the end",
    blocks: &[<paver_tb::Kind as BlockKind>::NAME],
    options: &[NO_STEAL, STEAL, RECIPIENT, GRANULARITY, LEAF, FETCH_LAT],
    flag: None,
    implies: &[],
    regress: &[RegressRun::new(RegressOn::Kernels, "+rb_ts", "--tb-sched rb-ts")],
    parse: |v| parse(v, Scheme::Rb, &RB),
};

fn parse(v: &OptValues, scheme: Scheme, entry: &'static PolicyEntry) -> Result<SitePolicy, OptError> {
    let takes = |o: &OptSpec| entry.options.iter().any(|e| e.name == o.name);
    let steal = if scheme == Scheme::Mst || v.flag(&NO_STEAL)? {
        Steal::Off
    } else {
        Steal::from_name(v.raw(&STEAL)?).expect("one of its names")
    };
    Ok(SitePolicy::TbDispatch(Arc::new(Paver {
        entry,
        scheme,
        steal,
        recipient_idle: takes(&RECIPIENT) && v.raw(&RECIPIENT)? == "idle",
        granularity: Granularity::from_name(v.raw(&GRANULARITY)?).expect("one of its names"),
        leaf: match takes(&LEAF).then(|| v.raw(&LEAF)).transpose()? {
            Some("at-most") => LeafRule::AtMost,
            _ => LeafRule::Below,
        },
        fetch_lat: v.number(&FETCH_LAT, 1..=64)?,
    })))
}

#[derive(Debug)]
struct Paver {
    entry: &'static PolicyEntry,
    scheme: Scheme,
    steal: Steal,
    recipient_idle: bool,
    granularity: Granularity,
    leaf: LeafRule,
    fetch_lat: usize,
}

fn params(cfg: &GpuConfig) -> Result<paver_tb::Params, SimError> {
    let sms = cfg.sm.count as usize;
    if !(1..=paver_tb::MAX_SMS).contains(&sms) {
        return Err(SimError::Config(format!(
            "PAVER's scheduler serves 1 to {} SMs; `{}` has {sms}",
            paver_tb::MAX_SMS,
            cfg.name
        )));
    }
    Ok(paver_tb::Params::new(sms))
}

impl TbDispatchPolicy for Paver {
    fn entry(&self) -> &'static PolicyEntry {
        self.entry
    }

    fn check(&self, cfg: &GpuConfig) -> Result<(), SimError> {
        params(cfg).map(|_| ())
    }

    fn prepare(
        &self,
        cfg: &GpuConfig,
        kernel: &dyn KernelSource,
        prepared: &mut Prepared,
    ) -> Result<(), SimError> {
        let info = kernel.info();
        let p = paver::params_for(cfg, info, self.leaf).map_err(|e| {
            SimError::Config(format!("kernel `{}` on `{}`: {e}", info.name, cfg.name))
        })?;
        let s = paver::schedule(kernel, self.scheme, self.granularity, &p)
            .map_err(|e| SimError::Config(e.to_string()))?;
        // No wall time here: a report is the same bit for bit on every run (`gpusched paver
        // groups` prints the JIT's time).
        prepared.report(
            "paver",
            serde_json::json!({
                "scheme": self.scheme.name(),
                "groups": s.groups.len(),
                "blocks_per_sm": p.per_sm,
                "sparsity": s.stats.as_ref().map(|st| st.sparsity),
                "edges": s.stats.as_ref().map(|st| st.edges),
                "intra_weight": s.intra_weight,
                "notes": s.notes,
            }),
        );
        prepared.get_or_make(|_| Ok(s)).map(|_| ())
    }

    fn build<'a>(
        &self,
        cfg: &GpuConfig,
        provider: &mut dyn DynProvider<'a>,
        slot: usize,
    ) -> Result<Box<dyn DispatchUnit<'a> + 'a>, SimError> {
        let p = params(cfg)?;
        let site = Site::dispatch(slot, <paver_tb::Kind as BlockKind>::NAME);
        Ok(Box::new(PaverUnit {
            slot: Slot::new(provider, site, &p)?,
            sms: p.sms,
            steal: self.steal,
            recipient_idle: self.recipient_idle,
            fetch_lat: self.fetch_lat,
            groups: Arc::default(),
            resident: vec![0; p.sms],
            reads: VecDeque::new(),
            cycle: 0,
            steals: 0,
            stolen_blocks: 0,
        }))
    }
}

/// The `paver_tb` block, the kernel's group tables and the reads in flight.
struct PaverUnit<'a> {
    slot: Slot<'a, paver_tb::Kind>,
    sms: usize,
    steal: Steal,
    recipient_idle: bool,
    fetch_lat: usize,
    /// The running kernel's tables.
    groups: Arc<Schedule>,
    /// Per SM: the kernel's blocks there.
    resident: Vec<u32>,
    /// Answers in flight: (the cycle they arrive, SM, data).
    reads: VecDeque<(u64, usize, u32)>,
    cycle: u64,
    /// The running kernel's steals so far, and the blocks they moved.
    steals: u64,
    stolen_blocks: u64,
}

impl<'a> DispatchUnit<'a> for PaverUnit<'a> {
    fn start_kernel(&mut self, kernel: &KernelCtx) {
        self.groups = kernel.prepared.get::<Schedule>().unwrap_or_default();
        self.reads.clear();
        self.resident.iter_mut().for_each(|r| *r = 0);
        (self.steals, self.stolen_blocks) = (0, 0);
    }

    fn kernel_report(&mut self) -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([
            ("steals".into(), self.steals.into()),
            ("stolen_blocks".into(), self.stolen_blocks.into()),
        ])
    }

    fn step(&mut self, inp: &DispatchIn, grants: &mut Vec<Grant>) -> Result<(), SimError> {
        grants.clear();
        self.cycle += 1;
        for (s, done) in inp.finished.iter().enumerate() {
            self.resident[s] -= done.len() as u32;
        }
        let mut b = PaverIn {
            start: inp.start,
            groups: self.groups.groups.len() as u16,
            steal_mode: self.steal as u8,
            recipient_idle: self.recipient_idle,
            room: inp.room,
            ..Default::default()
        };
        for (s, &r) in self.resident.iter().enumerate() {
            b.empty |= ((r == 0) as u128) << s;
        }
        while let Some(&(at, s, data)) = self.reads.front() {
            if at > self.cycle {
                break;
            }
            b.rsp_valid |= 1 << s;
            b.rsp_data[s] = data;
            self.reads.pop_front();
        }
        let out = self.slot.step(&b)?;
        for (s, group, a) in out.reads(self.sms) {
            let data = self.groups.groups.table_word(group, a);
            self.reads.push_back((self.cycle + self.fetch_lat as u64, s, data));
        }
        if out.steal {
            self.steals += 1;
            self.stolen_blocks += out.steal_count as u64;
        }
        for (sm, id) in out.grants(self.sms) {
            self.resident[sm] += 1;
            grants.push(Grant { sm, id, slot: None });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::GpuConfig;
    use crate::gpu::{Gpu, Report, SimOptions};
    use crate::workload::synth;

    fn run(workload: &str, size: &str, args: &str) -> Report {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let opts = SimOptions::parse(args).unwrap_or_else(|e| panic!("{args}: {e}"));
        let mut w = synth::workload(synth::build(workload, size).unwrap());
        Gpu::golden(&cfg, opts).unwrap().run(&mut w, &mut |_| {}).unwrap()
    }

    /// Every scheme runs every block once: the instruction counts of LRR, the groups and the
    /// JIT pass in the kernel's report, the same report twice.
    #[test]
    fn every_scheme_runs_every_block_once() {
        for w in ["mm", "pf", "chimera_bs"] {
            let lrr = run(w, "small", "--tb-sched lrr");
            for args in [
                "--tb-sched mst-ts",
                "--tb-sched kway-ts",
                "--tb-sched kway-ts --no-steal",
                "--tb-sched rb-ts",
                "--tb-sched rb-ts --paver-steal clamp --paver-recipient idle",
                "--tb-sched rb-ts --paver-fetch-lat 4 --paver-granularity line",
            ] {
                let r = run(w, "small", args);
                let (a, b) = (&r.counters, &lrr.counters);
                assert_eq!(
                    (a.blocks, a.warp_instructions, a.thread_instructions),
                    (b.blocks, b.warp_instructions, b.thread_instructions),
                    "{w} {args}"
                );
                let p = &r.kernels[0].prepared["paver"];
                assert!(p["groups"].as_u64().unwrap() > 0, "{w} {args}: {p}");
                let again = run(w, "small", args);
                assert_eq!(
                    serde_json::to_string(&r).unwrap(),
                    serde_json::to_string(&again).unwrap(),
                    "{w} {args}: the whole report, bit for bit"
                );
            }
        }
    }

    /// Each kernel's report holds its steals: none without the stealer; with it, some on
    /// kernels of several waves (at `small` every kernel fits the GPU at once, so no SM is
    /// ever busy and nothing is stolen); each steal moves at least one block.
    #[test]
    fn each_kernel_reports_its_steals() {
        let steals = |args: &str| -> Vec<(u64, u64)> {
            ["mm", "pf"]
                .iter()
                .map(|w| {
                    let k = &run(w, "medium", args).kernels[0].dispatch;
                    let n = |key: &str| k[key].as_u64().unwrap();
                    (n("steals"), n("stolen_blocks"))
                })
                .collect()
        };
        let off = steals("--tb-sched kway-ts --no-steal");
        assert!(off.iter().all(|&s| s == (0, 0)), "{off:?}");
        for args in ["--tb-sched kway-ts", "--tb-sched rb-ts"] {
            let on = steals(args);
            assert!(on.iter().all(|&(n, b)| n > 0 && b >= n), "{args}: {on:?}");
        }
        let lrr = run("mm", "small", "--tb-sched lrr");
        assert!(lrr.kernels[0].dispatch.is_empty(), "LRR reports no dispatch figures");
    }

    /// The options that only some schemes take are refused by the others.
    #[test]
    fn scheme_options_are_checked() {
        let err = |args: &str| SimOptions::parse(args).unwrap_err().to_string();
        assert!(err("--tb-sched mst-ts --no-steal").contains("--no-steal needs"));
        assert!(err("--tb-sched kway-ts --paver-leaf at-most").contains("rb-ts"));
        assert!(err("--tb-sched rb-ts --paver-fetch-lat 0").contains("paver-fetch-lat"));
    }
}
