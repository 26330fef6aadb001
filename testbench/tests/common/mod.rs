//! Helpers shared by the testbench's integration tests.
#![allow(dead_code)]

use gpusim::block::{Block, Inspect, PortSpec};
use gpusim::blocks::warp_arbiter::{ArbiterOut, Golden};
use std::collections::HashMap;
use std::path::Path;

/// Whether this build has Verilated modules (else SKIP, or a failure under
/// `GPUSCHED_REQUIRE=rtl`: see `gpusim::testing`).
#[track_caller]
pub fn verilator_built() -> bool {
    gpusim::testing::available(
        "rtl",
        gpusched_tb::rtl::VERILATOR_BUILT,
        "built without Verilator (apt-get install -y verilator, then rebuild)",
    )
}

/// A golden model with a planted fault: `fault` rewrites its outputs from cycle `from` on.
#[derive(Clone)]
pub struct Faulty<G: Block> {
    pub inner: G,
    pub cycle: u64,
    pub from: u64,
    pub fault: fn(&mut G::Out),
}

impl<G: Block> Faulty<G> {
    /// `inner` with `fault` applied to every output from cycle `from` on.
    pub fn new(inner: G, from: u64, fault: fn(&mut G::Out)) -> Self {
        Self {
            inner,
            cycle: 0,
            from,
            fault,
        }
    }
}

impl<G: Block> Block for Faulty<G> {
    type In = G::In;
    type Out = G::Out;
    fn reset(&mut self) {
        self.inner.reset();
        self.cycle = 0;
    }
    fn step(&mut self, inp: &G::In) -> G::Out {
        let mut o = self.inner.step(inp);
        if self.cycle >= self.from {
            (self.fault)(&mut o);
        }
        self.cycle += 1;
        o
    }
}

impl<G: Block + Inspect> Inspect for Faulty<G> {
    fn state_specs(&self) -> Vec<PortSpec> {
        self.inner.state_specs()
    }
    fn state_values(&self, out: &mut Vec<u64>) {
        self.inner.state_values(out)
    }
}

/// The warp arbiter with a stuck-at-0 fault on bit 0 of `grant_warp` from cycle `from` on.
pub fn stuck_grant_bit0(golden: Golden, from: u64) -> Faulty<Golden> {
    Faulty::new(golden, from, |o: &mut ArbiterOut| o.grant_warp &= !1)
}

/// Changes of each signal as (time, value), by signal reference name.
pub type Changes = HashMap<String, Vec<(u64, u128)>>;

/// Values of every signal at every timestamp of a VCD file, and the timestamps.
pub fn parse_vcd(path: &Path) -> (Changes, Vec<u64>) {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut p = vcd::Parser::new(f);
    let header = p.parse_header().unwrap();
    let mut names = HashMap::new();
    fn walk(items: &[vcd::ScopeItem], names: &mut HashMap<vcd::IdCode, String>) {
        for i in items {
            match i {
                vcd::ScopeItem::Var(v) => {
                    names.entry(v.code).or_insert_with(|| v.reference.clone());
                }
                vcd::ScopeItem::Scope(s) => walk(&s.items, names),
                _ => {}
            }
        }
    }
    walk(&header.items, &mut names);
    let mut values: Changes = HashMap::new();
    let mut times = vec![];
    let mut t = 0;
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => {
                t = x;
                times.push(x);
            }
            vcd::Command::ChangeScalar(id, v) => {
                values
                    .entry(names[&id].clone())
                    .or_default()
                    .push((t, (v == vcd::Value::V1) as u128));
            }
            vcd::Command::ChangeVector(id, v) => {
                let n = v
                    .iter()
                    .fold(0u128, |a, b| a << 1 | (b == vcd::Value::V1) as u128);
                values.entry(names[&id].clone()).or_default().push((t, n));
            }
            _ => {}
        }
    }
    (values, times)
}

/// Value of `signal` at time `t` (last change at or before `t`).
pub fn value_at(values: &Changes, signal: &str, t: u64) -> u128 {
    values[signal]
        .iter()
        .take_while(|(time, _)| *time <= t)
        .last()
        .expect("signal has a value")
        .1
}
