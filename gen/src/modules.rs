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

/// The Verilog of one variant, made on a worker thread.
type VerilogJob = Box<dyn FnOnce() -> Result<String, String> + Send>;

fn variants_of<K: BlockKind, R: RtlKind>(out: &mut Vec<(Variant, VerilogJob)>) {
    assert_eq!(
        K::NAME,
        R::NAME,
        "the registry pairs a block with its own RTL"
    );
    let info = BlockInfo::of::<K>();
    for (policy, preset) in info.variants() {
        let p = K::params(policy, preset);
        let module = info.module_name(policy, preset);
        let variant = Variant {
            info,
            policy,
            preset,
            verilog: Err(String::new()),
            params: K::manifest_params(&p)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            golden_inputs: K::In::specs(&p),
            golden_outputs: K::Out::specs(&p),
        };
        out.push((
            variant,
            Box::new(move || R::verilog(policy, preset, &module)),
        ));
    }
}

/// Runs every variant's job, as many at once as the machine has cores (rust-hdl's Verilog
/// generation of the largest circuits takes seconds each), and returns the variants in order.
fn generate(pending: Vec<(Variant, VerilogJob)>) -> Vec<Variant> {
    let (mut variants, jobs): (Vec<Variant>, Vec<VerilogJob>) = pending.into_iter().unzip();
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let done: Vec<(usize, Result<String, String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = vec![];
                    loop {
                        // The lock is released before the job runs.
                        let next = queue.lock().unwrap().next();
                        let Some((i, job)) = next else { break done };
                        done.push((i, job()));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    for (i, verilog) in done {
        variants[i].verilog = verilog;
    }
    variants
}

macro_rules! all_variants {
    ($($b:ident)*) => {
        /// Every variant of every block, in registry order, its Verilog generated.
        pub(crate) fn variants() -> Vec<Variant> {
            let mut v = vec![];
            $( variants_of::<gpusim::blocks::$b::Kind, gpusched_hdl::$b::Rtl>(&mut v); )*
            generate(v)
        }
    };
}
gpusched_registry::blocks!(all_variants);
