//! The SM's half of the lost-request audit (the memory system's half is
//! [`MemorySystem::audit`](crate::gpu::memory::MemorySystem::audit)): everything the SM waits
//! for from memory must be on its way. Run when the watchdog fires, so that a request the
//! model lost is reported as a model error and not as a warp deadlock.
//!
//! Checked, with `held` the requests the memory system holds for this SM:
//! - every L1D and L1I MSHR line is in its cache's miss queue, the L1D latency queue (L1D)
//!   or held as a read (fetch);
//! - every load or atomic in flight waits for exactly as many transactions as are found in
//!   the L1D MSHRs, the LSU queue, the queue of uncached requests (atomics, bypassed reads)
//!   and `held`;
//! - every warp's unacknowledged stores are exactly those in the L1D miss queue, the L1D
//!   latency queue, the LSU queue and `held`;
//! - every warp's count of loads in flight is its number of pending loads, and a warp waiting
//!   on an instruction-cache miss is among the requests of an L1I MSHR line.

use super::{LsuKind, Sm};
use crate::gpu::memory::{Held, ReqKind};
use std::collections::{HashMap, HashSet};

impl Sm<'_> {
    /// Appends a line to `out` for each wait of this SM that nothing in flight can end.
    pub fn audit(&self, held: &Held, out: &mut Vec<String>) {
        let id = self.id;
        // Where each load token's transactions are.
        let mut found: HashMap<u32, u32> = HashMap::new();
        // A sectored L1D's read starts at its first missing sector: found by its line.
        let held_lines: HashSet<u64> = held
            .keys(id, ReqKind::Read)
            .map(|a| self.l1d.line(a))
            .collect();
        for (line, waiting) in self.l1d.mshr_entries() {
            let fetching = self
                .l1d
                .queued_fetches()
                .any(|f| !f.write && f.line == line)
                || self
                    .l1d_queue
                    .iter()
                    .any(|(_, r)| r.kind == ReqKind::Read && self.l1d.line(r.addr) == line)
                || held_lines.contains(&line);
            if !fetching {
                out.push(format!(
                    "sm {id}: L1D line {line:#x} waits for a fill that is nowhere in flight ({} transaction(s) wait on it)",
                    waiting.len()
                ));
            }
            for &t in waiting {
                *found.entry(t).or_default() += 1;
            }
        }
        let mut imiss: HashMap<usize, u32> = HashMap::new();
        for (_, waiting) in self.l1i.mshr_entries() {
            for &w in waiting {
                *imiss.entry(w as usize).or_default() += 1;
            }
        }
        let free: HashSet<u32> = self.free_pending.iter().copied().collect();
        let mut loads: HashMap<usize, u32> = HashMap::new();
        for (t, p) in self.pending.iter().enumerate() {
            if !free.contains(&(t as u32)) {
                *loads.entry(p.warp).or_default() += 1;
            }
        }
        for (w, warp) in self.warps.iter().enumerate() {
            if !warp.live {
                continue;
            }
            let n = loads.get(&w).copied().unwrap_or(0);
            if warp.loads != n {
                out.push(format!(
                    "sm {id} warp {w}: {} load(s) in flight, {n} of them pending",
                    warp.loads
                ));
            }
            if warp.imiss && !imiss.contains_key(&w) && !self.ifill.contains(&w) {
                out.push(format!(
                    "sm {id} warp {w}: waits on an instruction-cache miss no L1I MSHR or returned line holds"
                ));
            }
        }
        for (line, waiting) in self.l1i.mshr_entries() {
            let fetching = self.l1i.queued_fetches().any(|f| f.line == line)
                || held.count(id, ReqKind::InstFetch, line) > 0;
            if !fetching {
                out.push(format!(
                    "sm {id}: L1I line {line:#x} waits for a fill that is nowhere in flight ({} fetch(es) wait on it)",
                    waiting.len()
                ));
            }
        }
        let mut stores: HashMap<usize, u32> = HashMap::new();
        for f in self.l1d.queued_fetches().filter(|f| f.write) {
            *stores.entry(f.req.unwrap_or(0) as usize).or_default() += 1;
        }
        for (_, r) in self
            .l1d_queue
            .iter()
            .filter(|(_, r)| r.kind == ReqKind::Write)
        {
            *stores.entry(r.tag as usize).or_default() += 1;
        }
        for a in &self.uncached {
            match a.kind {
                ReqKind::Write => *stores.entry(a.tag as usize).or_default() += 1,
                _ => *found.entry(a.tag).or_default() += 1,
            }
        }
        for e in self.l1d_pipe.iter().flatten() {
            match e.kind {
                LsuKind::Store | LsuKind::StoreBypass => *stores.entry(e.warp).or_default() += 1,
                LsuKind::Load | LsuKind::LoadBypass | LsuKind::Atomic => {
                    *found.entry(e.token).or_default() += 1
                }
            }
        }
        if let Some(unit) = &self.lsu_queue {
            for (warp, kind, token) in unit.queued() {
                match kind {
                    LsuKind::Store | LsuKind::StoreBypass => *stores.entry(warp).or_default() += 1,
                    LsuKind::Load | LsuKind::LoadBypass | LsuKind::Atomic => {
                        *found.entry(token).or_default() += 1
                    }
                }
            }
        }
        for (t, p) in self.pending.iter().enumerate() {
            if p.outstanding == 0 {
                continue;
            }
            let n = found.get(&(t as u32)).copied().unwrap_or(0)
                + held.count(id, ReqKind::Atomic, t as u64)
                + held.count(id, ReqKind::ReadBypass, t as u64);
            if n != p.outstanding {
                out.push(format!(
                    "sm {id} warp {}: the load at pc {:#06x} waits for {} transaction(s), {n} of them in flight",
                    p.warp, p.inst.pc, p.outstanding
                ));
            }
        }
        for (w, warp) in self.warps.iter().enumerate() {
            let n = stores.get(&w).copied().unwrap_or(0) + held.count(id, ReqKind::Write, w as u64);
            if warp.stores != n {
                out.push(format!(
                    "sm {id} warp {w}: {} store(s) unacknowledged, {n} of them in flight",
                    warp.stores
                ));
            }
        }
    }
}
