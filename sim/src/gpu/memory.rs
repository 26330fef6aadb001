//! The memory side of the GPU: SM-to-memory crossbar, L2 slices (one per memory
//! sub-partition) with their ROP queue and MSHRs, DRAM channels, memory-to-SM crossbar.
//!
//! # Timing, per core cycle (GPGPU-Sim's order: the interconnect, L2 and ROP run at the core
//! clock here; the DRAM at its own command clock)
//! 1. each slice takes packets from the up crossbar into its ROP queue (`l2.latency` cycles,
//!    GPGPU-Sim's `-gpgpu_l2_rop_latency`), at most [`ROP_QUEUE`] waiting;
//! 2. each slice sends at most one request from the ROP queue head into the L2: a read hit
//!    answers at once, a miss goes to the MSHRs and the miss queue, a write is kept
//!    (write-back, write-allocate) and acknowledged, a refused access is retried next cycle;
//! 3. L2 misses and write-backs become DRAM column bursts in their channel's FR-FCFS queue,
//!    the channel's sub-partitions taking turns (GPGPU-Sim's `memory_partition_unit::dram_cycle`);
//!    a line fill returns `dram.latency` core cycles after its last burst
//!    (GPGPU-Sim's `-dram_latency`). A sectored L2 (`l2.sector_bytes`) keeps each sector
//!    valid on its own and fetches only the sectors a miss touches, each with its own
//!    bursts, a whole burst even for a sector smaller than one (GPGPU-Sim: a 128 B fill is
//!    four 32 B reads of one 64 B burst each; a 32 B bypassed read or atomic fetches its one
//!    sector); a write-back writes the line in whole bursts;
//! 4. replies enter the down crossbar towards their SM.
//!
//! # Address mapping
//! [`AddressMap`]: the model's own (consecutive chunks of `l2.line_bytes * sub_partitions`
//! bytes to consecutive channels, as GPGPU-Sim's `dramid@8` mapping does for 6 channels of 2
//! slices; the lines of a chunk to the channel's consecutive slices), or GPGPU-Sim's decoder
//! when the configuration has `dram.address_mapping`. A slice indexes its L2 sets with the
//! partition address (linear, or IPOLY with `l2.set_index = "ipoly"`).

use crate::config::{GpuConfig, PartitionQueues, SetIndexFn, WriteAllocate};
use crate::mem::address::AddressMap;
use crate::mem::cache::SetIndex;
use crate::mem::crossbar::Crossbar;
use crate::mem::data_cache::{DataCache, Fail, Outcome, WritePolicy};
use crate::mem::dram::{Channel, Request};
use crate::mem::per_kernel::PerKernel;
use std::collections::{HashMap, VecDeque};

use super::stats::{CacheCounts, DramCounts};

/// A crossbar of `from` x `to` ports with the buffers of `ic`.
fn crossbar<P>(ic: &crate::config::InterconnectConfig, from: usize, to: usize) -> Crossbar<P> {
    let x = Crossbar::new(
        from,
        to,
        ic.latency,
        ic.flit_bytes,
        ic.input_buffer as usize,
    );
    match ic.output_buffer {
        0 => x,
        flits => x.with_output_capacity(flits),
    }
}

/// Requests waiting in one slice's ROP queue at most (GPGPU-Sim's queue is effectively
/// unbounded; a bound keeps the crossbar's backpressure meaningful) [assumed].
pub const ROP_QUEUE: usize = 64;
/// Bytes of a request or reply header.
pub const HEADER_BYTES: u32 = 8;

/// What a memory request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReqKind {
    /// L1D line fetch (global/local load miss).
    Read,
    /// A sector read of a global load that bypasses the L1D (the reply goes to the load's
    /// registers, tagged with its pending load; the L1D is not filled).
    ReadBypass,
    /// Write-through of a store (acknowledged once the L2 has taken it, so a warp can tell
    /// its stores are done, as GPGPU-Sim's `stores_done`).
    Write,
    /// Global atomic, executed at the L2 (reply carries the old values).
    Atomic,
    /// L1I line fetch.
    InstFetch,
}

/// A request from an SM, echoed back as the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemRequest {
    /// Requesting SM.
    pub sm: u16,
    /// Kind.
    pub kind: ReqKind,
    /// Byte address (a line address for fetches).
    pub addr: u64,
    /// Data bytes (fetched line, written bytes).
    pub bytes: u32,
    /// Requester's tag (atomics: the pending load; writes: the warp; fetches: unused).
    pub tag: u32,
    /// The kernel (launch index) whose access sent it: the L2 and DRAM count its events under
    /// that kernel.
    pub kernel: u32,
}

impl MemRequest {
    /// Bytes the request occupies on the up crossbar.
    pub fn request_bytes(&self) -> u32 {
        match self.kind {
            ReqKind::Write | ReqKind::Atomic => HEADER_BYTES + self.bytes,
            ReqKind::Read | ReqKind::ReadBypass | ReqKind::InstFetch => HEADER_BYTES,
        }
    }

    /// Bytes the reply occupies on the down crossbar (a write's acknowledgement is a header).
    pub fn reply_bytes(&self) -> u32 {
        match self.kind {
            ReqKind::Write => HEADER_BYTES,
            ReqKind::Read | ReqKind::ReadBypass | ReqKind::Atomic | ReqKind::InstFetch => {
                HEADER_BYTES + self.bytes
            }
        }
    }
}

/// The addresses of the DRAM read bursts that fetch sectors `sectors` of `line`, sectors of
/// `sector` bytes read in `per_sector` bursts each, in address order.
fn read_burst_addrs(line: u64, sectors: u32, sector: u64, per_sector: u64) -> Vec<u64> {
    let step = sector / per_sector;
    (0..32u64)
        .filter(|s| sectors >> s & 1 == 1)
        .flat_map(|s| (0..per_sector).map(move |b| line + s * sector + b * step))
        .collect()
}

/// Counts a done read burst of `sector` (a one-bit mask) of `line`; returns the sectors of the
/// fetch it belongs to when it was that fetch's last burst.
fn finish_burst(reading: &mut HashMap<u64, Vec<Reading>>, line: u64, sector: u32) -> Option<u32> {
    let fetches = reading.get_mut(&line)?;
    let i = fetches.iter().position(|f| f.sectors & sector != 0)?;
    fetches[i].left -= 1;
    if fetches[i].left > 0 {
        return None;
    }
    let done = fetches.remove(i).sectors;
    if fetches.is_empty() {
        reading.remove(&line);
    }
    Some(done)
}

/// Sectors of `sector` bytes that `bytes` bytes from `addr` touch (at least 1); 1 when the
/// cache is not sectored (`sector` 0).
fn sectors_touched(addr: u64, bytes: u32, sector: u64) -> u64 {
    match sector {
        0 => 1,
        s => {
            let end = addr + (bytes as u64).max(1);
            (end.div_ceil(s) - addr / s).max(1)
        }
    }
}

/// Cycles an access taken with outcome `o` holds its L2: one per sector of `sector` bytes it
/// touches in a sectored L2 (GPGPU-Sim splits a request into sector requests of the port's
/// width); without sectors, with a data port of `port` bytes, the port's cycles for a hit or
/// a kept write and one for a miss; otherwise one.
fn l2_busy(req: &MemRequest, o: Outcome, port: u64, sector: u64) -> u64 {
    let ported = port > 0 && matches!(o, Outcome::Hit | Outcome::WriteBack { .. });
    match (sector, ported) {
        (0, true) => (req.bytes as u64).div_ceil(port).max(1),
        _ => sectors_touched(req.addr, req.bytes, sector),
    }
}

/// The packets a reply crosses the down crossbar in, and the bytes of each: a sectored L2
/// answers a line read (L1D or L1I) with one packet per sector, header and sector data (GPGPU-Sim
/// returns each sector request of a line on its own); any other reply is one packet.
fn reply_pieces(r: &MemRequest, sector: u64) -> (u32, u32) {
    let line_read = matches!(
        r.kind,
        ReqKind::Read | ReqKind::ReadBypass | ReqKind::InstFetch
    );
    match sector {
        s if s > 0 && line_read && u64::from(r.bytes) > s => (
            sectors_touched(r.addr, r.bytes, s) as u32,
            HEADER_BYTES + s as u32,
        ),
        _ => (1, r.reply_bytes()),
    }
}

struct Slice {
    /// Requests in the ROP delay, each with the cycle its delay ends; with GPGPU-Sim's
    /// partition queues the first `entered` of them have moved on into the L2's input queue.
    rop: VecDeque<(u64, MemRequest)>,
    /// With GPGPU-Sim's partition queues: how many of `rop`'s first requests are in the
    /// `icnt_L2` queue (the L2 looks up its head).
    entered: usize,
    l2: DataCache<MemRequest>,
    replies: VecDeque<MemRequest>,
    /// The L2 version at which the ROP head's access last failed, and why (it fails again,
    /// the same way, until the L2 changes).
    failed_at: Option<(u64, Fail)>,
    /// The first cycle the L2 takes another access: a sectored L2 looks up one sector per
    /// cycle, so a request holds it one cycle per sector it touches.
    free_at: u64,
    /// Pieces of the head reply already in the down crossbar.
    reply_sent: u32,
}

impl Slice {
    /// Takes requests that have crossed the up crossbar into the ROP delay: with the model's
    /// own queue, while it holds fewer than [`ROP_QUEUE`]; with GPGPU-Sim's, one a cycle while
    /// the `icnt_L2` queue has room for four.
    fn take_from_crossbar(
        &mut self,
        up: &mut Crossbar<MemRequest>,
        p: usize,
        now: u64,
        rop_latency: u64,
        q: &PartitionQueues,
    ) {
        if q.enabled {
            let full = q.icnt_to_l2 > 0 && self.entered + 4 > q.icnt_to_l2 as usize;
            if let Some(r) = (!full).then(|| up.pop(p)).flatten() {
                self.rop.push_back((now + rop_latency, r));
            }
            return;
        }
        while self.rop.len() < ROP_QUEUE {
            match up.pop(p) {
                Some(r) => self.rop.push_back((now + rop_latency, r)),
                None => break,
            }
        }
    }

    /// Whether the L2 looks up the head request this cycle: its port is free, and the head
    /// has passed the ROP delay (the model's own queue) or is in the `icnt_L2` queue with room
    /// for its reply in `L2_icnt` (GPGPU-Sim's).
    fn l2_can_take(&self, now: u64, q: &PartitionQueues) -> bool {
        if self.free_at > now {
            return false;
        }
        if q.enabled {
            let reply_room = q.l2_to_icnt == 0 || self.replies.len() < q.l2_to_icnt as usize;
            return self.entered > 0 && reply_room;
        }
        self.rop.front().is_some_and(|&(ready, _)| ready <= now)
    }

    /// The L2 took the head request.
    fn leave_rop(&mut self) {
        self.rop.pop_front();
        self.entered = self.entered.saturating_sub(1);
    }

    /// GPGPU-Sim's ROP step, after the L2's: the first request still in the delay moves into
    /// the `icnt_L2` queue once its delay is over and the queue has room (one a cycle).
    fn enter_l2_queue(&mut self, now: u64, icnt_to_l2: u32) {
        let room = icnt_to_l2 == 0 || self.entered < icnt_to_l2 as usize;
        if room
            && self
                .rop
                .get(self.entered)
                .is_some_and(|&(ready, _)| ready <= now)
        {
            self.entered += 1;
        }
    }
}

struct DramChannel {
    dram: Channel,
    /// Bursts waiting for room in the FR-FCFS queue.
    outbox: VecDeque<Request>,
    /// Reads in flight, by line: each fetch's sectors and its bursts still to complete (a
    /// sectored line may have several fetches of different sectors in flight).
    reading: HashMap<u64, Vec<Reading>>,
    /// Fetches whose data is back: the core cycle they reach the L2, the line and its sectors.
    returned: VecDeque<(u64, u64, u32)>,
    /// The channel's sub-partition (0 .. `sub_partitions`) whose miss entered its outbox
    /// last: the next one starts after it (GPGPU-Sim's `arbitration_metadata::last_borrower`).
    last_sub: usize,
}

/// One L2 fetch in a DRAM channel: the line's sectors it reads and its bursts not yet done.
#[derive(Clone, Copy, Debug)]
struct Reading {
    sectors: u32,
    left: u32,
}

/// Crossbars, L2 slices and DRAM channels.
pub struct MemorySystem {
    up: Crossbar<MemRequest>,
    /// Replies, each as its pieces (a sectored L2 answers a line read sector by sector); the
    /// flag marks a reply's last piece, which delivers it.
    down: Crossbar<(MemRequest, bool)>,
    slices: Vec<Slice>,
    channels: Vec<DramChannel>,
    map: AddressMap,
    rop_latency: u64,
    /// GPGPU-Sim's queues around the L2, when the configuration has them.
    queues: PartitionQueues,
    /// `l2.sector_bytes` (0: the L2 is not sectored; a request takes one cycle).
    sector_bytes: u64,
    /// `l2.port_bytes` (0: no data port limit beyond one access per cycle).
    port_bytes: u64,
    dram_latency: u64,
    line_bytes: u64,
    burst_bytes: u64,
    /// Bytes of an L2 sector (the line's when the L2 is not sectored).
    sector: u64,
    /// DRAM read bursts per sector, and the bytes of the sector each one brings.
    sector_bursts: u64,
    read_burst_bytes: u64,
    /// DRAM read bursts of a whole line's fill.
    read_bursts: u64,
    /// L2 slices per channel (a channel's are consecutive: `c * subs ..`).
    subs: usize,
    /// Clock-domain crossing: DRAM ticks owed, in units of 1/core_khz.
    dram_phase: u64,
    core_khz: u64,
    dram_khz: u64,
    now: u64,
    dram_reads: u64,
    dram_writes: u64,
    /// Per kernel: its DRAM read and write bursts.
    dram_by_kernel: PerKernel<(u64, u64)>,
    /// Per SM: requests the up crossbar took, and replies the SM took (their difference is
    /// what the memory system must hold for that SM; see [`MemorySystem::held`]).
    accepted: Vec<u64>,
    delivered: Vec<u64>,
    /// A planted model bug, for the tests that show the audit catches lost requests.
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

/// A model bug planted by a test.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The reply that would be the `n`-th (0-based) taken by any SM vanishes in the down
    /// crossbar.
    DropReply(u64),
    /// DRAM completions of reads are ignored (a fill never returns, as when a request id lost
    /// its high address bits).
    IgnoreDramReads,
}

/// The requests the memory system holds for each SM, by what their replies answer: the line
/// for reads and instruction fetches, the tag for writes (the warp), atomics and bypassed reads
/// (the load).
#[derive(Clone, Debug, Default)]
pub struct Held {
    by_sm: Vec<HashMap<(ReqKind, u64), u32>>,
}

impl Held {
    /// Requests of `kind` for SM `sm` answering `key` (line or tag).
    pub fn count(&self, sm: usize, kind: ReqKind, key: u64) -> u32 {
        self.by_sm[sm].get(&(kind, key)).copied().unwrap_or(0)
    }

    /// The keys (lines or tags) of the requests of `kind` held for SM `sm`.
    pub fn keys(&self, sm: usize, kind: ReqKind) -> impl Iterator<Item = u64> + '_ {
        self.by_sm[sm]
            .keys()
            .filter(move |(k, _)| *k == kind)
            .map(|&(_, key)| key)
    }

    fn add(&mut self, r: &MemRequest) {
        let key = match r.kind {
            ReqKind::Read | ReqKind::InstFetch => r.addr,
            ReqKind::Write | ReqKind::Atomic | ReqKind::ReadBypass => r.tag as u64,
        };
        *self.by_sm[r.sm as usize].entry((r.kind, key)).or_default() += 1;
    }

    /// Requests held for SM `sm`.
    fn total(&self, sm: usize) -> u64 {
        self.by_sm[sm].values().map(|&n| n as u64).sum()
    }
}

impl MemorySystem {
    /// The memory system of `cfg` for `sms` SMs.
    pub fn new(cfg: &GpuConfig) -> Self {
        let sms = cfg.sm.count as usize;
        let nslices = (cfg.dram.channels * cfg.dram.sub_partitions) as usize;
        let ic = &cfg.interconnect;
        let map = AddressMap::new(&cfg.dram, cfg.l2.line_bytes)
            .expect("the configuration's check decodes the mapping");
        let index = SetIndex::Partition {
            map,
            ipoly: cfg.l2.set_index == SetIndexFn::Ipoly,
        };
        let l2_policy = match cfg.l2.write_allocate {
            WriteAllocate::Lazy => WritePolicy::WriteBack,
            WriteAllocate::Fetch => WritePolicy::WriteBackFetch,
        };
        let slices = (0..nslices)
            .map(|_| Slice {
                rop: VecDeque::new(),
                entered: 0,
                l2: DataCache::with_policy(&cfg.l2, index, l2_policy).sectored(cfg.l2.sector_bytes),
                replies: VecDeque::new(),
                failed_at: None,
                free_at: 0,
                reply_sent: 0,
            })
            .collect();
        let line_bytes = cfg.l2.line_bytes as u64;
        let burst_bytes = Channel::bytes_per_column(&cfg.dram);
        let sector = match cfg.l2.sector_bytes {
            0 => line_bytes,
            b => b as u64,
        };
        let channels = (0..cfg.dram.channels)
            .map(|_| DramChannel {
                dram: Channel::new(&cfg.dram),
                outbox: VecDeque::new(),
                reading: HashMap::new(),
                returned: VecDeque::new(),
                last_sub: cfg.dram.sub_partitions as usize - 1,
            })
            .collect();
        Self {
            up: crossbar(ic, sms, nslices),
            down: crossbar(ic, nslices, sms),
            slices,
            channels,
            map,
            subs: cfg.dram.sub_partitions as usize,
            rop_latency: cfg.l2.latency as u64,
            queues: cfg.partition_queues,
            sector_bytes: cfg.l2.sector_bytes as u64,
            port_bytes: cfg.l2.port_bytes as u64,
            dram_latency: cfg.dram.latency as u64,
            line_bytes,
            burst_bytes,
            sector,
            sector_bursts: sector.div_ceil(burst_bytes),
            read_burst_bytes: sector.min(burst_bytes),
            read_bursts: line_bytes / sector * sector.div_ceil(burst_bytes),
            dram_phase: 0,
            core_khz: (cfg.sm.core_clock_mhz * 1000.0).round() as u64,
            dram_khz: (cfg.dram.clock_mhz * 1000.0).round() as u64,
            now: 0,
            dram_reads: 0,
            dram_writes: 0,
            dram_by_kernel: PerKernel::default(),
            accepted: vec![0; sms],
            delivered: vec![0; sms],
            #[cfg(test)]
            fault: None,
        }
    }

    /// Whether SM `sm` can send a request this cycle.
    pub fn can_send(&self, sm: usize) -> bool {
        self.up.can_push(sm)
    }

    /// Sends a request from its SM; false if that SM's crossbar input is full.
    pub fn send(&mut self, req: MemRequest) -> bool {
        let dst = self.map.slice(req.addr);
        let taken = self.up.push(req.sm as usize, dst, req.request_bytes(), req);
        self.accepted[req.sm as usize] += taken as u64;
        taken
    }

    /// Takes the next reply that has reached SM `sm`.
    pub fn receive(&mut self, sm: usize) -> Option<MemRequest> {
        let r = loop {
            match self.down.pop(sm)? {
                (r, true) => break r,
                (_, false) => continue,
            }
        };
        #[cfg(test)]
        if self.fault == Some(Fault::DropReply(self.delivered.iter().sum())) {
            self.fault = None;
            return self.receive(sm);
        }
        self.delivered[sm] += 1;
        Some(r)
    }

    /// Whether [`MemorySystem::receive`] has something for SM `sm` this cycle (a reply, or a
    /// piece of one, at its crossbar output).
    pub fn reply_due(&self, sm: usize) -> bool {
        self.down.has_ready(sm)
    }

    /// Every request the memory system holds, by SM: in the up crossbar, a ROP queue, an L2
    /// MSHR (waiting for its line), a slice's reply queue or the down crossbar.
    pub fn held(&self) -> Held {
        let mut h = Held {
            by_sm: vec![HashMap::new(); self.accepted.len()],
        };
        self.up.payloads().for_each(|r| h.add(r));
        for s in &self.slices {
            s.rop.iter().for_each(|(_, r)| h.add(r));
            for (_, waiting) in s.l2.mshr_entries() {
                waiting.iter().for_each(|r| h.add(r));
            }
            s.replies.iter().for_each(|r| h.add(r));
        }
        self.down
            .payloads()
            .filter(|(_, last)| *last)
            .for_each(|(r, _)| h.add(r));
        h
    }

    /// Checks that every request the memory system took can still complete, and appends a
    /// line to `out` for each that cannot: requests an SM sent that are nowhere (`held`), and
    /// L2 lines whose fill is not in flight (not in the miss queue, the DRAM channel or the
    /// return queue, or fewer bursts in the channel than the fill waits for).
    pub fn audit(&self, held: &Held, out: &mut Vec<String>) {
        for sm in 0..self.accepted.len() {
            let owed = self.accepted[sm] - self.delivered[sm];
            let found = held.total(sm);
            if found != owed {
                out.push(format!(
                    "sm {sm}: {owed} request(s) sent and not answered, but the memory system holds {found}"
                ));
            }
        }
        let mut bursts: HashMap<u64, u32> = HashMap::new();
        for ch in &self.channels {
            let ids = ch
                .outbox
                .iter()
                .map(|r| r.id)
                .chain(ch.dram.ids_in_flight());
            for id in ids.filter(|id| id & 1 == 0) {
                *bursts.entry(id & !(self.line_bytes - 1)).or_default() += 1;
            }
        }
        for (p, s) in self.slices.iter().enumerate() {
            for (line, waiting) in s.l2.mshr_entries() {
                let ch = &self.channels[self.map.channel(line)];
                let queued = s.l2.queued_fetches().any(|f| !f.write && f.line == line);
                let returned = ch.returned.iter().any(|&(_, l, _)| l == line);
                let reading = (ch.reading.get(&line))
                    .map(|fetches| fetches.iter().map(|f| f.left).sum::<u32>());
                let in_dram = bursts.get(&line).copied().unwrap_or(0);
                let fine = match reading {
                    Some(n) => n == in_dram,
                    None => queued || returned,
                };
                if !fine {
                    out.push(format!(
                        "L2 slice {p}: line {line:#x} waits for a fill that cannot arrive ({} request(s) wait on it; {}; {in_dram} of its bursts in DRAM channel {})",
                        waiting.len(),
                        match reading {
                            Some(n) => format!("{n} burst(s) outstanding"),
                            None => "not in the miss queue or the return queue".into(),
                        },
                        self.map.channel(line)
                    ));
                }
            }
        }
    }

    /// One core cycle of everything below the SMs.
    pub fn cycle(&mut self) {
        let now = self.now;
        self.up.cycle();
        for (p, s) in self.slices.iter_mut().enumerate() {
            s.take_from_crossbar(&mut self.up, p, now, self.rop_latency, &self.queues);
            if !s.l2_can_take(now, &self.queues) {
                continue;
            }
            let Some(&(_, req)) = s.rop.front() else {
                continue;
            };
            s.l2.set_owner(req.kernel);
            if let Some((_, why)) = s.failed_at.filter(|&(v, _)| v == s.l2.version()) {
                s.l2.repeat_fail(why);
            } else {
                let write = req.kind == ReqKind::Write;
                s.failed_at = None;
                let o = s.l2.access_sized(req.addr, req.bytes, write, req);
                if !matches!(o, Outcome::Fail(_)) {
                    s.free_at = now + l2_busy(&req, o, self.port_bytes, self.sector_bytes);
                }
                match o {
                    Outcome::Fail(why) => s.failed_at = Some((s.l2.version(), why)),
                    Outcome::Hit | Outcome::WriteBack { .. } => {
                        s.replies.push_back(req);
                        s.leave_rop();
                    }
                    _ => s.leave_rop(),
                }
            }
        }
        if self.queues.enabled {
            for s in &mut self.slices {
                s.enter_l2_queue(now, self.queues.icnt_to_l2);
            }
        }
        self.drain_miss_queues();
        self.tick_dram();
        // Returned lines fill their slices.
        for c in 0..self.channels.len() {
            while let Some(&(ready, line, sectors)) = self.channels[c].returned.front() {
                if ready > now {
                    break;
                }
                self.channels[c].returned.pop_front();
                let s = &mut self.slices[self.map.slice(line)];
                for r in s.l2.fill_sectors(line, sectors) {
                    s.replies.push_back(r);
                }
            }
        }
        for (p, s) in self.slices.iter_mut().enumerate() {
            while let Some(&r) = s.replies.front() {
                let (pieces, bytes) = reply_pieces(&r, self.sector_bytes);
                let last = s.reply_sent + 1 == pieces;
                if !self.down.push(p, r.sm as usize, bytes, (r, last)) {
                    break;
                }
                s.reply_sent += 1;
                if last {
                    s.reply_sent = 0;
                    s.replies.pop_front();
                }
            }
        }
        self.down.cycle();
        self.now += 1;
    }

    /// Moves L2 misses and write-backs into their channel's outbox while it holds fewer than
    /// two lines' bursts, one at a time, taking the channel's sub-partitions in round robin
    /// from the one after the last served (GPGPU-Sim's `memory_partition_unit::dram_cycle`:
    /// the sub-partitions of a channel take turns, so neither can starve the other). The rest
    /// wait in their L2's miss queue, which then refuses new misses (backpressure).
    fn drain_miss_queues(&mut self) {
        let write_bursts = (self.line_bytes / self.burst_bytes).max(1);
        let most = 2 * write_bursts.max(self.read_bursts);
        let (sector, per_sector) = (self.sector, self.sector_bursts);
        for (c, ch) in self.channels.iter_mut().enumerate() {
            let subs = self.subs;
            let slices = &mut self.slices[c * subs..(c + 1) * subs];
            while (ch.outbox.len() as u64) < most {
                let Some(sp) = (1..=subs)
                    .map(|k| (ch.last_sub + k) % subs)
                    .find(|&sp| slices[sp].l2.peek_fetch().is_some())
                else {
                    break;
                };
                ch.last_sub = sp;
                let f = slices[sp].l2.pop_fetch().expect("peeked");
                debug_assert!(f.line.is_multiple_of(self.line_bytes));
                let addrs = match f.write {
                    true => {
                        let n = (f.bytes as u64)
                            .div_ceil(self.burst_bytes)
                            .clamp(1, write_bursts);
                        (0..n).map(|b| f.line + b * self.burst_bytes).collect()
                    }
                    false => read_burst_addrs(f.line, f.sectors, sector, per_sector),
                };
                let bursts = addrs.len() as u64;
                for addr in addrs {
                    // The id is the burst's address with the write flag in bit 0 (a burst is
                    // aligned to at least 2 bytes): the line and the sector survive.
                    let at = self.map.locate(addr);
                    ch.outbox.push_back(Request {
                        id: addr | f.write as u64,
                        bank: at.bank,
                        row: at.row,
                        write: f.write,
                        kernel: f.owner,
                    });
                }
                self.dram_by_kernel
                    .set_owner(f.owner, &(self.dram_reads, self.dram_writes));
                let mine = self.dram_by_kernel.owner_mut();
                if f.write {
                    self.dram_writes += bursts;
                    if let Some(m) = mine {
                        m.1 += bursts;
                    }
                } else {
                    self.dram_reads += bursts;
                    if let Some(m) = mine {
                        m.0 += bursts;
                    }
                    ch.reading.entry(f.line).or_default().push(Reading {
                        sectors: f.sectors,
                        left: bursts as u32,
                    });
                }
            }
        }
    }

    fn tick_dram(&mut self) {
        self.dram_phase += self.dram_khz;
        while self.dram_phase >= self.core_khz {
            self.dram_phase -= self.core_khz;
            for ch in &mut self.channels {
                while let Some(r) = ch.outbox.front() {
                    if !ch.dram.push(*r) {
                        break;
                    }
                    ch.outbox.pop_front();
                }
                ch.dram.cycle();
                // The channel reports a read when its column command issues; the line is
                // there when its last burst has crossed the bus (`data_end`, DRAM cycles), as
                // in GPGPU-Sim's dram.cc, whose returns wait for CL and the burst.
                let dram_now = ch.dram.now();
                for (id, data_end) in ch.dram.drain_done() {
                    if id & 1 == 1 {
                        continue;
                    }
                    #[cfg(test)]
                    if self.fault == Some(Fault::IgnoreDramReads) {
                        continue;
                    }
                    let line = id & !(self.line_bytes - 1);
                    let sector = 1u32 << ((id - line) / self.sector);
                    if let Some(sectors) = finish_burst(&mut ch.reading, line, sector) {
                        let transfer = (data_end.saturating_sub(dram_now) * self.core_khz)
                            .div_ceil(self.dram_khz);
                        let ready = self.now + transfer + self.dram_latency;
                        ch.returned.push_back((ready, line, sectors));
                    }
                }
            }
        }
    }

    /// L2 counters summed over slices.
    pub fn l2_counts(&self) -> CacheCounts {
        let mut c = CacheCounts::default();
        for s in &self.slices {
            c.add(&s.l2.stats);
        }
        c
    }

    /// DRAM counters summed over channels.
    pub fn dram_counts(&self) -> DramCounts {
        let mut d = DramCounts {
            reads: self.dram_reads,
            writes: self.dram_writes,
            bytes: self.dram_reads * self.read_burst_bytes + self.dram_writes * self.burst_bytes,
            read_bytes: self.dram_reads * self.read_burst_bytes,
            ..Default::default()
        };
        for c in &self.channels {
            d.row_hits += c.dram.row_hits;
            d.busy_cycles += c.dram.busy_cycles;
        }
        d
    }

    /// Kernel `k`'s L2 counters summed over slices.
    pub fn l2_counts_of(&self, k: u32) -> CacheCounts {
        let mut c = CacheCounts::default();
        for s in &self.slices {
            c.add(&s.l2.stats_of(k));
        }
        c
    }

    /// Kernel `k`'s DRAM counters summed over channels.
    pub fn dram_counts_of(&self, k: u32) -> DramCounts {
        let (reads, writes) = self
            .dram_by_kernel
            .get(k, &(self.dram_reads, self.dram_writes));
        let mut d = DramCounts {
            reads,
            writes,
            bytes: reads * self.read_burst_bytes + writes * self.burst_bytes,
            read_bytes: reads * self.read_burst_bytes,
            ..Default::default()
        };
        for c in &self.channels {
            let (hits, busy) = c.dram.counts_of(k);
            d.row_hits += hits;
            d.busy_cycles += busy;
        }
        d
    }

    /// Flits moved (up, down).
    pub fn flits(&self) -> (u64, u64) {
        (self.up.stats.flits, self.down.stats.flits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::cache::TagArray;
    use std::collections::BTreeSet;

    /// Every slice's L2 uses every set over a range of consecutive lines (a set index on the
    /// global address would see only a quarter of them at 6 channels x 2 sub-partitions).
    #[test]
    fn every_l2_slice_uses_every_set() {
        let mut dram = GpuConfig::preset("gtx480").unwrap().dram;
        (dram.channels, dram.sub_partitions) = (6, 2);
        let map = AddressMap::new(&dram, 128).unwrap();
        let index = SetIndex::Partition { map, ipoly: false };
        let tags = TagArray::new(32, 16, 128, index);
        let global = TagArray::new(32, 16, 128, SetIndex::Linear);
        let mut sets = vec![BTreeSet::new(); 12];
        let mut global_sets = vec![BTreeSet::new(); 12];
        for line in 0..65_536u64 {
            let addr = line << 7;
            sets[map.slice(addr)].insert(tags.set_of(addr));
            global_sets[map.slice(addr)].insert(global.set_of(addr));
        }
        assert!(sets.iter().all(|s| s.len() == 32), "{sets:?}");
        assert!(global_sets.iter().all(|s| s.len() == 8));
    }

    /// Cycles at which slice 0's L2 takes each of four cold 128 B reads sent together by four
    /// SMs (they all miss), on a configuration with `sector_bytes` L2 sectors.
    fn l2_take_cycles(sector_bytes: u32) -> Vec<u64> {
        let mut cfg = GpuConfig::preset("gtx480").unwrap();
        cfg.l2.sector_bytes = sector_bytes;
        l2_read_cycles(&cfg, false)
    }

    /// A sectored L2 looks up one 32 B sector per cycle (GPGPU-Sim splits a line request into
    /// its sectors and its L2 takes one per cycle from `m_icnt_L2_queue`): a 128 B read holds
    /// the slice for four cycles; an L2 without sectors takes a request per cycle.
    #[test]
    fn a_sectored_l2_takes_one_sector_per_cycle() {
        let gaps = |t: Vec<u64>| t.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>();
        assert_eq!(gaps(l2_take_cycles(32)), [4, 4, 4]);
        assert_eq!(gaps(l2_take_cycles(0)), [1, 1, 1]);
        assert_eq!(sectors_touched(0x1010, 8, 32), 1);
        assert_eq!(sectors_touched(0x101c, 8, 32), 2, "a straddling write");
        assert_eq!(sectors_touched(0x1000, 128, 32), 4);
        assert_eq!(sectors_touched(0x1000, 128, 0), 1);
    }

    /// Cycles until 256 reads of one 32 B sector of a line already in its slice's L2, sent by
    /// 8 SMs, are all answered; also the most replies the slice ever held.
    fn hot_slice_cycles(queues: PartitionQueues) -> (u64, usize) {
        let mut cfg = GpuConfig::preset("gtx480").unwrap();
        cfg.partition_queues = queues;
        let mut mem = MemorySystem::new(&cfg);
        let read = |sm: usize, tag: u32| MemRequest {
            sm: sm as u16,
            kind: ReqKind::ReadBypass,
            addr: 0x8000,
            bytes: 32,
            tag,
            kernel: 0,
        };
        assert!(mem.send(read(0, 0)));
        while mem.receive(0).is_none() {
            mem.cycle();
        }
        let (mut sent, mut got, mut most) = ([0u32; 8], 0, 0);
        let start = mem.now;
        while got < 256 {
            for (sm, n) in sent.iter_mut().enumerate() {
                if *n < 32 && mem.send(read(sm, *n)) {
                    *n += 1;
                }
            }
            mem.cycle();
            most = most.max(mem.slices[mem.map.slice(0x8000)].replies.len());
            got += (0..8).filter_map(|sm| mem.receive(sm)).count();
            assert!(mem.now - start < 100_000, "the reads are answered");
        }
        (mem.now - start, most)
    }

    /// GPGPU-Sim's ROP delay holds any number of requests, so a slice hit by every SM looks
    /// up one a cycle behind its latency; the model's own queue of [`ROP_QUEUE`] requests
    /// lets at most that many through per ROP latency. The `L2_icnt` bound holds.
    #[test]
    fn gpgpusims_partition_queues_let_a_hot_slice_take_a_request_a_cycle() {
        let rop = GpuConfig::preset("gtx480").unwrap().l2.latency as u64;
        let gpgpusim = PartitionQueues {
            enabled: true,
            icnt_to_l2: 8,
            l2_to_icnt: 8,
        };
        let (fast, most) = hot_slice_cycles(gpgpusim);
        let (own, _) = hot_slice_cycles(PartitionQueues::default());
        assert!(
            fast < 256 + 2 * rop,
            "{fast} cycles with GPGPU-Sim's queues"
        );
        assert!(
            own > 256 * rop / ROP_QUEUE as u64,
            "{own} cycles with the model's own"
        );
        assert!(most <= 8, "at most l2_to_icnt replies wait: {most}");
        let unbounded = PartitionQueues {
            l2_to_icnt: 0,
            ..gpgpusim
        };
        assert!(hot_slice_cycles(unbounded).0 <= fast);
    }

    /// A sectored L2 answers a 128 B read with four packets of one sector each (GPGPU-Sim
    /// returns a line's sector requests one by one, each 32 B + header: one 40 B flit); the SM
    /// gets the reply once, with the last piece, and the memory system counts it as held
    /// until then. Without sectors the reply is one packet of 136 B.
    #[test]
    fn a_sectored_l2_answers_a_line_read_sector_by_sector() {
        for (sector, packets) in [(32, 4), (0, 1)] {
            let mut cfg = GpuConfig::preset("gtx480").unwrap();
            cfg.l2.sector_bytes = sector;
            let mut mem = MemorySystem::new(&cfg);
            let req = MemRequest {
                sm: 3,
                kind: ReqKind::Read,
                addr: 0x8000,
                bytes: 128,
                tag: 1,
                kernel: 0,
            };
            assert!(mem.send(req));
            let mut got = vec![];
            for _ in 0..10_000 {
                mem.cycle();
                while let Some(r) = mem.receive(3) {
                    got.push(r);
                }
                let held = mem.held().total(3);
                assert_eq!(held, 1 - got.len() as u64, "held once until delivered");
            }
            assert_eq!(got, [req], "sector {sector}: delivered once");
            assert_eq!(mem.down.stats.packets, packets, "sector {sector}");
            let mut problems = vec![];
            mem.audit(&mem.held(), &mut problems);
            assert!(problems.is_empty(), "{problems:?}");
        }
        let atomic = MemRequest {
            sm: 0,
            kind: ReqKind::Atomic,
            addr: 0x100,
            bytes: 128,
            tag: 0,
            kernel: 0,
        };
        assert_eq!(reply_pieces(&atomic, 32), (1, atomic.reply_bytes()));
    }

    /// A sectored L2 fetches only the sectors a miss touches: two 32 B bypassed reads of one
    /// line (sent together, so the second is a sector miss on a line being fetched) read two
    /// sectors from DRAM, and a line read after them the other two; without sectors the first
    /// read fetches the line and the rest hit or wait for it. The audit finds every fetch.
    #[test]
    fn a_sectored_l2_fetches_only_missing_sectors() {
        for (sector, reads) in [(32, [2, 4]), (0, [4, 4])] {
            let mut cfg = GpuConfig::preset("gtx480").unwrap();
            cfg.l2.sector_bytes = sector;
            let mut mem = MemorySystem::new(&cfg);
            let req = |kind, addr, bytes, tag| MemRequest {
                sm: 1,
                kind,
                addr,
                bytes,
                tag,
                kernel: 0,
            };
            let run = |mem: &mut MemorySystem, reqs: &[MemRequest]| {
                reqs.iter().for_each(|&r| assert!(mem.send(r)));
                let mut got = vec![];
                for t in 0..10_000 {
                    mem.cycle();
                    got.extend(std::iter::from_fn(|| mem.receive(1)));
                    if t % 50 == 0 {
                        let mut problems = vec![];
                        mem.audit(&mem.held(), &mut problems);
                        assert!(problems.is_empty(), "{problems:?}");
                    }
                }
                assert_eq!(
                    got.len(),
                    reqs.len(),
                    "sector {sector}: every reply arrives"
                );
                mem.dram_counts().read_bytes / 32
            };
            let bypass = [
                req(ReqKind::ReadBypass, 0x8020, 32, 1),
                req(ReqKind::ReadBypass, 0x8060, 32, 2),
            ];
            let first = run(&mut mem, &bypass);
            let then = run(&mut mem, &[req(ReqKind::Read, 0x8000, 128, 0)]);
            assert_eq!([first, then], reads, "sector {sector}: 32 B read from DRAM");
        }
    }

    /// Cycles at which slice 0's L2 takes each of four 128 B reads of its lines, sent
    /// together by four SMs, on `cfg`; with `warm`, the same reads were served once before
    /// (they hit).
    fn l2_read_cycles(cfg: &GpuConfig, warm: bool) -> Vec<u64> {
        let mut mem = MemorySystem::new(cfg);
        let mut taken = vec![];
        for round in 0..=u64::from(warm) {
            for i in 0..4u64 {
                let req = MemRequest {
                    sm: i as u16,
                    kind: ReqKind::Read,
                    addr: (6 * i) << 8,
                    bytes: 128,
                    tag: i as u32,
                    kernel: 0,
                };
                assert_eq!(mem.map.slice(req.addr), 0);
                assert!(mem.send(req));
            }
            taken.clear();
            for t in 1..2_000 {
                mem.cycle();
                let reads = mem.slices[0].l2.stats.reads as usize - 4 * round as usize;
                if reads > taken.len() {
                    assert_eq!(reads, taken.len() + 1, "one access per cycle at most");
                    taken.push(t);
                }
                (0..4).for_each(|sm| while mem.receive(sm).is_some() {});
            }
            assert_eq!(taken.len(), 4, "every read reached the L2");
        }
        taken
    }

    /// GPGPU-Sim 3.2.2's L2 takes an access only when its 32 B data port is free and a 128 B
    /// hit holds the port four cycles; a miss moves no data through it and the next access is
    /// taken a cycle later (`l2.port_bytes`).
    #[test]
    fn a_ported_l2_holds_a_hit_for_its_port_cycles_and_a_miss_for_one() {
        let gaps = |t: Vec<u64>| t.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>();
        let cfg = GpuConfig::preset("gtx480-3.2.2").unwrap();
        assert_eq!(cfg.l2.port_bytes, 32);
        assert_eq!(gaps(l2_read_cycles(&cfg, false)), [1, 1, 1], "misses");
        assert_eq!(gaps(l2_read_cycles(&cfg, true)), [4, 4, 4], "hits");
        let mut free = cfg.clone();
        free.l2.port_bytes = 0;
        assert_eq!(gaps(l2_read_cycles(&free, true)), [1, 1, 1], "no port");
    }

    /// Sends one 32 B write of a cold line from SM 0 and runs until its acknowledgement
    /// returns: the cycle it returned and the DRAM's read and write bursts.
    fn write_miss(cfg: &GpuConfig) -> (u64, u64, u64) {
        let mut mem = MemorySystem::new(cfg);
        let req = MemRequest {
            sm: 0,
            kind: ReqKind::Write,
            addr: 0x4020,
            bytes: 32,
            tag: 7,
            kernel: 0,
        };
        assert!(mem.send(req));
        for t in 1..10_000 {
            mem.cycle();
            if let Some(r) = mem.receive(0) {
                assert_eq!(r, req);
                for _ in 0..2_000 {
                    mem.cycle();
                }
                let d = mem.dram_counts();
                let mut problems = vec![];
                mem.audit(&mem.held(), &mut problems);
                assert!(problems.is_empty(), "{problems:?}");
                return (t, d.reads, d.writes);
            }
        }
        panic!("the write was never acknowledged");
    }

    /// A write miss under GPGPU-Sim 3.x's write-allocate (`l2.write_allocate = fetch`) writes
    /// its 32 B to DRAM (one burst), fetches the line (two 64 B bursts) and is acknowledged by
    /// the fill, after a DRAM round trip; GPGPU-Sim 4's lazy allocation acknowledges it from
    /// the L2 and moves nothing to DRAM.
    #[test]
    fn a_fetching_l2_write_miss_writes_on_fetches_the_line_and_waits_for_it() {
        let v3 = GpuConfig::preset("gtx480-3.2.2").unwrap();
        let (ack, reads, writes) = write_miss(&v3);
        assert_eq!((reads, writes), (2, 1));
        let mut read = v3.clone();
        read.l2.write_allocate = WriteAllocate::Lazy;
        let (lazy_ack, lazy_reads, lazy_writes) = write_miss(&read);
        assert_eq!((lazy_reads, lazy_writes), (0, 0));
        assert!(
            ack >= lazy_ack + u64::from(v3.dram.latency),
            "acknowledged after the fill: {ack} vs {lazy_ack} cycles"
        );
    }

    /// Core cycles from sending one 128 B read of a cold line until its reply reaches the SM.
    fn round_trip(cfg: &GpuConfig) -> u64 {
        let mut mem = MemorySystem::new(cfg);
        let req = MemRequest {
            sm: 0,
            kind: ReqKind::Read,
            addr: 0x4000,
            bytes: 128,
            tag: 7,
            kernel: 0,
        };
        assert!(mem.send(req));
        for t in 1..100_000 {
            mem.cycle();
            if let Some(r) = mem.receive(0) {
                assert_eq!(r, req);
                return t;
            }
        }
        panic!("no reply");
    }

    /// A miss's line is back `dram.latency` core cycles after its last burst has crossed the
    /// bus: CAS latency and burst length count, in DRAM cycles converted to core cycles (the
    /// fill used to return when the column command issued).
    #[test]
    fn a_miss_returns_after_its_cas_latency_and_burst() {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let base = round_trip(&cfg);
        let ratio = cfg.sm.core_clock_mhz / cfg.dram.clock_mhz;
        for extra in [8u32, 40] {
            let mut slow = cfg.clone();
            slow.dram.timing.cl += extra;
            let d = round_trip(&slow) - base;
            let want = extra as f64 * ratio;
            assert!(
                (d as f64 - want).abs() <= 1.0,
                "CL + {extra}: {d} core cycles longer, expected {want:.1}"
            );
        }
        let mut fixed = cfg.clone();
        fixed.dram.latency += 25;
        assert_eq!(round_trip(&fixed), base + 25);
    }

    /// The two sub-partitions of a channel take turns at its DRAM: with misses waiting in both,
    /// the first half of the replies holds both about equally (the first sub-partition used to
    /// be served while it had misses, so the second waited for all of them).
    #[test]
    fn a_channels_sub_partitions_take_turns_at_its_dram() {
        let cfg = GpuConfig::preset("gtx480").unwrap();
        assert_eq!((cfg.dram.channels, cfg.dram.sub_partitions), (6, 2));
        let sms = cfg.sm.count as usize;
        let mut mem = MemorySystem::new(&cfg);
        // Channel 0's chunks are every sixth 256 B chunk; address bit 7 picks the slice. The
        // lines share one DRAM bank and row, so FR-FCFS keeps their arrival order. Each SM
        // sends its reads to one slice, so both slices fill up at once.
        let n = 64u64;
        let mut queues: Vec<Vec<MemRequest>> = vec![vec![]; sms];
        for i in 0..n {
            let sm = (i % 2) as usize + 2 * ((i / 2) as usize % (sms / 2));
            queues[sm].push(MemRequest {
                sm: sm as u16,
                kind: ReqKind::Read,
                addr: (6 * (i / 2)) << 8 | (i % 2) << 7,
                bytes: 128,
                tag: i as u32,
                kernel: 0,
            });
        }
        for q in &mut queues {
            q.reverse();
        }
        let mut order = vec![];
        for _ in 0..100_000 {
            for q in &mut queues {
                while let Some(&r) = q.last() {
                    assert_eq!(
                        (mem.map.channel(r.addr), mem.map.slice(r.addr)),
                        (0, (r.tag % 2) as usize)
                    );
                    if !mem.send(r) {
                        break;
                    }
                    q.pop();
                }
            }
            mem.cycle();
            for sm in 0..sms {
                while let Some(r) = mem.receive(sm) {
                    order.push(mem.map.slice(r.addr));
                }
            }
            if order.len() == n as usize {
                break;
            }
        }
        assert_eq!(order.len(), n as usize, "every read answered");
        let second = order[..n as usize / 2].iter().filter(|&&s| s == 1).count();
        assert!(
            (n as usize / 4 - 4..=n as usize / 4 + 4).contains(&second),
            "reply order by slice: {order:?}"
        );
    }
}
