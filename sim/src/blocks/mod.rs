//! Golden models of the hardware blocks, one module per block (the list is
//! `gpusched_registry::blocks!`), and the catalog of block, policy and preset names that the
//! CLI, the Verilog generator and the testbench derive from it.
//!
//! Each block module defines `Kind`, its [`BlockKind`]: name, policies, presets and their
//! parameters, golden model, stimulus. Tools never match on block names: they walk the kinds
//! with [`visit_all`] or pick one with [`with_kind`].

use crate::block::{BlockKind, KindVisitor};
use thiserror::Error;

macro_rules! declare_blocks {
    ($($b:ident)*) => {
        $(pub mod $b;)*

        /// Calls `v.visit::<K>()` for every block kind, in registry order.
        pub fn visit_all(v: &mut impl KindVisitor) {
            $( v.visit::<$b::Kind>(); )*
        }

        /// [`crate::gpu::sites::Provider`] as a trait object: one method per block kind (named
        /// after it), so that a policy can take its blocks from any provider through
        /// `&mut dyn DynProvider` ([`provide`]).
        pub trait DynProvider<'a> {
            $(
                #[doc = concat!("The `", stringify!($b), "` block of `site` with `params`.")]
                fn $b(
                    &mut self,
                    site: crate::gpu::sites::Site,
                    params: &<$b::Kind as BlockKind>::Params,
                ) -> Result<crate::gpu::sites::SitePort<'a, $b::Kind>, crate::gpu::sites::BlockFault>;
            )*
        }

        impl<'a, P: crate::gpu::sites::Provider<'a>> DynProvider<'a> for P {
            $(
                fn $b(
                    &mut self,
                    site: crate::gpu::sites::Site,
                    params: &<$b::Kind as BlockKind>::Params,
                ) -> Result<crate::gpu::sites::SitePort<'a, $b::Kind>, crate::gpu::sites::BlockFault> {
                    self.block::<$b::Kind>(site, params)
                }
            )*
        }

        $(
            impl Provided for $b::Kind {
                fn provide<'a>(
                    provider: &mut dyn DynProvider<'a>,
                    site: crate::gpu::sites::Site,
                    params: &Self::Params,
                ) -> Result<crate::gpu::sites::SitePort<'a, Self>, crate::gpu::sites::BlockFault> {
                    provider.$b(site, params)
                }
            }
        )*

        /// Calls `f.call::<K>()` with the kind named `name`.
        pub fn with_kind<F: KindFn>(name: &str, f: F) -> Result<F::Output, CatalogError> {
            match name {
                $( stringify!($b) => Ok(f.call::<$b::Kind>()), )*
                _ => Err(CatalogError::UnknownBlock {
                    got: name.to_string(),
                    valid: catalog().iter().map(|b| b.name.to_string()).collect(),
                }),
            }
        }
    };
}
gpusched_registry::blocks!(declare_blocks);

/// A block kind a [`DynProvider`] can hand out (every kind of the registry).
pub trait Provided: BlockKind {
    /// The block of this kind for `site` with `params`, from `provider`.
    fn provide<'a>(
        provider: &mut dyn DynProvider<'a>,
        site: crate::gpu::sites::Site,
        params: &Self::Params,
    ) -> Result<crate::gpu::sites::SitePort<'a, Self>, crate::gpu::sites::BlockFault>;
}

/// The block of kind `K` for `site` with `params`, from `provider`.
pub fn provide<'a, K: Provided>(
    provider: &mut dyn DynProvider<'a>,
    site: crate::gpu::sites::Site,
    params: &K::Params,
) -> Result<crate::gpu::sites::SitePort<'a, K>, crate::gpu::sites::BlockFault> {
    K::provide(provider, site, params)
}

/// Something done with one block kind chosen by name ([`with_kind`]).
pub trait KindFn {
    /// What it returns.
    type Output;
    /// Called with the chosen kind.
    fn call<K: BlockKind>(self) -> Self::Output;
}

/// One hardware block as the tools list it: its name, its policies and its parameter presets.
#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    /// Block name (`warp_arbiter`), the prefix of every module emitted for it.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Policies (one Verilog module each); a block with a single behaviour lists `["base"]`.
    pub policies: &'static [&'static str],
    /// Parameter presets (one Verilog module each per policy).
    pub presets: &'static [&'static str],
    /// The kind's [`BlockKind::regress_cycles`].
    pub regress_cycles: fn(&str, &str) -> Option<u64>,
    /// The kind's [`BlockKind::paper_budget`] of one `(policy, preset)`.
    pub paper_budget: fn(&str, &str) -> Option<crate::block::PaperBudget>,
}

impl BlockInfo {
    /// The entry of kind `K`.
    pub fn of<K: BlockKind>() -> Self {
        Self {
            name: K::NAME,
            summary: K::SUMMARY,
            policies: K::POLICIES,
            presets: K::PRESETS,
            regress_cycles: K::regress_cycles,
            paper_budget: |policy, preset| K::paper_budget(&K::params(policy, preset)),
        }
    }

    /// Verilog module name of one policy x preset: `<block>_<policy>_<preset>`.
    pub fn module_name(&self, policy: &str, preset: &str) -> String {
        format!("{}_{}_{}", self.name, policy, preset)
    }

    /// Every `(policy, preset)` pair, policies outermost.
    pub fn variants(&self) -> Vec<(&'static str, &'static str)> {
        self.policies
            .iter()
            .flat_map(|&p| self.presets.iter().map(move |&s| (p, s)))
            .collect()
    }
}

/// Every block, in registry (generation) order.
pub fn catalog() -> Vec<BlockInfo> {
    struct Collect(Vec<BlockInfo>);
    impl KindVisitor for Collect {
        fn visit<K: BlockKind>(&mut self) {
            self.0.push(BlockInfo::of::<K>());
        }
    }
    let mut c = Collect(vec![]);
    visit_all(&mut c);
    c.0
}

/// A name given on the command line or in a config that is not in the catalog.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum CatalogError {
    /// Unknown block name.
    #[error("unknown block `{got}`; valid blocks: {}", .valid.join(", "))]
    UnknownBlock { got: String, valid: Vec<String> },
    /// Unknown policy for a block.
    #[error("unknown policy `{got}` for block `{block}`; valid policies: {}", .valid.join(", "))]
    UnknownPolicy {
        block: String,
        got: String,
        valid: Vec<String>,
    },
    /// Unknown preset for a block.
    #[error("unknown preset `{got}` for block `{block}`; valid presets: {}", .valid.join(", "))]
    UnknownPreset {
        block: String,
        got: String,
        valid: Vec<String>,
    },
}

/// Looks a block up by name.
pub fn find_block(name: &str) -> Result<BlockInfo, CatalogError> {
    struct Info;
    impl KindFn for Info {
        type Output = BlockInfo;
        fn call<K: BlockKind>(self) -> BlockInfo {
            BlockInfo::of::<K>()
        }
    }
    with_kind(name, Info)
}

/// Checks `policy` (`-` accepted for `_`: `two-level`) and `preset` for `block`; returns the
/// canonical policy name.
pub fn check_variant(
    block: &BlockInfo,
    policy: &str,
    preset: &str,
) -> Result<&'static str, CatalogError> {
    let canon = policy.replace('-', "_");
    let Some(&policy) = block.policies.iter().find(|p| **p == canon) else {
        return Err(CatalogError::UnknownPolicy {
            block: block.name.into(),
            got: policy.into(),
            valid: block.policies.iter().map(|s| s.to_string()).collect(),
        });
    };
    if !block.presets.contains(&preset) {
        return Err(CatalogError::UnknownPreset {
            block: block.name.into(),
            got: preset.into(),
            valid: block.presets.iter().map(|s| s.to_string()).collect(),
        });
    }
    Ok(policy)
}

/// The `(policy, preset)` of kind `K` whose parameters equal `params`, if any: which emitted
/// module can stand in for a golden model built with `params`.
pub fn variant_of<K: BlockKind>(params: &K::Params) -> Option<(&'static str, &'static str)> {
    BlockInfo::of::<K>()
        .variants()
        .into_iter()
        .find(|(pol, pre)| K::params(pol, pre) == *params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = find_block("elfo").unwrap_err().to_string();
        assert!(e.contains("warp_arbiter, elf, newcar, tb_dispatch"), "{e}");
        let b = find_block("warp_arbiter").unwrap();
        let e = check_variant(&b, "fifo", "fermi").unwrap_err().to_string();
        assert!(e.contains("lrr, gto, two_level"), "{e}");
        let e = check_variant(&b, "gto", "kepler").unwrap_err().to_string();
        assert!(e.contains("fermi, proto"), "{e}");
        assert_eq!(check_variant(&b, "two-level", "proto"), Ok("two_level"));
        assert_eq!(b.module_name("gto", "fermi"), "warp_arbiter_gto_fermi");
    }

    #[test]
    fn every_preset_maps_back_to_its_own_variant() {
        struct Check;
        impl KindVisitor for Check {
            fn visit<K: BlockKind>(&mut self) {
                for (pol, pre) in BlockInfo::of::<K>().variants() {
                    assert_eq!(
                        variant_of::<K>(&K::params(pol, pre)),
                        Some((pol, pre)),
                        "{}: two variants with equal parameters",
                        K::NAME
                    );
                }
            }
        }
        visit_all(&mut Check);
    }

    /// Every kind that declares [`BlockKind::HOLDS`]: on every variant, under its stimulus, a
    /// `holds` answer for the cycle's input and for the last cycle's input repeated (what the
    /// GPU model asks) is what a step gives, and leaves the state as it was; some are answered
    /// on every variant that may hold ([`BlockKind::may_hold`]), none on the others.
    #[test]
    fn every_holds_answer_is_exact_under_stimulus() {
        use crate::block::{holds_is_exact, Block as _, Stimulus as _};
        struct Check(Vec<&'static str>);
        impl KindVisitor for Check {
            fn visit<K: BlockKind>(&mut self) {
                if !K::HOLDS {
                    return;
                }
                self.0.push(K::NAME);
                for (pol, pre) in BlockInfo::of::<K>().variants() {
                    let p = K::params(pol, pre);
                    let mut g = K::golden(&p);
                    let mut stim = K::stimulus(&p, 5);
                    let (mut prev_out, mut prev_in, mut answered) = (None, None, 0);
                    for cycle in 0..4000 {
                        let inp = stim.next(prev_out.as_ref());
                        for i in [Some(&inp), prev_in.as_ref()].into_iter().flatten() {
                            let what = format!("{} {pol} {pre} cycle {cycle}", K::NAME);
                            answered += holds_is_exact(&g, i)
                                .unwrap_or_else(|e| panic!("{what}: {e}"))
                                as usize;
                        }
                        prev_out = Some(g.step(&inp));
                        prev_in = Some(inp);
                    }
                    // A variant that cannot hold never answers; the others some times.
                    assert_eq!(
                        answered > 0,
                        K::may_hold(&p),
                        "{} {pol} {pre}: {answered} answered",
                        K::NAME
                    );
                }
            }
        }
        let mut c = Check(vec![]);
        visit_all(&mut c);
        assert_eq!(c.0, ["warp_arbiter", "sm_alloc", "locality_degree"]);
    }
}
