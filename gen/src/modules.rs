//! The variants the generator emits: every kind of the registry (`gpusched_registry::blocks!`)
//! paired with its RTL (`gpusched_hdl::<block>::Rtl`), for every policy x preset.

use gpusched_hdl::RtlKind;
use gpusim::block::{BlockKind, PortBundle, PortSpec};
use gpusim::blocks::BlockInfo;
use std::collections::BTreeMap;

/// What the generator needs of one module variant.
pub(crate) struct Variant {
    /// Block, policy and preset names.
    pub info: BlockInfo,
    pub policy: &'static str,
    pub preset: &'static str,
    /// Verilog text of the top module (named after the variant) and its submodules, or why
    /// rust-hdl could not generate it.
    pub verilog: Result<String, String>,
    /// Parameters to record in the manifest.
    pub params: BTreeMap<String, u64>,
    /// Ports the golden model declares: inputs then outputs (without clock and reset).
    pub golden_inputs: Vec<PortSpec>,
    pub golden_outputs: Vec<PortSpec>,
}

impl Variant {
    /// Verilog module name: `<block>_<policy>_<preset>`.
    pub fn module(&self) -> String {
        self.info.module_name(self.policy, self.preset)
    }
}

/// One variant, its Verilog made on a worker thread.
type VariantJob = Box<dyn FnOnce() -> Variant + Send>;

fn variants_of<K: BlockKind, R: RtlKind>(out: &mut Vec<VariantJob>) {
    assert_eq!(
        K::NAME,
        R::NAME,
        "the registry pairs a block with its own RTL"
    );
    let info = BlockInfo::of::<K>();
    for (policy, preset) in info.variants() {
        out.push(Box::new(move || {
            let p = K::params(policy, preset);
            Variant {
                info,
                policy,
                preset,
                verilog: R::verilog(policy, preset, &info.module_name(policy, preset)),
                params: K::manifest_params(&p)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                golden_inputs: K::In::specs(&p),
                golden_outputs: K::Out::specs(&p),
            }
        }));
    }
}

macro_rules! all_variants {
    ($($b:ident)*) => {
        /// Every variant of every block, in registry order, its Verilog generated.
        pub(crate) fn variants() -> Vec<Variant> {
            let mut v = vec![];
            $( variants_of::<gpusim::blocks::$b::Kind, gpusched_hdl::$b::Rtl>(&mut v); )*
            // rust-hdl's Verilog generation of the largest circuits takes seconds each.
            crate::parallel::map(v, |job| job())
        }
    };
}
gpusched_registry::blocks!(all_variants);
