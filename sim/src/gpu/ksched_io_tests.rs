//! What the kernel scheduler sets and reads besides offers and preemptions: per-SM block
//! quotas ([`KernelSchedOut::quota`]: an SM takes no block of a kernel at or above its quota,
//! a lowered quota stops new blocks without taking resident ones off, a slot's quotas leave
//! with its kernel) and sampled per-SM instruction counters ([`KernelSchedIn::issued`]).

use super::sites::kernel_sched::{KernelSchedIn, KernelSchedOut, KernelSchedUnit};
use super::*;

/// Offers every SM to slot 0's kernel; gives launch 0 the quota `first` on every SM, and from
/// cycle `at` the quota `then` (told to the GPU only with `apply`). Records the most blocks of
/// each launch an SM held, and any cycle an SM's count of launch 0 rose above its quota.
struct Quotas {
    apply: bool,
    first: Option<u32>,
    then: Option<(u64, u32)>,
    most: Vec<u32>,
    rose_above: Vec<String>,
    last: Vec<u32>,
}

impl KernelSchedUnit for Quotas {
    fn slots(&self) -> usize {
        1
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let Some(k) = inp.kernels[0] else {
            return Ok(());
        };
        let quota = match self.then {
            Some((at, q)) if inp.now >= at => Some(q),
            _ => self.first,
        };
        self.last.resize(inp.sms.len(), 0);
        self.most.resize(k.launch + 1, 0);
        for (s, sm) in inp.sms.iter().enumerate() {
            let n = sm.blocks[0];
            let q = quota.filter(|_| k.launch == 0);
            if q.is_some_and(|q| n > self.last[s] && n > q) {
                self.rose_above
                    .push(format!("SM {s} at {}: {n} > {q:?}", inp.now));
            }
            self.last[s] = n;
            self.most[k.launch] = self.most[k.launch].max(n);
            out.offer[s] = Some(0);
            if k.launch == 0 && self.apply {
                out.quota[s][0] = quota;
            }
        }
        Ok(())
    }
}

/// Two medium `mm` launches one after the other (169 blocks each, 5 fit an SM) under `unit`.
fn run(unit: Quotas) -> (Quotas, u64) {
    let text = "[[kernel]]\nworkload = \"mm\"\nsize = \"medium\"\nstream = 0\n\n[[kernel]]\nworkload = \"mm\"\nsize = \"medium\"\nstream = 0\n";
    let mut mix = crate::workload::mix::Mix::parse(text, std::path::Path::new("m.toml")).unwrap();
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
    let probe = std::rc::Rc::new(std::cell::RefCell::new(None));
    gpu.set_kernel_sched(Box::new(Probe(probe.clone(), Some(unit))));
    let r = gpu.run(&mut mix, &mut |_| {}).unwrap();
    drop(gpu);
    let unit = probe.borrow_mut().take().expect("the unit handed back");
    (unit, r.counters.blocks)
}

/// Runs `Quotas` and hands it back when dropped (the GPU owns its unit).
struct Probe(
    std::rc::Rc<std::cell::RefCell<Option<Quotas>>>,
    Option<Quotas>,
);

impl Drop for Probe {
    fn drop(&mut self) {
        *self.0.borrow_mut() = self.1.take();
    }
}

impl KernelSchedUnit for Probe {
    fn slots(&self) -> usize {
        1
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        self.1.as_mut().expect("a unit").step(inp, out)
    }
}

fn quotas(first: Option<u32>, then: Option<(u64, u32)>) -> Quotas {
    Quotas {
        apply: true,
        first,
        then,
        most: vec![],
        rose_above: vec![],
        last: vec![],
    }
}

#[test]
fn an_sm_holds_no_more_blocks_of_a_kernel_than_its_quota() {
    let (free, blocks) = run(quotas(None, None));
    assert_eq!(free.most, [5, 5], "occupancy alone: 5 blocks per SM");
    for q in [1, 2, 4] {
        let (u, b) = run(quotas(Some(q), None));
        assert_eq!(b, blocks, "quota {q}: every block ran");
        assert_eq!(
            u.most,
            [q, 5],
            "quota {q}: launch 0 held to it, launch 1 (no quota) not"
        );
        assert_eq!(u.rose_above, Vec::<String>::new());
    }
}

#[test]
fn a_lowered_quota_stops_new_blocks_and_leaves_resident_ones() {
    let (u, blocks) = run(quotas(Some(5), Some((3_000, 1))));
    assert_eq!(u.most[0], 5, "full before the change");
    assert_eq!(u.rose_above, Vec::<String>::new());
    let (free, b) = run(quotas(None, None));
    assert_eq!(b, blocks, "every block ran");
    assert_eq!(free.rose_above, Vec::<String>::new());
    // The check catches a GPU that ignores the lowered quota.
    let (ignored, _) = run(Quotas {
        apply: false,
        ..quotas(Some(5), Some((3_000, 1)))
    });
    assert!(
        !ignored.rose_above.is_empty(),
        "a quota not applied is seen"
    );
}

/// Per sample: the cycle it was read, and per SM, per slot, the counter.
type Samples = Vec<(u64, Vec<Vec<u64>>)>;

/// Offers every SM to slot 0 and samples the counters every `every` cycles; keeps the samples.
struct Sampler {
    every: u64,
    samples: Samples,
}

impl KernelSchedUnit for Sampler {
    fn slots(&self) -> usize {
        1
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        if !inp.issued.is_empty() {
            self.samples.push((inp.now, inp.issued.to_vec()));
        }
        out.offer.fill(Some(0));
        out.sample = inp.kernels[0].is_some() && inp.now % self.every == self.every - 1;
        Ok(())
    }
}

#[test]
fn sampled_counters_add_up_to_the_kernels_instructions() {
    let text = "[[kernel]]\nworkload = \"mm\"\n";
    let mut mix = crate::workload::mix::Mix::parse(text, std::path::Path::new("m.toml")).unwrap();
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
    let samples = std::rc::Rc::new(std::cell::RefCell::new(vec![]));
    struct Keep(Sampler, std::rc::Rc<std::cell::RefCell<Samples>>);
    impl KernelSchedUnit for Keep {
        fn slots(&self) -> usize {
            1
        }
        fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
            self.0.step(inp, out)?;
            *self.1.borrow_mut() = self.0.samples.clone();
            Ok(())
        }
    }
    let unit = Sampler {
        every: 1000,
        samples: vec![],
    };
    gpu.set_kernel_sched(Box::new(Keep(unit, samples.clone())));
    let r = gpu.run(&mut mix, &mut |_| {}).unwrap();
    drop(gpu);
    let samples = samples.borrow();
    assert!(samples.len() >= 5, "{} samples", samples.len());
    let mut last = 0;
    for (now, per_sm) in samples.iter() {
        assert_eq!(now % 1000, 0, "read the cycle after it was asked for");
        assert_eq!(per_sm.len(), 15);
        let total: u64 = per_sm.iter().map(|v| v[0]).sum();
        assert!(total >= last, "cumulative");
        last = total;
    }
    assert!(last > 0 && last <= r.counters.warp_instructions);
}

/// Lowers slot 0's quota on every SM to `quotas[i].1` at cycle `quotas[i].0` and switches out
/// the blocks above it (highest block slot first; blocks already leaving are not asked again).
struct Squeeze {
    quotas: Vec<(u64, u32)>,
}

impl KernelSchedUnit for Squeeze {
    fn slots(&self) -> usize {
        1
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let Some(k) = inp.kernels[0] else {
            return Ok(());
        };
        let q = self
            .quotas
            .iter()
            .rev()
            .find(|(at, _)| inp.now >= *at)
            .map(|x| x.1);
        for (s, view) in inp.sms.iter().enumerate() {
            out.offer[s] = Some(0);
            out.quota[s][0] = q.filter(|_| k.launch == 0);
            let Some(q) = out.quota[s][0] else { continue };
            let excess = (view.blocks[0] - view.preempting[0]).saturating_sub(q) as usize;
            let mut mine: Vec<_> = inp.blocks[s].iter().filter(|b| !b.preempting).collect();
            mine.sort_by_key(|b| std::cmp::Reverse(b.tb));
            for b in mine.into_iter().take(excess) {
                out.preempt.push(super::sites::kernel_sched::Preempt {
                    sm: s,
                    slot: 0,
                    technique: super::sites::kernel_sched::Technique::Switch,
                    block: Some(b.tb),
                });
            }
        }
        Ok(())
    }
}

#[test]
fn a_quota_lowered_again_while_its_victims_switch_out() {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let run = |quotas: Vec<(u64, u32)>| {
        let text = "[[kernel]]\nworkload = \"mm\"\nsize = \"medium\"\n";
        let mut mix =
            crate::workload::mix::Mix::parse(text, std::path::Path::new("m.toml")).unwrap();
        let opts = SimOptions {
            audit_interval: 97,
            ..SimOptions::default()
        };
        let mut gpu = Gpu::golden(&cfg, opts).unwrap();
        gpu.set_kernel_sched(Box::new(Squeeze { quotas }));
        gpu.run(&mut mix, &mut |_| {}).unwrap()
    };
    let free = run(vec![]);
    // 5 -> 3 at cycle 3,000, then 1 fifty cycles later, while the first victims still save
    // their contexts; then back to 5.
    let r = run(vec![(0, 5), (3_000, 3), (3_050, 1), (20_000, 5)]);
    assert_eq!(
        r.counters.warp_instructions,
        free.counters.warp_instructions
    );
    assert_eq!(r.counters.blocks, free.counters.blocks);
    let switched: u64 = r.kernels.iter().map(|k| k.preemptions.switch.blocks).sum();
    let restored: u64 = r.kernels.iter().map(|k| k.preemptions.restored).sum();
    assert!(switched >= 15 * 4, "{switched} switched: 4 per SM");
    assert_eq!(switched, restored, "each restored once");
}
