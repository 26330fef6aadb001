//! One DRAM channel: banks with row buffers, the GDDR5/HBM timing constraints of
//! [`DramTiming`], and an FR-FCFS scheduler (first ready, first come first served: row hits
//! before anything else, then the oldest request). Time is in DRAM command-clock cycles.
//!
//! Each cycle the channel issues at most one command on its command bus:
//! 1. a column command (`RD`/`WR`) for the oldest queued request that hits an open row and is
//!    legal now;
//! 2. otherwise, for the oldest request whose bank can be made ready: `PRE` if another row is
//!    open there (never while a queued request still hits that row), or `ACT` if the bank is
//!    closed.
//!
//! With separate row and column buses (`dram.dual_bus`, GPGPU-Sim's `dual_bus_interface`),
//! step 2 also runs in a cycle that issued a column command.
//!
//! A column command moves `burst_length` transfers of the channel's data bus
//! (`chips * chip_bus_bytes` wide), occupying it for `burst_length / data_rate` cycles; read
//! data starts `CL` cycles after `RD`, write data `WL` cycles after `WR`.
//!
//! Each request comes with its bank and row ([`crate::mem::address::AddressMap`]).

use super::per_kernel::PerKernel;
use crate::config::{DramConfig, DramTiming};
use std::collections::VecDeque;

/// Most banks a channel may have (`DramConfig::banks`; the configuration checks it).
pub const MAX_BANKS: usize = 128;

/// A command on the DRAM command bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// Open `row` in `bank`.
    Act { bank: u32, row: u64 },
    /// Close the open row of `bank`.
    Pre { bank: u32 },
    /// Column read for request `id`.
    Rd { bank: u32, id: u64 },
    /// Column write for request `id`.
    Wr { bank: u32, id: u64 },
}

/// A memory request to the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Caller's id, returned on completion.
    pub id: u64,
    /// DRAM bank (the memory system's [`crate::mem::address::AddressMap`] decodes it).
    pub bank: u32,
    /// Row within the bank.
    pub row: u64,
    /// Write (true) or read.
    pub write: bool,
    /// The kernel (launch index) it serves, which its row hits and bus cycles count under.
    pub kernel: u32,
}

#[derive(Clone, Copy, Debug)]
struct Queued {
    req: Request,
    bank: u32,
    row: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Bank {
    open_row: Option<u64>,
    /// Earliest cycle for each command to this bank.
    next_act: u64,
    next_col: u64,
    next_pre: u64,
    /// No column command has used the open row since its `ACT` (the next one is a row miss).
    fresh: bool,
    /// Queued requests to the open row (kept as requests come, are served, and rows open and
    /// close, so the scheduler need not walk its queue to find the banks some request hits).
    queued_hits: u32,
}

/// One DRAM channel with its FR-FCFS queue.
#[derive(Clone, Debug)]
pub struct Channel {
    t: DramTiming,
    /// `dram.dual_bus`: a row command may issue beside a column command.
    dual_bus: bool,
    banks: Vec<Bank>,
    burst_cycles: u64,
    queue: VecDeque<Queued>,
    capacity: usize,
    now: u64,
    next_act_any: u64,
    next_col_any: u64,
    bus_free: u64,
    /// Completed requests as (id, cycle the last data beat arrives).
    done: Vec<(u64, u64)>,
    /// Cycles the data bus carried data.
    pub busy_cycles: u64,
    /// Column commands to a row that an earlier column command already used (row hits).
    pub row_hits: u64,
    /// Per kernel: its row hits and its data-bus cycles ([`Channel::counts_of`]).
    by_kernel: PerKernel<(u64, u64)>,
    /// Column commands issued.
    pub columns: u64,
}

impl Channel {
    /// A channel of `cfg`'s geometry and timing.
    pub fn new(cfg: &DramConfig) -> Self {
        Self {
            t: cfg.timing,
            dual_bus: cfg.dual_bus,
            banks: vec![Bank::default(); cfg.banks as usize],
            burst_cycles: (cfg.burst_length / cfg.data_rate).max(1) as u64,
            queue: VecDeque::new(),
            capacity: cfg.scheduler_queue as usize,
            now: 0,
            next_act_any: 0,
            next_col_any: 0,
            bus_free: 0,
            done: vec![],
            busy_cycles: 0,
            row_hits: 0,
            by_kernel: PerKernel::default(),
            columns: 0,
        }
    }

    /// Bytes one column command transfers.
    pub fn bytes_per_column(cfg: &DramConfig) -> u64 {
        (cfg.chips_per_channel * cfg.chip_bus_bytes * cfg.burst_length) as u64
    }

    /// Whether the scheduler queue has room.
    pub fn can_accept(&self) -> bool {
        self.queue.len() < self.capacity
    }

    /// Kernel `k`'s row hits and data-bus cycles.
    pub fn counts_of(&self, k: u32) -> (u64, u64) {
        self.by_kernel.get(k, &(self.row_hits, self.busy_cycles))
    }

    /// Queues a request; false (and nothing queued) when the queue is full.
    pub fn push(&mut self, req: Request) -> bool {
        if !self.can_accept() {
            return false;
        }
        let (bank, row) = (req.bank, req.row);
        let b = &mut self.banks[bank as usize];
        if b.open_row == Some(row) {
            b.queued_hits += 1;
        }
        self.queue.push_back(Queued { req, bank, row });
        true
    }

    /// Requests queued.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Current cycle.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Takes the completed requests (id, completion cycle), oldest first (the list keeps its
    /// storage for the next ones).
    pub fn drain_done(&mut self) -> std::vec::Drain<'_, (u64, u64)> {
        self.done.drain(..)
    }

    /// The ids of the requests the channel holds: queued, and completed but not yet taken.
    pub fn ids_in_flight(&self) -> impl Iterator<Item = u64> + '_ {
        let queued = self.queue.iter().map(|q| q.req.id);
        queued.chain(self.done.iter().map(|&(id, _)| id))
    }

    /// One command-clock cycle; returns the commands issued: a column command, a row command
    /// (without a dual bus, never both).
    pub fn cycle(&mut self) -> [Option<Cmd>; 2] {
        #[cfg(test)]
        for (i, b) in self.banks.iter().enumerate() {
            let hits = self
                .queue
                .iter()
                .filter(|q| q.bank as usize == i && b.open_row == Some(q.row))
                .count();
            assert_eq!(b.queued_hits as usize, hits, "bank {i}: queued row hits");
        }
        let col = self.column();
        let row = match col.is_none() || self.dual_bus {
            true => self.row(),
            false => None,
        };
        self.now += 1;
        [col, row]
    }

    /// Step 1: the column command of the oldest queued row hit, if one is legal now.
    fn column(&mut self) -> Option<Cmd> {
        // Every command serves a queued request.
        if self.queue.is_empty() {
            return None;
        }
        let now = self.now;
        let t = self.t;
        // 1. Oldest row hit whose column command is legal now (none can be while the column
        //    spacing or the data bus forbids every column command).
        let (read_ok, write_ok) = (
            now + t.cl as u64 >= self.bus_free,
            now + t.wl as u64 >= self.bus_free,
        );
        // Banks a queued request hits whose column command is legal now.
        let mut col_ready = [0u64; MAX_BANKS / 64];
        if self.next_col_any <= now && (read_ok || write_ok) {
            for (i, b) in self.banks.iter().enumerate() {
                let ok = b.queued_hits > 0 && b.next_col <= now;
                col_ready[i / 64] |= (ok as u64) << (i % 64);
            }
        }
        let hit = if col_ready.iter().any(|&m| m != 0) {
            self.queue.iter().position(|q| {
                col_ready[q.bank as usize / 64] >> (q.bank % 64) & 1 == 1
                    && self.banks[q.bank as usize].open_row == Some(q.row)
                    && if q.req.write { write_ok } else { read_ok }
            })
        } else {
            None
        };
        if let Some(i) = hit {
            let q = self.queue.remove(i).expect("index is valid");
            let b = &mut self.banks[q.bank as usize];
            b.queued_hits -= 1;
            let lat = if q.req.write { t.wl } else { t.cl } as u64;
            let data_start = now + lat;
            let data_end = data_start + self.burst_cycles;
            self.bus_free = data_end;
            self.by_kernel
                .set_owner(q.req.kernel, &(self.row_hits, self.busy_cycles));
            self.busy_cycles += self.burst_cycles;
            if let Some(o) = self.by_kernel.owner_mut() {
                o.1 += self.burst_cycles;
            }
            self.next_col_any = now + t.ccd as u64;
            // A precharge must wait for the data (reads) or write recovery (writes).
            let pre_after = if q.req.write {
                data_end + t.wr as u64
            } else {
                now + self.burst_cycles
            };
            b.next_pre = b.next_pre.max(pre_after);
            self.columns += 1;
            if !std::mem::take(&mut b.fresh) {
                self.row_hits += 1;
                if let Some(o) = self.by_kernel.owner_mut() {
                    o.0 += 1;
                }
            }
            self.done.push((q.req.id, data_end));
            return Some(if q.req.write {
                Cmd::Wr {
                    bank: q.bank,
                    id: q.req.id,
                }
            } else {
                Cmd::Rd {
                    bank: q.bank,
                    id: q.req.id,
                }
            });
        }
        None
    }

    /// Step 2: prepare the bank of the oldest request that needs it. Banks whose open row some
    /// queued request still hits are never precharged. Nothing to do while no ACT is allowed
    /// and no open bank may be precharged.
    fn row(&mut self) -> Option<Cmd> {
        if self.queue.is_empty() {
            return None;
        }
        let (now, t) = (self.now, self.t);
        let act_possible = self.next_act_any <= now;
        if !act_possible
            && !self
                .banks
                .iter()
                .any(|b| b.open_row.is_some() && b.next_pre <= now)
        {
            return None;
        }
        // Banks that can take their command now: open ones whose row nobody wants and whose
        // precharge is legal, closed ones whose activate is legal. Every queued request to
        // such a bank misses its row (a wanted open row is never actionable), so the oldest
        // request to an actionable bank gets the command.
        let mut actionable = [0u64; MAX_BANKS / 64];
        for (i, b) in self.banks.iter().enumerate() {
            let wanted = b.queued_hits > 0;
            let ok = match b.open_row {
                Some(_) => !wanted && b.next_pre <= now,
                None => act_possible && b.next_act <= now,
            };
            actionable[i / 64] |= (ok as u64) << (i % 64);
        }
        if actionable.iter().all(|&m| m == 0) {
            return None;
        }
        let q = *self
            .queue
            .iter()
            .find(|q| actionable[q.bank as usize / 64] >> (q.bank % 64) & 1 == 1)?;
        let b = &mut self.banks[q.bank as usize];
        if b.open_row.is_some() {
            b.open_row = None;
            b.queued_hits = 0;
            b.next_act = b.next_act.max(now + t.rp as u64);
            return Some(Cmd::Pre { bank: q.bank });
        }
        let hits = self
            .queue
            .iter()
            .filter(|r| r.bank == q.bank && r.row == q.row)
            .count() as u32;
        let b = &mut self.banks[q.bank as usize];
        b.open_row = Some(q.row);
        b.queued_hits = hits;
        b.next_col = now + t.rcd as u64;
        b.next_pre = now + t.ras as u64;
        b.next_act = now + t.rc as u64;
        self.next_act_any = now + t.rrd as u64;
        b.fresh = true;
        Some(Cmd::Act {
            bank: q.bank,
            row: q.row,
        })
    }
}

#[cfg(test)]
mod tests;
