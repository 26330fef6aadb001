//! The SM's operand collector, as GPGPU-Sim's (`shader.cc`: `opndcoll_rfu_t`, the pipeline
//! register sets, `pipelined_simd_unit`, `writeback`), when `pipeline.operand_collector.enabled`;
//! otherwise the SM charges `pipeline.operand_cycles` and `writeback_cycles` as fixed delays.
//! The sizes below are the defaults (GPGPU-Sim's `SM2_GTX480`), each set by
//! `pipeline.operand_collector`.
//!
//! An issued instruction goes into its class's issue register set (`ID_OC`: SP 2 slots, SFU 1,
//! MEM 1; barriers, exits and no-ops go through SP, double precision through SFU as GPGPU-Sim
//! does without DP units), then into a free collector unit of its class (SP 6, SFU 8, MEM 2),
//! which queues one read per distinct source register at that register's bank
//! (`(register + 1 + warp slot) % banks`: trace registers are numbered from 1). Each bank
//! serves the head of its queue once per collector step unless a write took the bank this
//! cycle's first step; the collector steps `port_throughput` times a cycle
//! (`-gpgpu_reg_file_port_throughput`), as GPGPU-Sim's `read_operands`. A unit
//! with all its operands dispatches (one per dispatch unit per cycle, each dispatch unit
//! scanning its class's units round robin from after the last it dispatched) into the class's
//! execute register set (`OC_EX`: SP 2, SFU 1, MEM 1). From there the SP and SFU pipelines
//! take the oldest instruction when their input register is free (one per initiation
//! interval), no instruction of theirs reaches the end in the same cycle, and one of the
//! `EX_WB` result buses is free for that cycle; a memory instruction goes to the LSU when it
//! is idle. A result enters `EX_WB` `latency + 1` cycles after its unit took it and is written
//! back the next cycle: each destination takes its bank for that cycle (a write that finds the
//! bank taken by an older write that cycle is dropped, as GPGPU-Sim's), the scoreboard releases
//! the registers, and a dependent instruction may issue in that same cycle.
//!
//! # Timing of one SM cycle (the SM calls these in this order)
//! [`Collector::writeback`] (start of the cycle), the LSU stage, [`Collector::execute`],
//! [`Collector::read_operands`] (dispatch, bank reads, collector-unit allocation), then issue
//! ([`Collector::push`]). A lone FFMA (latency 4) issued at `t` releases its destination at
//! `t + 10`: allocated `t + 1`, operands read `t + 2`, dispatched `t + 3`, taken by SP 0 at
//! `t + 4`, in `EX_WB` at `t + 9`.

use super::lsu::LsuOp;
use super::RZ;
use crate::config::OperandCollectorConfig;
use crate::workload::sass::OpClass;
use std::collections::VecDeque;

/// An instruction's entry in the collector.
pub(super) type Id = u32;

/// Register operands an instruction carries of each kind (the trace format's limit).
const MAX_OPERANDS: usize = 8;

/// An instruction class's path through the collector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Path {
    /// SP pipelines (ALU, FP, branches, barriers, exits, no-ops).
    Sp = 0,
    /// The SFU pipeline (transcendentals, double precision).
    Sfu = 1,
    /// The LSU (every memory instruction).
    Mem = 2,
}

/// What happens when a memory instruction reaches the LSU.
pub(super) enum AtLsu {
    /// A global or local access: its transactions join the LSU.
    Access(LsuOp),
    /// A shared-memory access taking the LSU for `conflict` cycles.
    Shared { conflict: u64 },
    /// A constant load.
    Const,
}

/// An instruction in the collector.
pub(super) struct OcInst {
    /// Issue order within the SM (GPGPU-Sim's `uid`: the oldest goes first at every choice).
    pub(super) uid: u64,
    /// Warp slot.
    pub(super) warp: usize,
    pub(super) path: Path,
    /// Cycles from its unit to its result, and between two instructions on that unit (SP
    /// and SFU paths).
    pub(super) latency: u64,
    pub(super) initiation: u64,
    dsts: [u16; MAX_OPERANDS],
    ndst: u8,
    srcs: [u16; MAX_OPERANDS],
    nsrc: u8,
    /// Memory instructions: what the LSU does with it.
    pub(super) at_lsu: Option<AtLsu>,
}

impl OcInst {
    /// An instruction of warp slot `warp` with these destination and source registers (at most
    /// [`MAX_OPERANDS`] of each are kept).
    pub(super) fn new(
        uid: u64,
        warp: usize,
        path: Path,
        (latency, initiation): (u64, u64),
        dsts: &[u16],
        srcs: &[u16],
        at_lsu: Option<AtLsu>,
    ) -> Self {
        let copy = |regs: &[u16]| {
            debug_assert!(regs.len() <= MAX_OPERANDS, "{} operands", regs.len());
            let mut a = [RZ; MAX_OPERANDS];
            let n = regs.len().min(MAX_OPERANDS);
            a[..n].copy_from_slice(&regs[..n]);
            (a, n as u8)
        };
        let ((dsts, ndst), (srcs, nsrc)) = (copy(dsts), copy(srcs));
        Self {
            uid,
            warp,
            path,
            latency,
            initiation: initiation.max(1),
            dsts,
            ndst,
            srcs,
            nsrc,
            at_lsu,
        }
    }

    /// Its destination registers.
    pub(super) fn dsts(&self) -> &[u16] {
        &self.dsts[..self.ndst as usize]
    }
}

/// The index of the generic collector units in [`Collector`]'s unit sets.
const GENERIC: usize = 3;

/// One collector unit: the instruction whose operands it gathers.
#[derive(Default)]
struct Unit {
    inst: Option<Id>,
    /// Bit `i`: source `i` not read yet.
    not_ready: u16,
}

/// GPGPU-Sim's operand collector, execute register sets, SP/SFU pipelines and `EX_WB` for one
/// SM (module documentation).
pub(super) struct Collector {
    /// Its sizes (`pipeline.operand_collector`).
    sizes: OperandCollectorConfig,
    /// SP pipelines: the first of `pipe_free_at`, the SFU pipelines after them.
    sp_pipes: usize,
    /// The instructions in the collector and pipelines (the sets below hold their ids).
    slab: Vec<OcInst>,
    /// Free entries of `slab`.
    free: Vec<Id>,
    /// Warp schedulers of the SM (an instruction of warp slot `w` is scheduler `w % n`'s).
    schedulers: usize,
    /// `ID_OC` per path, in issue order.
    id_oc: [VecDeque<Id>; 3],
    /// Collector units per set: the SP, SFU and MEM paths' own, then the generic ones
    /// ([`GENERIC`]).
    units: [Vec<Unit>; 4],
    /// Per set, bit `c`: collector unit `c` holds an instruction.
    busy: [u32; 4],
    /// Per set, bit `c`: collector unit `c` holds an instruction whose operands are all read.
    ready: [u32; 4],
    /// Dispatch units (SP ones, SFU, MEM, then the generic ones): the set each serves and
    /// the last collector unit it dispatched.
    dispatchers: Vec<(usize, usize)>,
    /// Per bank: the reads waiting, (unit set, unit, source index), oldest first.
    reads: Vec<VecDeque<(u8, u8, u8)>>,
    /// Bit `b`: bank `b` has reads waiting.
    waiting: u64,
    /// Bit `b`: bank `b` is written this cycle (its reads wait).
    writing: u64,
    /// `OC_EX` per path (any order; the oldest is taken first).
    oc_ex: [Vec<Id>; 3],
    /// Per SP then SFU pipeline: its input register is free from this cycle (`initiation`
    /// after it took an instruction).
    pipe_free_at: Vec<u64>,
    /// Instructions in the pipelines: (cycle it enters `EX_WB`, pipeline, instruction).
    in_pipes: Vec<(u64, usize, Id)>,
    /// Results written back this cycle.
    ex_wb: Vec<Id>,
    /// Instructions in the collector and pipelines per warp slot.
    pub(super) per_warp: Vec<u32>,
    /// Instructions in the collector and pipelines.
    total: u32,
    /// Issue counter (uids).
    next_uid: u64,
}

impl Collector {
    /// An empty collector of `sizes` (validated: 1 to 64 banks, 1 to 32 units per path, at
    /// most 32 generic ones, the shares of sub-cores even) in front of `sp_pipes` SP and
    /// `sfu_pipes` SFU pipelines, for an SM of `warps` warp slots and `schedulers` schedulers.
    pub(super) fn new(
        sizes: &OperandCollectorConfig,
        (sp_pipes, sfu_pipes): (usize, usize),
        warps: usize,
        schedulers: usize,
    ) -> Self {
        let per_path = match sizes.specialized {
            true => sizes.units.array(),
            false => [0; 3],
        };
        assert!(
            (1..=64).contains(&sizes.register_banks),
            "1..=64 register banks"
        );
        assert!(
            per_path.iter().all(|&n| n <= 32) && sizes.generic_units <= 32,
            "at most 32 collector units per set"
        );
        let [sp, sfu, mem] = per_path;
        let units = [sp, sfu, mem, sizes.generic_units];
        let mut dispatchers = vec![];
        if sizes.specialized {
            dispatchers.extend((0..sizes.dispatch_widths.sp).map(|_| (0, 0)));
            dispatchers.extend([(1, 0), (2, 0)]);
        }
        dispatchers.extend((0..sizes.generic_dispatchers).map(|_| (GENERIC, 0)));
        Self {
            sizes: sizes.clone(),
            sp_pipes,
            slab: vec![],
            free: vec![],
            schedulers: schedulers.max(1),
            id_oc: Default::default(),
            units: units.map(|n| (0..n).map(|_| Unit::default()).collect()),
            busy: [0; 4],
            ready: [0; 4],
            dispatchers,
            reads: (0..sizes.register_banks).map(|_| VecDeque::new()).collect(),
            waiting: 0,
            writing: 0,
            oc_ex: Default::default(),
            pipe_free_at: vec![0; sp_pipes + sfu_pipes],
            in_pipes: vec![],
            ex_wb: vec![],
            per_warp: vec![0; warps],
            total: 0,
            next_uid: 0,
        }
    }

    /// Free `ID_OC` slots of `path` for scheduler `sched`: instructions of that path it can
    /// issue now (with sub-cores, its own share of the slots).
    pub(super) fn free_slots(&self, path: Path, sched: usize) -> u32 {
        let p = path as usize;
        let width = self.sizes.issue_widths.array()[p] as usize;
        self.room(&self.id_oc[p], width, sched) as u32
    }

    /// Free slots of a register set of `width` slots holding `ids`, for scheduler `sched`:
    /// with sub-cores, of its `width / schedulers`.
    fn room<'a>(&self, ids: impl IntoIterator<Item = &'a Id>, width: usize, sched: usize) -> usize {
        match self.sizes.sub_cores {
            true => {
                let mine = ids.into_iter().filter(|&&id| self.sched(id) == sched);
                (width / self.schedulers).saturating_sub(mine.count())
            }
            false => width.saturating_sub(ids.into_iter().count()),
        }
    }

    /// Whether each scheduler has its own slots, units and banks.
    pub(super) fn sub_cores(&self) -> bool {
        self.sizes.sub_cores
    }

    /// The scheduler of instruction `id`.
    fn sched(&self, id: Id) -> usize {
        self.slab[id as usize].warp % self.schedulers
    }

    /// The units of set `set` an instruction of scheduler `sched` may take, as a mask (with
    /// sub-cores, the scheduler's share).
    fn unit_mask(&self, set: usize, sched: usize) -> u32 {
        let n = self.units[set].len();
        let all = ((1u64 << n) - 1) as u32;
        match self.sizes.sub_cores {
            true => {
                let share = n / self.schedulers;
                all & ((((1u64 << share) - 1) as u32) << (sched * share))
            }
            false => all,
        }
    }

    /// The next issue order number.
    pub(super) fn next_uid(&mut self) -> u64 {
        self.next_uid += 1;
        self.next_uid
    }

    /// Issues `inst` into its `ID_OC` (the caller checked [`Collector::free_slots`]).
    pub(super) fn push(&mut self, inst: OcInst) {
        self.per_warp[inst.warp] += 1;
        self.total += 1;
        let path = inst.path as usize;
        let id = match self.free.pop() {
            Some(id) => {
                self.slab[id as usize] = inst;
                id
            }
            None => {
                self.slab.push(inst);
                (self.slab.len() - 1) as Id
            }
        };
        self.id_oc[path].push_back(id);
    }

    /// Instruction `id`.
    pub(super) fn get(&self, id: Id) -> &OcInst {
        &self.slab[id as usize]
    }

    /// Instruction `id`'s LSU work (taken out).
    pub(super) fn take_lsu(&mut self, id: Id) -> Option<AtLsu> {
        self.slab[id as usize].at_lsu.take()
    }

    /// Nothing in the collector or the pipelines, and no bank written this cycle.
    pub(super) fn is_idle(&self) -> bool {
        self.total == 0 && self.writing == 0
    }

    /// The index in `ids` of the oldest instruction (smallest uid).
    fn oldest(&self, ids: &[Id]) -> Option<usize> {
        (0..ids.len()).min_by_key(|&k| self.slab[ids[k] as usize].uid)
    }

    /// The bank of register `reg` of warp slot `warp` (with sub-cores, among its scheduler's).
    fn bank(&self, reg: u16, warp: usize) -> usize {
        let banks = self.sizes.register_banks as usize;
        let r = reg as usize + 1 + warp;
        match self.sizes.sub_cores {
            true => {
                let share = banks / self.schedulers;
                r % share + (warp % self.schedulers) * share
            }
            false => r % banks,
        }
    }

    /// Writeback, at the start of a cycle: the results in `EX_WB`, oldest first, take their
    /// destinations' banks and are moved into `done` for the scoreboard's release (the caller
    /// calls [`Collector::retired`] for each).
    pub(super) fn writeback(&mut self, done: &mut Vec<Id>) {
        std::mem::swap(&mut self.ex_wb, done);
        self.ex_wb.clear();
        done.sort_unstable_by_key(|&id| self.slab[id as usize].uid);
        for &id in done.iter() {
            let inst = &self.slab[id as usize];
            for &r in inst.dsts() {
                if r == RZ {
                    continue;
                }
                let bit = 1u64 << self.bank(r, inst.warp);
                if self.writing & bit != 0 {
                    // GPGPU-Sim drops the rest of this instruction's writes.
                    break;
                }
                self.writing |= bit;
            }
        }
    }

    /// Instruction `id` left the collector (written back, or taken by the LSU); its entry is
    /// free again.
    pub(super) fn retired(&mut self, id: Id) {
        let warp = self.slab[id as usize].warp;
        self.per_warp[warp] -= 1;
        self.total -= 1;
        self.free.push(id);
    }

    /// Execute at `now`: results due enter `EX_WB`; each SP and SFU pipeline takes the oldest
    /// instruction of its `OC_EX` when it can; returns the oldest memory instruction of
    /// `OC_EX_MEM` when `lsu_free` (the caller hands it to the LSU and calls
    /// [`Collector::retired`]).
    pub(super) fn execute(&mut self, now: u64, lsu_free: bool) -> Option<Id> {
        let mut i = 0;
        while i < self.in_pipes.len() {
            if self.in_pipes[i].0 == now {
                let (_, _, inst) = self.in_pipes.swap_remove(i);
                self.ex_wb.push(inst);
            } else {
                debug_assert!(self.in_pipes[i].0 > now);
                i += 1;
            }
        }
        for p in 0..self.pipe_free_at.len() {
            let (path, index) = match p < self.sp_pipes {
                true => (0, p),
                false => (1, p - self.sp_pipes),
            };
            if self.pipe_free_at[p] > now {
                continue;
            }
            // With sub-cores, pipeline `index` of a kind serves one scheduler.
            let mine = |id: Id| !self.sizes.sub_cores || self.sched(id) == index % self.schedulers;
            let Some(k) = (0..self.oc_ex[path].len())
                .filter(|&k| mine(self.oc_ex[path][k]))
                .min_by_key(|&k| self.slab[self.oc_ex[path][k] as usize].uid)
            else {
                continue;
            };
            let inst = &self.slab[self.oc_ex[path][k] as usize];
            let arrives = now + inst.latency + 1;
            let (mut same_pipe, mut buses) = (false, 0);
            for e in self.in_pipes.iter().filter(|e| e.0 == arrives) {
                same_pipe |= e.1 == p;
                buses += 1;
            }
            if same_pipe || buses >= self.sizes.writeback_width as usize {
                continue;
            }
            self.pipe_free_at[p] = now + inst.initiation;
            let id = self.oc_ex[path].swap_remove(k);
            self.in_pipes.push((arrives, p, id));
        }
        let mem = Path::Mem as usize;
        match self.oldest(&self.oc_ex[mem]) {
            Some(k) if lsu_free => Some(self.oc_ex[mem].swap_remove(k)),
            _ => None,
        }
    }

    /// Read operands: `port_throughput` collector steps (GPGPU-Sim's `read_operands`).
    pub(super) fn read_operands(&mut self) {
        for _ in 0..self.sizes.port_throughput.max(1) {
            self.step();
        }
    }

    /// One collector step (`opndcoll_rfu_t::step`): ready collector units dispatch into
    /// `OC_EX`, every bank not written this step serves its oldest read, `ID_OC` instructions
    /// take free collector units and queue their reads; then the banks are free again (a
    /// write takes its bank in the cycle's first step only).
    fn step(&mut self) {
        self.dispatch();
        let mut banks = self.waiting & !self.writing;
        while banks != 0 {
            let b = banks.trailing_zeros() as usize;
            banks &= banks - 1;
            let (p, u, op) = self.reads[b]
                .pop_front()
                .expect("a bank with reads waiting");
            if self.reads[b].is_empty() {
                self.waiting &= !(1 << b);
            }
            let unit = &mut self.units[p as usize][u as usize];
            unit.not_ready &= !(1 << op);
            if unit.not_ready == 0 {
                self.ready[p as usize] |= 1 << u;
            }
        }
        self.allocate();
        self.writing = 0;
    }

    /// Each dispatch unit moves at most one ready collector unit of its set into `OC_EX`,
    /// scanning from the unit after the last it dispatched; a unit is ready when its operands
    /// are read and its path's `OC_EX` has a slot (with sub-cores, its scheduler's).
    fn dispatch(&mut self) {
        let widths = self.sizes.dispatch_widths.array().map(|n| n as usize);
        for d in 0..self.dispatchers.len() {
            let (set, last) = self.dispatchers[d];
            let mut ready = self.ready[set];
            let mut bits = ready;
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let id = self.units[set][c]
                    .inst
                    .expect("a ready unit holds an instruction");
                let p = self.slab[id as usize].path as usize;
                if self.room(&self.oc_ex[p], widths[p], self.sched(id)) == 0 {
                    ready &= !(1 << c);
                }
            }
            if ready == 0 {
                continue;
            }
            // The first ready unit after `last`, cyclically.
            let from = last + 1;
            let above = if from >= 32 { 0 } else { u32::MAX << from };
            let after = ready & above;
            let c = if after != 0 { after } else { ready }.trailing_zeros() as usize;
            self.dispatchers[d].1 = c;
            self.ready[set] &= !(1 << c);
            self.busy[set] &= !(1 << c);
            let inst = self.units[set][c].inst.take().expect("ready");
            let p = self.slab[inst as usize].path as usize;
            self.oc_ex[p].push(inst);
        }
    }

    /// Allocation (`opndcoll_rfu_t::allocate_cu`, port by port): each generic port takes the
    /// oldest instruction of the SP, SFU and MEM `ID_OC` in turn into a free generic unit;
    /// then each path's own ports (SP has `issue_widths.sp`, SFU and MEM one) take the oldest
    /// of their `ID_OC` into a free unit of the path, else a free generic one. A unit is the
    /// free one of lowest index (with sub-cores, in the instruction's scheduler's share); the
    /// instruction queues its reads, one per distinct source register, in source order.
    fn allocate(&mut self) {
        for _ in 0..self.sizes.generic_ports {
            for p in 0..3 {
                self.allocate_one(p, GENERIC);
            }
        }
        if !self.sizes.specialized {
            return;
        }
        for p in 0..3 {
            let ports = if p == 0 {
                self.sizes.issue_widths.sp as usize
            } else {
                1
            };
            for _ in 0..ports {
                if !self.allocate_one(p, p) && !self.allocate_one(p, GENERIC) {
                    break;
                }
            }
        }
    }

    /// Moves the oldest instruction of path `p`'s `ID_OC` into a free unit of set `set`, if
    /// there is one for it; true if it did.
    fn allocate_one(&mut self, p: usize, set: usize) -> bool {
        let Some(&id) = self.id_oc[p].front() else {
            return false;
        };
        let free = !self.busy[set] & self.unit_mask(set, self.sched(id));
        if free == 0 {
            return false;
        }
        let c = free.trailing_zeros() as usize;
        self.id_oc[p].pop_front();
        let inst = &self.slab[id as usize];
        let (srcs, nsrc, warp) = (inst.srcs, inst.nsrc as usize, inst.warp);
        let mut not_ready = 0u16;
        for (i, &r) in srcs[..nsrc].iter().enumerate() {
            if r == RZ || srcs[..i].contains(&r) {
                continue;
            }
            not_ready |= 1 << i;
            let b = self.bank(r, warp);
            self.reads[b].push_back((set as u8, c as u8, i as u8));
            self.waiting |= 1 << b;
        }
        self.busy[set] |= 1 << c;
        if not_ready == 0 {
            self.ready[set] |= 1 << c;
        }
        self.units[set][c] = Unit {
            inst: Some(id),
            not_ready,
        };
        true
    }
}

impl super::Sm<'_> {
    /// Issues `inst`, an instruction of warp `w`, into the collector on `path` with its
    /// unit's (latency, initiation interval); its destinations wait for its writeback (a
    /// global or local load's were marked in flight by the caller).
    pub(super) fn collect(
        &mut self,
        w: usize,
        inst: &super::WarpInst,
        path: Path,
        lat: (u64, u64),
        at_lsu: Option<AtLsu>,
    ) {
        let warp = &mut self.warps[w];
        let ops = self.tbs[warp.tb].insts.operands(warp.index, inst);
        let (dsts, srcs) = ops.split_at(inst.ndst as usize);
        if !matches!(at_lsu, Some(AtLsu::Access(_))) {
            super::issue::set_regs(
                warp,
                dsts,
                super::warps::IN_PIPELINE,
                super::issue::Mark::Keep,
            );
        }
        let c = self
            .collector
            .as_mut()
            .expect("the SM has an operand collector");
        let uid = c.next_uid();
        c.push(OcInst::new(uid, w, path, lat, dsts, srcs, at_lsu));
    }

    /// The collector's writeback, at the start of cycle `now`: the results in `EX_WB` release
    /// their destinations (readable from `now`; their long-op marks end).
    pub(super) fn collector_writeback(&mut self, now: u64) {
        let Some(c) = &mut self.collector else { return };
        if c.is_idle() {
            return;
        }
        let mut done = std::mem::take(&mut self.wb_buffer);
        c.writeback(&mut done);
        for &id in &done {
            let inst = c.get(id);
            let w = inst.warp;
            let warp = &mut self.warps[w];
            super::issue::set_regs(warp, inst.dsts(), now, super::issue::Mark::ClearAtWriteback);
            c.retired(id);
            self.scan_state[w % self.schedulers].dirty_warp(w / self.schedulers);
        }
        self.wb_buffer = done;
    }

    /// The collector's execute and operand-read stages at `now`; a memory instruction leaving
    /// `OC_EX_MEM` enters the LSU (which was idle), to be worked on from the next cycle.
    pub(super) fn collector_cycle(&mut self, now: u64) {
        let lsu_free = self.lsu_free(now);
        let Some(c) = &mut self.collector else { return };
        if c.is_idle() {
            return;
        }
        let taken = c.execute(now, lsu_free);
        c.read_operands();
        let Some(id) = taken else { return };
        let at_lsu = c.take_lsu(id);
        let inst = c.get(id);
        let (w, dsts, ndst) = (inst.warp, inst.dsts, inst.ndst as usize);
        c.retired(id);
        let t = &self.timing;
        let (ready, mark, class) = match at_lsu {
            Some(AtLsu::Access(op)) => {
                if let Some(token) = op.token {
                    self.pending[token as usize].ready_at = now + 1 + t.around;
                }
                self.lsu.push_back(op);
                return;
            }
            Some(AtLsu::Shared { conflict }) => {
                self.lsu_busy_until = now + conflict;
                (
                    now + conflict + t.shared + t.around,
                    super::issue::Mark::Keep,
                    // Its destinations are a shared load's (or a shared atomic's).
                    OpClass::LoadShared,
                )
            }
            Some(AtLsu::Const) => {
                self.lsu_busy_until = now + 1;
                // GPGPU-Sim: LDC is an ALU op in trace mode; its writeback clears the mark.
                (
                    now + t.l1d_hit + t.around,
                    super::issue::Mark::ClearAtWriteback,
                    OpClass::LoadConst,
                )
            }
            None => unreachable!("only memory instructions leave OC_EX_MEM"),
        };
        let mark = super::issue::mark_for(self.long_ops, class, mark);
        super::issue::set_regs(&mut self.warps[w], &dsts[..ndst], ready, mark);
        self.mark_for_scan(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PerPath;

    /// GPGPU-Sim's SM2_GTX480 collector (2 SP pipelines, 1 SFU).
    fn gtx480() -> Collector {
        Collector::new(&OperandCollectorConfig::default(), (2, 1), 48, 2)
    }

    /// An instruction of `warp` on `path` (latency 4, initiation 1) writing `dst`, reading `srcs`.
    fn inst(c: &mut Collector, warp: usize, path: Path, dst: u16, srcs: &[u16]) -> OcInst {
        let uid = c.next_uid();
        OcInst::new(uid, warp, path, (4, 1), &[dst], srcs, None)
    }

    /// Runs `c` from cycle `from` to `to` (exclusive), issuing `issue[t]`'s instructions at
    /// the end of cycle `t` (after operand reads, as the SM's issue stage); returns each
    /// instruction's writeback cycle by uid.
    fn run(
        c: &mut Collector,
        from: u64,
        to: u64,
        mut issue: Vec<(u64, OcInst)>,
    ) -> Vec<(u64, u64)> {
        let mut out = vec![];
        for now in from..to {
            let mut done = vec![];
            c.writeback(&mut done);
            for id in done {
                out.push((c.get(id).uid, now));
                c.retired(id);
            }
            c.execute(now, true);
            c.read_operands();
            for (_, i) in issue.extract_if(.., |(t, _)| *t == now) {
                c.push(i);
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn a_lone_ffma_is_written_back_ten_cycles_after_issue() {
        let mut c = gtx480();
        // FFMA R5, R4, R5: banks 5 and 6 (registers count from 1 in the bank mapping).
        let i = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, i)]), [(1, 10)]);
        assert!(c.is_idle());
    }

    #[test]
    fn sources_in_one_bank_are_read_one_per_cycle() {
        let mut c = gtx480();
        // R4, R20, R36 are all in bank 5 for warp 0: three reads, two more cycles.
        let i = inst(&mut c, 0, Path::Sp, 5, &[4, 20, 36]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, i)]), [(1, 12)]);
        // The same register twice is read once.
        let mut c = gtx480();
        let i = inst(&mut c, 0, Path::Sp, 1, &[2, 2]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, i)]), [(1, 10)]);
    }

    #[test]
    fn two_register_file_ports_read_a_bank_twice_a_cycle() {
        // As above with -gpgpu_reg_file_port_throughput 2: the three reads of bank 5 take
        // two steps of the first cycle and one of the next, and allocation, reads and
        // dispatch of a lone instruction all happen in one cycle's two steps.
        let two = OperandCollectorConfig {
            port_throughput: 2,
            ..Default::default()
        };
        let mut c = Collector::new(&two, (2, 1), 48, 2);
        let i = inst(&mut c, 0, Path::Sp, 5, &[4, 20, 36]);
        let slow = run(&mut c, 0, 20, vec![(0, i)]);
        let mut c = Collector::new(&two, (2, 1), 48, 2);
        let i = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        let fast = run(&mut c, 0, 20, vec![(0, i)]);
        assert_eq!((slow, fast), (vec![(1, 10)], vec![(1, 9)]));
    }

    /// Two schedulers with sub-cores and GPGPU-Sim's generic units: one unit, two banks, an
    /// `ID_OC` slot and an SP pipeline each.
    fn sub_cores() -> Collector {
        let two = PerPath {
            sp: 2,
            sfu: 2,
            mem: 2,
        };
        let sizes = OperandCollectorConfig {
            register_banks: 4,
            specialized: false,
            generic_units: 2,
            generic_ports: 2,
            generic_dispatchers: 2,
            sub_cores: true,
            issue_widths: two,
            dispatch_widths: two,
            ..Default::default()
        };
        Collector::new(&sizes, (2, 1), 48, 2)
    }

    #[test]
    fn sub_cores_give_each_scheduler_its_own_slots_units_and_pipeline() {
        // Warps 0 and 1 (schedulers 0 and 1) run side by side, as on one collector.
        let mut c = sub_cores();
        let a = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        let b = inst(&mut c, 1, Path::Sp, 5, &[4, 5]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, a), (0, b)]), [(1, 10), (2, 10)]);
        // Warps 0 and 2 are both scheduler 0's: one ID_OC slot, one unit, one pipeline.
        let mut c = sub_cores();
        let a = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        c.push(a);
        assert_eq!(
            (c.free_slots(Path::Sp, 0), c.free_slots(Path::Sp, 1)),
            (0, 1)
        );
        let b = inst(&mut c, 2, Path::Sp, 5, &[4, 5]);
        let done = run(&mut c, 0, 20, vec![(0, b)]);
        // `a` entered before cycle 0, a cycle ahead of `b`, and leaves at 9; `b`, alone,
        // would leave at 10, but takes the unit only once `a` has left it.
        assert_eq!(done[0], (1, 9));
        assert!(
            done[1].1 > 10,
            "{done:?}: the second waits for its scheduler's unit"
        );
    }

    #[test]
    fn two_warps_reading_one_bank_take_turns_oldest_first() {
        // GPGPU-Sim's worked example: warps 0 and 1 issue FFMA R5, R4, R5 in one cycle; warp
        // 0 reads banks 5 and 6, warp 1 banks 6 and 7, and the older one reads bank 6 first.
        let mut c = gtx480();
        let a = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        let b = inst(&mut c, 1, Path::Sp, 5, &[4, 5]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, a), (0, b)]), [(1, 10), (2, 11)]);
        // Warps 0 and 3 share no bank: both at 10, on SP 0 and SP 1.
        let mut c = gtx480();
        let a = inst(&mut c, 0, Path::Sp, 5, &[4, 5]);
        let b = inst(&mut c, 3, Path::Sp, 5, &[4, 5]);
        assert_eq!(run(&mut c, 0, 20, vec![(0, a), (0, b)]), [(1, 10), (2, 10)]);
    }

    #[test]
    fn a_write_takes_its_bank_from_that_cycles_read() {
        // A (issued at 0) writes R10 (bank 11) at 10. B, issued at 8, reads its operands at
        // 10: R26 is in bank 11 too and waits a cycle; R27 (bank 12) does not.
        for (reg, at) in [(26, 19), (27, 18)] {
            let mut c = gtx480();
            let a = inst(&mut c, 0, Path::Sp, 10, &[1, 2]);
            let b = inst(&mut c, 0, Path::Sp, 40, &[reg]);
            let out = run(&mut c, 0, 30, vec![(0, a), (8, b)]);
            assert_eq!(out, [(1, 10), (2, at)], "B reading R{reg}");
        }
    }

    #[test]
    fn results_reaching_writeback_together_need_a_result_bus_each() {
        // Two FFMAs and a MUFU, all latency 4, dispatched in one cycle: SP 0 and SP 1 take the
        // two result buses of cycle 9, so the SFU takes the MUFU a cycle later.
        let mut c = gtx480();
        let a = inst(&mut c, 0, Path::Sp, 1, &[2]);
        let b = inst(&mut c, 1, Path::Sp, 1, &[5]);
        let m = inst(&mut c, 2, Path::Sfu, 1, &[9]);
        let out = run(&mut c, 0, 20, vec![(0, a), (0, b), (0, m)]);
        assert_eq!(out, [(1, 10), (2, 10), (3, 11)]);
        // With three buses the MUFU keeps pace.
        let sizes = OperandCollectorConfig {
            writeback_width: 3,
            ..Default::default()
        };
        let mut c = Collector::new(&sizes, (2, 1), 48, 2);
        let a = inst(&mut c, 0, Path::Sp, 1, &[2]);
        let b = inst(&mut c, 1, Path::Sp, 1, &[5]);
        let m = inst(&mut c, 2, Path::Sfu, 1, &[9]);
        let out = run(&mut c, 0, 20, vec![(0, a), (0, b), (0, m)]);
        assert_eq!(out, [(1, 10), (2, 10), (3, 10)]);
    }

    #[test]
    fn back_pressure_fills_oc_ex_then_the_collector_units_then_id_oc() {
        // Nothing executes: OC_EX_SP (2) fills, then the six SP collector units, then
        // ID_OC_SP (2), and the schedulers can issue no more SP instructions.
        let mut c = gtx480();
        let mut issued = 0;
        for _ in 0..40 {
            while c.free_slots(Path::Sp, 0) > 0 {
                let i = inst(&mut c, 0, Path::Sp, 100, &[16 * issued as u16]);
                c.push(i);
                issued += 1;
            }
            c.read_operands();
        }
        assert_eq!(issued, 2 + 6 + 2);
        assert_eq!((c.oc_ex[0].len(), c.busy[0].count_ones()), (2, 6));
        assert_eq!(c.free_slots(Path::Sp, 0), 0);
        // The SFU and MEM paths are separate.
        assert_eq!(
            (c.free_slots(Path::Sfu, 0), c.free_slots(Path::Mem, 0)),
            (1, 1)
        );
    }
}
