//! FR-FCFS and timing of one DRAM channel, checked by an independent command-log checker.

use super::*;
use crate::config::GpuConfig;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn gtx480() -> DramConfig {
    GpuConfig::preset("gtx480").unwrap().dram
}

/// A read or write of `addr` in a one-channel address space mapped as the model's own
/// mapping maps a channel's (consecutive `row_bytes` to consecutive banks).
fn request(cfg: &DramConfig, id: u64, addr: u64, write: bool) -> Request {
    let one = DramConfig {
        channels: 1,
        sub_partitions: 1,
        ..cfg.clone()
    };
    let at = crate::mem::address::AddressMap::new(&one, 128)
        .unwrap()
        .locate(addr);
    Request {
        id,
        bank: at.bank,
        row: at.row,
        write,
        kernel: 0,
    }
}

/// Drives `reqs` (arrival cycle, request) through a channel until all complete; returns the
/// command log and, for every PRE, whether a queued request still hit the closed row.
struct Run {
    log: Vec<(u64, Cmd)>,
    bad_pre: Vec<(u64, u32)>,
    done: BTreeMap<u64, u64>,
    ch: Channel,
}

fn run(cfg: &DramConfig, mut reqs: VecDeque<(u64, Request)>, limit: u64) -> Run {
    let mut ch = Channel::new(cfg);
    let mut log = vec![];
    let mut bad_pre = vec![];
    let mut pending: BTreeMap<u64, (u32, u64)> = BTreeMap::new();
    let mut open: BTreeMap<u32, u64> = BTreeMap::new();
    let mut done = BTreeMap::new();
    let total = reqs.len();
    while done.len() < total && ch.now() < limit {
        while let Some(&(at, r)) = reqs.front() {
            if at > ch.now() || !ch.can_accept() {
                break;
            }
            assert!(ch.push(r));
            pending.insert(r.id, (r.bank, r.row));
            reqs.pop_front();
        }
        let now = ch.now();
        for c in ch.cycle().into_iter().flatten() {
            match c {
                Cmd::Pre { bank } => {
                    let row = open.remove(&bank).expect("PRE of a closed bank");
                    if pending.values().any(|&(b, r)| b == bank && r == row) {
                        bad_pre.push((now, bank));
                    }
                }
                Cmd::Act { bank, row } => {
                    assert!(
                        open.insert(bank, row).is_none(),
                        "ACT of an open bank at {now}"
                    );
                }
                Cmd::Rd { id, .. } | Cmd::Wr { id, .. } => {
                    pending.remove(&id);
                }
            }
            log.push((now, c));
        }
        for (id, at) in ch.drain_done() {
            done.insert(id, at);
        }
    }
    Run {
        log,
        bad_pre,
        done,
        ch,
    }
}

/// Bank, row and direction of each request, by id.
type Rows = BTreeMap<u64, (u32, u64, bool)>;

/// Every timing constraint, checked from the command log alone.
fn check_timing(cfg: &DramConfig, log: &[(u64, Cmd)], rows: &Rows) -> Result<(), String> {
    let t = &cfg.timing;
    let burst = (cfg.burst_length / cfg.data_rate).max(1) as u64;
    let mut last_act_any: Option<u64> = None;
    let mut last_col_any: Option<u64> = None;
    let mut act: BTreeMap<u32, u64> = BTreeMap::new();
    let mut pre: BTreeMap<u32, u64> = BTreeMap::new();
    let mut open: BTreeMap<u32, u64> = BTreeMap::new();
    let mut pre_ready: BTreeMap<u32, u64> = BTreeMap::new();
    let mut bus: Vec<(u64, u64)> = vec![];
    let gap = |what: &str, a: u64, b: u64, min: u32| {
        if b < a + min as u64 {
            Err(format!("{what}: {a} -> {b} < {min}"))
        } else {
            Ok(())
        }
    };
    // Commands per cycle: one, or with a dual bus one column and one row command.
    let mut cycles = BTreeSet::new();
    for &(c, cmd) in log {
        let column = matches!(cmd, Cmd::Rd { .. } | Cmd::Wr { .. });
        let on_column_bus = cfg.dual_bus && column;
        if !cycles.insert((c, on_column_bus)) {
            return Err(format!("two commands on one bus in cycle {c}"));
        }
        match cmd {
            Cmd::Act { bank, row } => {
                if let Some(a) = last_act_any {
                    gap("tRRD", a, c, t.rrd)?;
                }
                if let Some(&a) = act.get(&bank) {
                    gap("tRC", a, c, t.rc)?;
                }
                if let Some(&p) = pre.get(&bank) {
                    gap("tRP", p, c, t.rp)?;
                }
                if open.insert(bank, row).is_some() {
                    return Err(format!("ACT to open bank {bank} at {c}"));
                }
                last_act_any = Some(c);
                act.insert(bank, c);
                pre_ready.insert(bank, c + t.ras as u64);
            }
            Cmd::Pre { bank } => {
                if open.remove(&bank).is_none() {
                    return Err(format!("PRE of closed bank {bank} at {c}"));
                }
                if c < pre_ready[&bank] {
                    return Err(format!(
                        "PRE of bank {bank} at {c} before tRAS/tWR/read end {}",
                        pre_ready[&bank]
                    ));
                }
                pre.insert(bank, c);
            }
            Cmd::Rd { bank, id } | Cmd::Wr { bank, id } => {
                let (b, row, write) = rows[&id];
                if b != bank || open.get(&bank) != Some(&row) {
                    return Err(format!(
                        "column for request {id} to bank {bank} without its row open at {c}"
                    ));
                }
                gap("tRCD", act[&bank], c, t.rcd)?;
                if let Some(l) = last_col_any {
                    gap("tCCD", l, c, t.ccd)?;
                }
                last_col_any = Some(c);
                let start = c + if write { t.wl } else { t.cl } as u64;
                bus.push((start, start + burst));
                let ready = if write {
                    start + burst + t.wr as u64
                } else {
                    c + burst
                };
                let e = pre_ready.get_mut(&bank).expect("bank was activated");
                *e = (*e).max(ready);
            }
        }
    }
    bus.sort();
    for w in bus.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(format!("data bus overlap: {:?} and {:?}", w[0], w[1]));
        }
    }
    Ok(())
}

/// Requests of a random stream spec: (arrival gap, row chunk, column, write).
fn requests(spec: &[(u64, u8, u8, bool)]) -> (VecDeque<(u64, Request)>, Rows) {
    let cfg = gtx480();
    let mut at = 0;
    let mut q = VecDeque::new();
    let mut rows = BTreeMap::new();
    for (id, &(gap, chunk, col, write)) in spec.iter().enumerate() {
        at += gap % 8;
        // A small address space (12 row-sized chunks: several rows in a few banks) makes
        // conflicts and row hits frequent.
        let addr = (chunk as u64 % 12) * 16 * cfg.row_bytes as u64 + (col as u64 % 64) * 64;
        let r = request(&cfg, id as u64, addr, write);
        rows.insert(r.id, (r.bank, r.row, write));
        q.push_back((at, r));
    }
    (q, rows)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On random request streams: every request completes, no timing constraint is violated,
    /// and no row is closed while a queued request still hits it.
    #[test]
    fn fr_fcfs_never_violates_timing_and_serves_row_hits_first(
        spec in proptest::collection::vec((any::<u64>(), any::<u8>(), any::<u8>(), any::<bool>()), 1..300),
        dual_bus in any::<bool>(),
    ) {
        let cfg = DramConfig { dual_bus, ..gtx480() };
        let (q, rows) = requests(&spec);
        let n = q.len();
        let r = run(&cfg, q, 1_000_000);
        prop_assert_eq!(r.done.len(), n, "not every request completed");
        prop_assert!(r.bad_pre.is_empty(), "closed a row with queued hits: {:?}", r.bad_pre);
        if let Err(e) = check_timing(&cfg, &r.log, &rows) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// A dual bus (HBM's separate row and column buses) issues a row command beside a column
/// command (never later than one bus would); the checker refuses two commands on one bus in
/// a cycle.
#[test]
fn a_dual_bus_issues_a_row_and_a_column_command_in_one_cycle() {
    // Four reads to each of 16 banks (consecutive rows of a channel are consecutive banks).
    let base = gtx480();
    let mut q = VecDeque::new();
    let mut rows = BTreeMap::new();
    for id in 0..64u64 {
        let addr = (id % 16) * base.row_bytes as u64 + (id / 16) * 64;
        let r = request(&base, id, addr, false);
        rows.insert(id, (r.bank, r.row, false));
        q.push_back((0, r));
    }
    let mut ends = vec![];
    for dual_bus in [false, true] {
        let cfg = DramConfig {
            dual_bus,
            ..gtx480()
        };
        let r = run(&cfg, q.clone(), 1_000_000);
        check_timing(&cfg, &r.log, &rows).unwrap();
        let cycles: BTreeSet<u64> = r.log.iter().map(|&(c, _)| c).collect();
        let paired = r.log.len() - cycles.len();
        assert_eq!(paired > 0, dual_bus, "{paired} cycles with two commands");
        ends.push(r.ch.now());
    }
    assert!(ends[1] <= ends[0], "{ends:?}");
    let cfg = gtx480();
    let log = vec![
        (0, Cmd::Act { bank: 0, row: 0 }),
        (0, Cmd::Act { bank: 1, row: 0 }),
    ];
    let dual = DramConfig {
        dual_bus: true,
        ..gtx480()
    };
    for c in [&cfg, &dual] {
        let e = check_timing(c, &log, &BTreeMap::new()).unwrap_err();
        assert!(e.contains("two commands on one bus"), "{e}");
    }
}

#[test]
fn the_checker_catches_a_violation() {
    // A planted bug: an ACT that follows another on a different bank 1 cycle later.
    let cfg = gtx480();
    let log = vec![
        (0, Cmd::Act { bank: 0, row: 0 }),
        (1, Cmd::Act { bank: 1, row: 0 }),
    ];
    let e = check_timing(&cfg, &log, &BTreeMap::new()).unwrap_err();
    assert!(e.contains("tRRD"), "{e}");
    let log = vec![
        (0, Cmd::Act { bank: 0, row: 0 }),
        (5, Cmd::Rd { bank: 0, id: 0 }),
    ];
    let rows = BTreeMap::from([(0, (0, 0, false))]);
    assert!(check_timing(&cfg, &log, &rows)
        .unwrap_err()
        .contains("tRCD"));
}

#[test]
fn row_hits_go_before_older_row_misses() {
    let cfg = gtx480();
    let row = cfg.row_bytes as u64 * cfg.banks as u64; // same bank 0, next row
                                                       // 0: opens row 0 of bank 0; 1: row 1 of bank 0 (conflict, older); 2: row 0 again (hit).
    let q: VecDeque<_> = [(0, 0), (1, row), (2, 64)]
        .into_iter()
        .map(|(id, addr)| (0, request(&cfg, id, addr, false)))
        .collect();
    assert_eq!((q[1].1.bank, q[1].1.row), (0, 1));
    let r = run(&cfg, q, 10_000);
    let cols: Vec<u64> = r
        .log
        .iter()
        .filter_map(|(_, c)| match c {
            Cmd::Rd { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(
        cols,
        vec![0, 2, 1],
        "the younger row hit is served before the older conflict"
    );
    assert_eq!((r.ch.columns, r.ch.row_hits), (3, 1));
}

#[test]
fn streaming_reads_reach_peak_bandwidth() {
    // Sequential 64 B reads, as many as the queue takes: within 5% of the channel's peak.
    let cfg = gtx480();
    let per_col = Channel::bytes_per_column(&cfg);
    let n = 40_000u64;
    let q: VecDeque<_> = (0..n)
        .map(|i| (0, request(&cfg, i, i * per_col, false)))
        .collect();
    let r = run(&cfg, q, 10_000_000);
    assert_eq!(r.done.len() as u64, n);
    let last = *r.done.values().max().unwrap();
    let bytes_per_cycle = (n * per_col) as f64 / last as f64;
    let peak = (cfg.chips_per_channel * cfg.chip_bus_bytes * cfg.data_rate) as f64;
    let gbps = bytes_per_cycle * cfg.clock_mhz / 1000.0 * cfg.channels as f64;
    assert!(
        bytes_per_cycle >= 0.95 * peak,
        "{bytes_per_cycle:.2} B/cycle of {peak} ({gbps:.1} GB/s of {})",
        cfg.peak_gbps
    );
    assert!(r.ch.row_hits as f64 / r.ch.columns as f64 > 0.9);
    eprintln!(
        "streaming: {bytes_per_cycle:.2} of {peak} B/cycle per channel = {gbps:.1} of {} GB/s",
        cfg.peak_gbps
    );
}

#[test]
fn a_long_mixed_stream_exercises_every_command_and_passes_the_checker() {
    let mut x = 0x9e3779b97f4a7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let spec: Vec<(u64, u8, u8, bool)> = (0..3000)
        .map(|_| (next() % 3, next() as u8, next() as u8, next() % 4 == 0))
        .collect();
    let cfg = gtx480();
    let (q, rows) = requests(&spec);
    let r = run(&cfg, q, 10_000_000);
    assert_eq!(r.done.len(), 3000);
    assert!(r.bad_pre.is_empty());
    check_timing(&cfg, &r.log, &rows).unwrap();
    let count = |f: fn(&Cmd) -> bool| r.log.iter().filter(|(_, c)| f(c)).count();
    let (acts, pres) = (
        count(|c| matches!(c, Cmd::Act { .. })),
        count(|c| matches!(c, Cmd::Pre { .. })),
    );
    let (rds, wrs) = (
        count(|c| matches!(c, Cmd::Rd { .. })),
        count(|c| matches!(c, Cmd::Wr { .. })),
    );
    assert!(
        acts > 100 && pres > 100 && rds > 1000 && wrs > 300,
        "ACT {acts} PRE {pres} RD {rds} WR {wrs}"
    );
    assert!(r.ch.row_hits > 0 && r.ch.row_hits < r.ch.columns);
}
