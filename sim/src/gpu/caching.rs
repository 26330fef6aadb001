//! Which global loads use the L1D: each load's cache operator ([`CacheOp`]) and the GPU's
//! default (`pipeline.gmem_skip_l1d`), or what a run's `--bypass` rewrites them to, as the
//! bypass framework's instrumentation rewrites a kernel's PTX (seed 001 §III, L102-L141):
//! `none` compiles every global load `ld.ca` (`-dlcm=ca`), `all` every one `ld.cg`
//! (`-dlcm=cg`), and a selection caches the listed loads of each kernel and bypasses the rest.
//!
//! Only global loads are affected (B-R7: local loads stay cached; stores are written through
//! the L1D as before, whatever their operator).

use crate::analysis::bypass::profile::EffSource;
use crate::workload::cache_op::CacheOp;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// How the selection of the cached loads is made (`--bypass exact|heuristic|empirical`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectBy {
    /// The optimum of the traffic model over every subset of the loads (exhaustive search).
    Exact,
    /// The paper's greedy Algorithm 1.
    Heuristic,
    /// B-R5 `ORACLE_EMPIRICAL`: every mask of the most accessed loads simulated, the fastest
    /// kept (`analysis::bypass::empirical`).
    Empirical,
}

/// A run's L1D policy for global loads (`--bypass`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Bypass {
    /// `trace`: as the loads are written (their operator, then the GPU's default).
    #[default]
    AsWritten,
    /// `none`: every global load is cached (`-dlcm=ca`).
    None,
    /// `all`: every global load bypasses the L1D (`-dlcm=cg`).
    All,
    /// `exact`, `heuristic`, `empirical`: to be chosen by profiling runs before the run (the command that
    /// runs it resolves this into [`Bypass::Cached`]; a GPU refuses it).
    Select(SelectBy, EffSource),
    /// Per kernel name, the PCs of the global loads that are cached; every other global load
    /// of those kernels bypasses, and kernels not listed run as written.
    Cached(Arc<BTreeMap<String, BTreeSet<u32>>>),
}

impl Bypass {
    /// The value of `--bypass` (`trace`, `none`, `all`, `exact`, `heuristic`), a selection's
    /// efficiencies from `eff`.
    pub fn parse(s: &str, eff: EffSource) -> Option<Self> {
        Some(match s {
            "trace" => Bypass::AsWritten,
            "none" => Bypass::None,
            "all" => Bypass::All,
            "exact" => Bypass::Select(SelectBy::Exact, eff),
            "heuristic" => Bypass::Select(SelectBy::Heuristic, eff),
            "empirical" => Bypass::Select(SelectBy::Empirical, eff),
            _ => return None,
        })
    }

    /// Its part of a run's label (`""` when the loads run as written).
    pub fn label(&self) -> &'static str {
        match self {
            Bypass::AsWritten => "",
            Bypass::None => "+cache-all",
            Bypass::All => "+bypass-all",
            Bypass::Select(SelectBy::Exact, _) => "+bypass(exact)",
            Bypass::Select(SelectBy::Heuristic, _) => "+bypass(heuristic)",
            Bypass::Select(SelectBy::Empirical, _) => "+bypass(empirical)",
            Bypass::Cached(_) => "+bypass(selected)",
        }
    }

    /// The decision for the loads of kernel `name` on a GPU with `gmem_skip_l1d`.
    pub fn for_kernel(&self, name: &str, gmem_skip_l1d: bool) -> KernelCaching {
        let rule = match self {
            Bypass::AsWritten | Bypass::Select(..) => Rule::AsWritten,
            Bypass::None => Rule::Every(false),
            Bypass::All => Rule::Every(true),
            Bypass::Cached(by_kernel) => match by_kernel.get(name) {
                Some(pcs) => Rule::CachedPcs(pcs.clone()),
                None => Rule::AsWritten,
            },
        };
        KernelCaching {
            skip_global: gmem_skip_l1d,
            rule,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    AsWritten,
    Every(bool),
    CachedPcs(BTreeSet<u32>),
}

/// Whether each global load of one kernel bypasses the L1D.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCaching {
    skip_global: bool,
    rule: Rule,
}

impl Default for KernelCaching {
    /// As written, on a GPU that caches global loads.
    fn default() -> Self {
        Bypass::AsWritten.for_kernel("", false)
    }
}

impl KernelCaching {
    /// Whether the global load at `pc` with operator `op` bypasses the L1D.
    pub fn bypasses(&self, pc: u32, op: CacheOp) -> bool {
        match &self.rule {
            Rule::AsWritten => op.bypasses(self.skip_global),
            Rule::Every(b) => *b,
            Rule::CachedPcs(pcs) => !pcs.contains(&pc),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_decides_as_documented() {
        let written = Bypass::AsWritten.for_kernel("k", false);
        assert!(written.bypasses(0, CacheOp::Cg) && !written.bypasses(0, CacheOp::Default));
        let skip = Bypass::AsWritten.for_kernel("k", true);
        assert!(skip.bypasses(0, CacheOp::Default) && !skip.bypasses(0, CacheOp::Ca));
        assert!(!Bypass::None.for_kernel("k", true).bypasses(0, CacheOp::Cg));
        assert!(Bypass::All.for_kernel("k", false).bypasses(0, CacheOp::Ca));
        let sel = Bypass::Cached(Arc::new(BTreeMap::from([(
            "k".to_string(),
            BTreeSet::from([8]),
        )])));
        let k = sel.for_kernel("k", false);
        assert!(!k.bypasses(8, CacheOp::Cg) && k.bypasses(16, CacheOp::Ca));
        // A kernel the selection does not name runs as written.
        assert!(!sel
            .for_kernel("other", false)
            .bypasses(16, CacheOp::Default));
        for v in ["trace", "none", "all", "exact", "heuristic", "empirical"] {
            assert!(Bypass::parse(v, EffSource::Global).is_some(), "{v}");
        }
        assert_eq!(Bypass::parse("some", EffSource::Global), None);
    }
}
