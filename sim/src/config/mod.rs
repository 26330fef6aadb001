//! GPU configuration: [`GpuConfig`] (serde: TOML or JSON), the presets of the papers' GPUs
//! ([`presets`]) and validation that names the offending field.
//!
//! Units: clocks in MHz; sizes in bytes; latencies in core cycles unless a field says
//! otherwise (DRAM timings are in DRAM command-clock cycles, as GPGPU-Sim's
//! `-gpgpu_dram_timing_opt`).

pub mod gpgpusim;
pub mod mechanisms;
pub mod presets;

use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// Most warp schedulers per SM a configuration may have.
pub const MAX_SCHEDULERS: u32 = 16;

/// A configuration that cannot be used.
#[derive(Debug, Error, PartialEq)]
pub enum ConfigError {
    /// A field has a value outside its valid range, or inconsistent with another field.
    #[error("config field `{field}`: {message}")]
    Field { field: String, message: String },
    /// The file cannot be read or parsed.
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// A line of a GPGPU-Sim config file that does not follow the option's form.
    #[error("{path}:{line}: expected {expected}, found {}", crate::input::quote(.found))]
    Syntax {
        path: String,
        line: usize,
        expected: String,
        found: String,
    },
    /// An option neither GPGPU-Sim nor Accel-Sim registers (GPGPU-Sim stops with "Unknown
    /// Option"); `nearest` is the known option it is likely a misspelling of.
    #[error(
        "{path}:{line}: unknown GPGPU-Sim option `-{name}` (GPGPU-Sim stops with \"Unknown Option\"){}",
        nearest.as_ref().map(|n| format!("; did you mean `-{n}`?")).unwrap_or_default()
    )]
    UnknownOption {
        path: String,
        line: usize,
        name: String,
        nearest: Option<String>,
    },
    /// No preset of that name.
    #[error("unknown config preset `{0}`; valid presets: {names}", names = presets::NAMES.join(", "))]
    UnknownPreset(String),
    /// A field error of a file, when no line of the file set the field (the value came from
    /// the preset under it, or from a combination of fields).
    #[error("{path}: {source}")]
    InFile {
        path: String,
        source: Box<ConfigError>,
    },
    /// A field error located in the file that set the field.
    #[error("{path}:{line}: {source}")]
    At {
        path: String,
        line: usize,
        source: Box<ConfigError>,
    },
}

impl ConfigError {
    /// The field an error is about, if it is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ConfigError::Field { field, .. } => Some(field),
            ConfigError::At { source, .. } | ConfigError::InFile { source, .. } => source.field(),
            _ => None,
        }
    }

    /// This error located at `path:line` if it is a field error (at `path` alone when
    /// `line` is not known): an error always names the user's file.
    pub fn at(self, path: &Path, line: Option<usize>) -> Self {
        let path = path.display().to_string();
        match (&self, line) {
            (ConfigError::Field { .. }, Some(line)) => ConfigError::At {
                path,
                line,
                source: Box::new(self),
            },
            (ConfigError::Field { .. }, None) => ConfigError::InFile {
                path,
                source: Box::new(self),
            },
            _ => self,
        }
    }
}

/// The range of every integer field, inclusive: (field, min, max). Validation enforces them
/// for every source (presets, TOML, JSON, GPGPU-Sim files); they keep every product and sum the
/// model forms from them far inside 64 bits and the model's tables to at most a few MB per SM.
/// Units as in the fields' documentation.
pub const RANGES: &[(&str, u64, u64)] = &[
    ("sm.count", 1, 128),
    ("sm.warp_size", 32, 32),
    ("sm.max_threads", 1, 2048),
    ("sm.max_warps", 1, 64),
    ("sm.max_blocks", 1, 64),
    ("sm.registers", 1, 1 << 20),
    ("sm.shared_mem_bytes", 0, 1 << 20),
    ("sm.shared_mem_banks", 1, 64),
    ("sm.schedulers", 1, MAX_SCHEDULERS as u64),
    ("sm.ibuffer_entries", 1, 64),
    ("sm.fetch_width", 1, 16),
    ("sm.two_level_max_active", 0, 64),
    ("cache.size_bytes", 1, 1 << 26),
    ("cache.line_bytes", 4, 4096),
    ("cache.ways", 1, 1024),
    ("cache.mshrs", 1, 4096),
    ("cache.mshr_merge", 1, 256),
    ("cache.miss_queue", 1, 4096),
    ("cache.latency", 0, 100_000),
    ("cache.sector_bytes", 0, 4096),
    ("cache.port_bytes", 0, 4096),
    ("interconnect.latency", 0, 100_000),
    ("interconnect.flit_bytes", 1, 4096),
    ("interconnect.input_buffer", 1, 4096),
    ("interconnect.output_buffer", 0, 4096),
    ("dram.channels", 1, 64),
    ("dram.sub_partitions", 1, 16),
    ("dram.chips_per_channel", 1, 64),
    ("dram.chip_bus_bytes", 1, 64),
    ("dram.burst_length", 1, 64),
    ("dram.data_rate", 1, 16),
    ("dram.banks", 1, crate::mem::dram::MAX_BANKS as u64),
    ("dram.row_bytes", 1, 1 << 20),
    ("dram.scheduler_queue", 1, 4096),
    ("dram.latency", 0, 100_000),
    ("dram.timing", 0, 100_000),
    ("units.sp_units", 1, 1024),
    ("units.sfu_units", 1, 1024),
    ("units.latency", 1, 100_000),
    ("units.initiation", 1, 100_000),
    ("pipeline.decode_cycles", 0, 1000),
    ("pipeline.operand_cycles", 0, 1000),
    ("pipeline.writeback_cycles", 0, 1000),
    ("pipeline.lsu_queue", 1, 64),
    ("pipeline.l1d_banks", 1, 64),
    ("pipeline.l1d_bank_bytes", 1, 1 << 16),
    ("pipeline.fetch_throughput", 1, 16),
    ("pipeline.issue_per_warp", 1, 8),
    ("partition_queues.icnt_to_l2", 0, 4096),
    ("partition_queues.l2_to_icnt", 0, 4096),
    ("pipeline.operand_collector.register_banks", 1, 64),
    ("pipeline.operand_collector.port_throughput", 1, 8),
    ("pipeline.operand_collector.generic_units", 0, 32),
    ("pipeline.operand_collector.generic_ports", 0, 16),
    ("pipeline.operand_collector.generic_dispatchers", 0, 16),
    ("pipeline.operand_collector.units", 1, 32),
    ("pipeline.operand_collector.issue_widths", 1, 16),
    ("pipeline.operand_collector.dispatch_widths", 1, 16),
    ("pipeline.operand_collector.writeback_width", 1, 16),
];

/// Most lines of one L1 cache (`l1i`, `l1d`): at 26 bytes of model state per line, 128 SMs
/// with both caches at this size take about 110 MB.
pub const MAX_L1_LINES: u64 = 1 << 14;

/// Most lines of the whole L2 (every slice): about 110 MB of model state.
pub const MAX_L2_LINES: u64 = 1 << 22;

/// The range of the clock fields, MHz: a clock below 1 MHz or above 100 GHz is a mistake
/// (and one that rounds to 0 kHz would stop simulated time).
pub const CLOCK_MHZ: (f64, f64) = (1.0, 100_000.0);

/// The range of `dram.peak_gbps`, GB/s.
pub const PEAK_GBPS: (f64, f64) = (0.001, 1.0e6);

/// The range that applies to `field` (`l1d.ways` uses `cache.ways`, `dram.timing.rc` uses
/// `dram.timing`, `units.fp.latency` uses `units.latency`).
pub fn range_of(field: &str) -> Option<(u64, u64)> {
    let general = match field.split('.').collect::<Vec<_>>().as_slice() {
        ["l1i" | "l1d" | "l2", k] => format!("cache.{k}"),
        ["dram", "timing", _] => "dram.timing".into(),
        ["units", _, k] => format!("units.{k}"),
        ["pipeline", "operand_collector", k, _] => format!("pipeline.operand_collector.{k}"),
        _ => field.to_string(),
    };
    RANGES
        .iter()
        .find(|(f, _, _)| *f == general)
        .map(|&(_, lo, hi)| (lo, hi))
}

fn field(name: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Field {
        field: name.into(),
        message: message.into(),
    }
}

/// The whole GPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Name of the configuration (the preset name, or what a file says).
    pub name: String,
    /// Streaming multiprocessors.
    pub sm: SmConfig,
    /// Per-SM instruction cache.
    pub l1i: CacheConfig,
    /// Per-SM data cache.
    pub l1d: CacheConfig,
    /// L2: one slice per memory sub-partition; `size_bytes` is the slice size; `latency` is
    /// GPGPU-Sim's L2 raster-operations pipeline latency (`-gpgpu_l2_rop_latency`).
    pub l2: CacheConfig,
    /// SM-to-memory crossbar.
    pub interconnect: InterconnectConfig,
    /// DRAM channels.
    pub dram: DramConfig,
    /// Functional-unit latencies and initiation intervals.
    pub units: UnitConfig,
    /// The SM pipeline stages around the units (GPGPU-Sim's when a file leaves it out).
    #[serde(default)]
    pub pipeline: PipelineConfig,
    /// Cycles before a launched kernel's first block (none when a file leaves it out).
    #[serde(default)]
    pub launch: LaunchConfig,
    /// Volta's unified L1D and shared memory, split per kernel (off when a file leaves it
    /// out).
    #[serde(default, skip_serializing_if = "L1dCarveout::is_off")]
    pub l1d_carveout: L1dCarveout,
    /// GPGPU-Sim's queues around each L2 slice (off when a file leaves them out: the model's
    /// own ROP queue).
    #[serde(default, skip_serializing_if = "PartitionQueues::is_off")]
    pub partition_queues: PartitionQueues,
}

/// GPGPU-Sim's queues in a memory sub-partition (`-gpgpu_dram_partition_queues
/// <icnt_L2>:<L2_dram>:<dram_L2>:<L2_icnt>`, `l2cache.cc` `memory_sub_partition::cache_cycle`):
/// the ROP delay (`l2.latency` cycles) holds any number of requests; one a cycle moves on into
/// the `icnt_to_l2` queue, whose head the L2 looks up; the slice takes a request off the
/// crossbar (one a cycle) only while that queue has room for four more (GPGPU-Sim's
/// `full(SECTOR_CHUNCK_SIZE)`), and the L2 takes no access while `l2_to_icnt` replies wait
/// for the crossbar. Sizes in requests; 0 is unbounded, as in GPGPU-Sim.
///
/// Off (the presets, and a file without the option): the model's own ROP queue of at most
/// [`crate::gpu::memory::ROP_QUEUE`] requests whose head the L2 looks up once its latency has
/// passed, and an unbounded reply queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PartitionQueues {
    /// GPGPU-Sim's queues in place of the model's own.
    pub enabled: bool,
    /// Requests past the ROP delay waiting for the L2 (`icnt_L2`): 0 or at least 4.
    pub icnt_to_l2: u32,
    /// Replies the L2 holds for the crossbar (`L2_icnt`).
    pub l2_to_icnt: u32,
}

impl GpuConfig {
    /// The operand collector's sizes against each other: some units for every path, and with
    /// sub-cores, every scheduler an equal share of the banks and units and a slot of each
    /// register set (GPGPU-Sim asserts the shares).
    fn check_collector(&self) -> Result<(), (&'static str, String)> {
        let oc = &self.pipeline.operand_collector;
        if !oc.enabled {
            return Ok(());
        }
        if !oc.specialized && (oc.generic_units == 0 || oc.generic_ports == 0) {
            return Err((
                "pipeline.operand_collector.generic_units",
                "without specialized units the generic units and their ports take every \
                 instruction: neither can be 0"
                    .into(),
            ));
        }
        if oc.generic_units > 0 && oc.generic_dispatchers == 0 {
            return Err((
                "pipeline.operand_collector.generic_dispatchers",
                "generic units need a dispatch unit".into(),
            ));
        }
        if !oc.sub_cores {
            return Ok(());
        }
        let n = self.sm.schedulers;
        let shares = [
            ("register_banks", oc.register_banks),
            ("generic_units", oc.generic_units),
        ];
        let units = oc.units.array().map(|u| ("units", u));
        let per_path = if oc.specialized { &units[..] } else { &[] };
        if let Some((name, v)) = shares.iter().chain(per_path).find(|(_, v)| v % n != 0) {
            return Err((
                "pipeline.operand_collector.sub_cores",
                format!("{name} = {v} is not a multiple of sm.schedulers = {n}"),
            ));
        }
        let widths = [oc.issue_widths.array(), oc.dispatch_widths.array()].concat();
        if let Some(w) = widths.iter().find(|&&w| w < n) {
            return Err((
                "pipeline.operand_collector.sub_cores",
                format!("a register set of {w} slots has none for some of sm.schedulers = {n}"),
            ));
        }
        Ok(())
    }
}

impl PartitionQueues {
    fn is_off(&self) -> bool {
        *self == PartitionQueues::default()
    }
}

/// Volta and later GPUs' unified L1D / shared-memory array (GPGPU-Sim's
/// `-gpgpu_adaptive_cache_config`, `shader_core_config::max_cta`): when a kernel is admitted,
/// its shared memory (per block x blocks per SM) takes the smallest of `shared_options_kb`
/// that holds it and the L1D gets the rest: `round(max_ways x (1 - option / unified))` ways of
/// `l1d.sets()` sets, where `max_ways = unified / (l1d.sets() x l1d.line_bytes)`. Every SM's
/// L1D changes at once and keeps the lines it holds (the ways beyond the new count are not
/// looked at until they come back).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L1dCarveout {
    /// Split the array per kernel (`-gpgpu_adaptive_cache_config 1`).
    pub enabled: bool,
    /// The unified array, KB (`-gpgpu_unified_l1d_size`; a multiple of the L1D's size).
    pub unified_kb: u32,
    /// The shared-memory sizes the array can be split at, KB (`-gpgpu_shmem_option`).
    pub shared_options_kb: Vec<u32>,
}

impl L1dCarveout {
    fn is_off(&self) -> bool {
        *self == L1dCarveout::default()
    }

    /// The L1D's ways when the array is enabled and split: the most (`None` when it is not).
    pub fn max_ways(&self, l1d: &CacheConfig) -> Option<u32> {
        let set_bytes = (l1d.sets() as u64 * l1d.line_bytes as u64).max(1);
        (self.enabled && self.unified_kb > 0)
            .then(|| (self.unified_kb as u64 * 1024 / set_bytes).min(u32::MAX as u64) as u32)
    }

    /// The L1D's ways for a kernel whose blocks on one SM take `shared_bytes` of shared
    /// memory (`None` when the array is not split).
    pub fn ways_for(&self, l1d: &CacheConfig, shared_bytes: u64) -> Option<u32> {
        let max = self.max_ways(l1d)?;
        let unified = self.unified_kb as u64 * 1024;
        let mut options = self.shared_options_kb.clone();
        options.sort_unstable();
        let option = options
            .iter()
            .map(|&kb| kb as u64 * 1024)
            .find(|&b| shared_bytes <= b)
            .unwrap_or(unified);
        let ratio = 1.0 - option as f32 / unified as f32;
        Some(((max as f32 * ratio + 0.5) as u32).clamp(1, max.max(1)))
    }
}

/// How long a kernel waits, from the cycle it takes its kernel slot, before its blocks can be
/// dispatched: `kernel_latency + blocks * block_latency` core cycles, as GPGPU-Sim counts its
/// `m_kernel_TB_latency` down once per core cycle after the block issue and issues none of the
/// kernel's blocks until it is 0 (`gpu-sim.cc`, `select_kernel` and
/// `decrement_kernel_latency`). The cycles count in the run's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LaunchConfig {
    /// Per kernel, core cycles (`-gpgpu_kernel_launch_latency`; GPGPU-Sim's default 0).
    pub kernel_latency: u32,
    /// Per thread block of the kernel, core cycles, all paid before the first block
    /// (`-gpgpu_TB_launch_latency`; default 0).
    pub block_latency: u32,
}

impl LaunchConfig {
    /// Core cycles a kernel of `blocks` thread blocks waits before its first one.
    pub fn cycles(&self, blocks: u64) -> u64 {
        self.kernel_latency as u64 + blocks * self.block_latency as u64
    }
}

/// The SM pipeline stages around the functional units and the L1D, in core cycles. The
/// defaults are GPGPU-Sim 4's (`shader.cc`, read for the Accel-Sim calibration); all zero and
/// `l1d_latency_queue = false` is a pipeline with no such stages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Decode stage: a warp's i-buffer filled by a fetch at cycle t issues from
    /// t + `l1i.latency` + `decode_cycles` (GPGPU-Sim: fetch t, decode t+1, issue t+2: 1).
    pub decode_cycles: u32,
    /// Operand collection and dispatch, from issue to the unit or the LSU (GPGPU-Sim:
    /// collector unit allocated, register banks read, dispatched, issued to the unit: 4).
    pub operand_cycles: u32,
    /// From a unit's result to the register file and the scoreboard's release (GPGPU-Sim:
    /// the unit's last stage to `EX_WB`, then the writeback stage: 2). A dependent
    /// instruction issues `operand_cycles + latency + writeback_cycles` after its producer.
    pub writeback_cycles: u32,
    /// The L1D's latency is a queue before its tag lookup (GPGPU-Sim's `l1_latency_queue`):
    /// misses and stores, not only hits, leave for the L2 `l1d.latency` cycles after the
    /// LSU takes them (at most `l1d.latency` of them waiting). False: a miss leaves at once.
    pub l1d_latency_queue: bool,
    /// Memory instructions the LSU holds: the one whose transactions it sends and those
    /// queued in front of it, in issue order (GPGPU-Sim: `ID_OC_MEM` 1, 2 memory collector
    /// units, `OC_EX_MEM` 1 and the LDST unit's own: 5). 1: a memory instruction issues
    /// only when the LSU is idle.
    pub lsu_queue: u32,
    /// Global loads without a cache operator bypass the L1D (GPGPU-Sim's
    /// `-gpgpu_gmem_skip_L1D`, the `-dlcm=cg` default): they are coalesced into 32 B sectors
    /// and go to the L2 without a lookup or a fill; a `.ca` load is still cached
    /// ([`crate::workload::cache_op::CacheOp::bypasses`]). Global stores skip the L1D too
    /// (no lookup, no eviction, no L1D latency queue), as GPGPU-Sim's `memory_cycle` sends
    /// every global access but a `.ca` one to the interconnect.
    pub gmem_skip_l1d: bool,
    /// Every instruction fetch hits in the L1I, which then never reaches the L2
    /// (`-gpgpu_perfect_inst_const_cache`, set by GPGPU-Sim's Pascal and later files; constant
    /// loads always behave so here, having no cache of their own). As `--perfect-l1i`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub perfect_inst_cache: bool,
    /// Every global access is coalesced into 32 B sectors, cached or not, and the L1D
    /// fetches only the sectors it misses (GPGPU-Sim's `-gpgpu_coalesce_arch` 40 and above,
    /// Maxwell and later, whose L1D and L2 both have sectors). False: 128 B segments (64 B
    /// for 2-byte accesses, 32 B for bytes) except for loads that bypass the L1D (Fermi and
    /// Kepler, `-gpgpu_coalesce_arch` 13 to 39).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sector_coalescing: bool,
    /// L1D banks (`-gpgpu_l1_banks`): with the L1D latency queue of the operand-collector
    /// model, each bank has its own queue, takes one transaction a cycle and looks one up,
    /// so up to this many transactions of an instruction enter in one cycle when they fall
    /// in different banks (GPGPU-Sim's `process_memory_access_queue_l1cache`). A power of two.
    pub l1d_banks: u32,
    /// Bytes of consecutive addresses in one L1D bank (`-gpgpu_l1_banks_byte_interleaving`:
    /// a bank is `(addr / l1d_bank_bytes) mod l1d_banks`).
    pub l1d_bank_bytes: u32,
    /// Fetches per SM per cycle (`-gpgpu_inst_fetch_throughput`): the fetch stage runs this
    /// many times each cycle, each time taking the next warp whose i-buffer is empty (and
    /// retiring the finished warps its round robin passed), as GPGPU-Sim's decode + fetch
    /// loop does.
    pub fetch_throughput: u32,
    /// Instructions a scheduler may issue from its chosen warp in one cycle
    /// (`-gpgpu_max_insn_issue_per_warp`, 2 on Pascal): after the first, the warp's next
    /// i-buffer instruction issues in the same cycle when it passes the scoreboard (the
    /// first's destinations now pending) and its unit has a slot, until one does not.
    pub issue_per_warp: u32,
    /// With `issue_per_warp` above 1, the instructions a warp issues in one cycle go to
    /// different units (`-gpgpu_dual_issue_diff_exec_units`: SP, SFU, memory, as GPGPU-Sim's
    /// unit types on a GPU without DP and INT units).
    pub dual_issue_diff_units: bool,
    /// GPGPU-Sim's operand collector (`[pipeline.operand_collector]`): modelled cycle by cycle
    /// when `enabled`, otherwise `operand_cycles` stands for it.
    pub operand_collector: OperandCollectorConfig,
}

/// GPGPU-Sim's operand collector and the pipeline register sets around it (`shader.cc`), per
/// path: SP (ALU, FP, branches, barriers, exits), SFU (transcendentals and double precision)
/// and MEM (memory instructions). Sizes default to GPGPU-Sim's `SM2_GTX480` (a GPGPU-Sim file
/// sets them); the model is off unless `enabled`, which a GPGPU-Sim file that sizes the
/// collector sets (the presets leave it off).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OperandCollectorConfig {
    /// Model the collector cycle by cycle in place of `operand_cycles`. The LSU then holds
    /// one instruction (`lsu_queue` is not used), a load's result pays `writeback_cycles`
    /// after its access, and the L1D latency queue (`l1d_latency_queue`) sits in front of the
    /// tag lookup, as GPGPU-Sim's, unless a NewCAR queue is there.
    pub enabled: bool,
    /// Register-file banks (`-gpgpu_num_reg_banks`); a warp's register `r` (SASS numbering)
    /// is in bank `(r + 1 + warp slot) % banks`; one read or write per bank per cycle.
    pub register_banks: u32,
    /// Times the collector steps each cycle (`-gpgpu_reg_file_port_throughput`, 2 on Pascal
    /// and Volta): each step dispatches, lets every bank serve a read and allocates units,
    /// so a bank serves this many reads a cycle.
    pub port_throughput: u32,
    /// Collector units per path (`-gpgpu_operand_collector_num_units_*`).
    pub units: PerPath,
    /// Issue register set (`ID_OC`) slots per path (`-gpgpu_pipeline_widths`); SP also has
    /// this many allocation ports.
    pub issue_widths: PerPath,
    /// Execute register set (`OC_EX`) slots per path; SP also has this many dispatch units.
    pub dispatch_widths: PerPath,
    /// `EX_WB` slots, the results that can reach writeback in one cycle (the result buses).
    pub writeback_width: u32,
    /// The per-path units above exist (`-gpgpu_enable_specialized_operand_collector`); false:
    /// only the generic units do.
    pub specialized: bool,
    /// Generic collector units, for an instruction of any path
    /// (`-gpgpu_operand_collector_num_units_gen`); tried after the path's own units.
    pub generic_units: u32,
    /// Allocation ports of the generic units, each taking the oldest instruction of the SP,
    /// SFU and MEM `ID_OC` in turn (`-gpgpu_operand_collector_num_in_ports_gen`); they work
    /// before the per-path ports, as GPGPU-Sim creates them first.
    pub generic_ports: u32,
    /// Dispatch units of the generic units (`-gpgpu_operand_collector_num_out_ports_gen`),
    /// after the per-path ones.
    pub generic_dispatchers: u32,
    /// Sub-cores (`-gpgpu_sub_core_model`, Volta and Pascal files): scheduler `s` has its own
    /// `ID_OC` and `OC_EX` slots (the widths / schedulers), its own share of each set of
    /// collector units and of the register banks (register `r` of warp slot `w` in bank
    /// `(r + 1 + w) % (banks / schedulers) + s * banks / schedulers`), and SP and SFU
    /// pipeline `k` takes only scheduler `k % schedulers`'s instructions; the LSU takes any.
    pub sub_cores: bool,
}

/// One number per operand-collector path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerPath {
    /// SP path: ALU, FP, branches, barriers, exits.
    pub sp: u32,
    /// SFU path: transcendentals and double precision.
    pub sfu: u32,
    /// MEM path: memory instructions.
    pub mem: u32,
}

impl PerPath {
    /// The three numbers, SP, SFU, MEM.
    pub fn array(self) -> [u32; 3] {
        [self.sp, self.sfu, self.mem]
    }
}

impl Default for OperandCollectorConfig {
    /// GPGPU-Sim's `SM2_GTX480` values.
    fn default() -> Self {
        Self {
            enabled: false,
            register_banks: 16,
            port_throughput: 1,
            units: PerPath {
                sp: 6,
                sfu: 8,
                mem: 2,
            },
            issue_widths: PerPath {
                sp: 2,
                sfu: 1,
                mem: 1,
            },
            dispatch_widths: PerPath {
                sp: 2,
                sfu: 1,
                mem: 1,
            },
            writeback_width: 2,
            specialized: true,
            generic_units: 0,
            generic_ports: 0,
            generic_dispatchers: 0,
            sub_cores: false,
        }
    }
}

impl Default for PipelineConfig {
    /// GPGPU-Sim 4's stages.
    fn default() -> Self {
        Self {
            decode_cycles: 1,
            operand_cycles: 4,
            writeback_cycles: 2,
            l1d_latency_queue: true,
            lsu_queue: 5,
            gmem_skip_l1d: false,
            perfect_inst_cache: false,
            sector_coalescing: false,
            l1d_banks: 1,
            l1d_bank_bytes: 32,
            fetch_throughput: 1,
            issue_per_warp: 1,
            dual_issue_diff_units: true,
            operand_collector: OperandCollectorConfig::default(),
        }
    }
}

/// One SM and how many there are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmConfig {
    /// Number of SMs.
    pub count: u32,
    /// Core clock, MHz (one warp instruction per scheduler per cycle).
    pub core_clock_mhz: f64,
    /// Threads per warp.
    pub warp_size: u32,
    /// Maximum resident threads per SM.
    pub max_threads: u32,
    /// Maximum resident warps per SM.
    pub max_warps: u32,
    /// Maximum resident thread blocks per SM.
    pub max_blocks: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Shared memory per SM, bytes.
    pub shared_mem_bytes: u32,
    /// Shared-memory banks.
    pub shared_mem_banks: u32,
    /// Warp schedulers per SM (warp `i` belongs to scheduler `i % schedulers`).
    pub schedulers: u32,
    /// Instruction-buffer entries per warp.
    pub ibuffer_entries: u32,
    /// Instructions fetched per fetch (one warp per cycle).
    pub fetch_width: u32,
    /// Warp-scheduler policy: `lrr`, `gto` or `two_level`.
    pub warp_scheduler: String,
    /// Active-list length of the two-level scheduler.
    pub two_level_max_active: u32,
}

/// A set-associative cache with LRU replacement and MSHRs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Capacity, bytes (`sets * ways * line_bytes`; sets must be a power of two).
    pub size_bytes: u32,
    /// Line size, bytes (power of two).
    pub line_bytes: u32,
    /// Associativity.
    pub ways: u32,
    /// Miss-status holding registers.
    pub mshrs: u32,
    /// Requests one MSHR can merge.
    pub mshr_merge: u32,
    /// Miss-queue entries.
    pub miss_queue: u32,
    /// Hit latency, core cycles.
    pub latency: u32,
    /// Sector size of a sectored cache, bytes (GPGPU-Sim's `S:` caches use 32 B sectors); 0
    /// when the whole line is one sector (the default). Used for the L2: a line fill asks
    /// DRAM for each sector on its own, and each such read takes a whole column command
    /// (GPGPU-Sim's `memory_sub_partition::breakdown_request_to_sector_requests` and
    /// `dram_t::issue_col_command`), so a sector smaller than a burst wastes the rest of it.
    #[serde(default)]
    pub sector_bytes: u32,
    /// A sectored cache's MSHR entries are sectors, as GPGPU-Sim's sectored caches key their
    /// table by the sector's address (`mshr_addr`): `mshrs` sectors pending at most, each
    /// merging `mshr_merge` requests (a line fetched whole takes as many entries as it has
    /// sectors). False (the presets: the papers' MSHRs track lines): entries are lines. Set
    /// by a GPGPU-Sim file's `S:`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mshr_sectors: bool,
    /// The data port of an L2 without sectors, bytes per core cycle: a hit or a write
    /// occupies the L2 for `ceil(bytes / port_bytes)` cycles, a miss for one (GPGPU-Sim's L2
    /// takes an access only when `data_port_free()`, 3.2.2 `l2cache.cc`:379-381, and charges
    /// a hit its `use_data_port` cycles, `gpu-cache.cc`:578-581). 0 (the default): one access
    /// per cycle whatever its size. A sectored L2 takes one sector per cycle instead. L2 only.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub port_bytes: u32,
    /// What a write miss does in a write-back cache (the L2). L2 only.
    #[serde(default, skip_serializing_if = "WriteAllocate::is_lazy")]
    pub write_allocate: WriteAllocate,
    /// What a write does in the write-through L1D. L1D only.
    #[serde(default, skip_serializing_if = "WriteThrough::is_evict")]
    pub write_through: WriteThrough,
    /// The set index function: the L1D's (`auto`: the Fermi hash where it fits, otherwise
    /// linear); the L2's on its partition address (`linear` or `ipoly`; `auto` is linear);
    /// the L1I is linear.
    #[serde(default, skip_serializing_if = "SetIndexFn::is_auto")]
    pub set_index: SetIndexFn,
}

/// What a write that misses a write-back cache does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteAllocate {
    /// The line is allocated dirty without a fetch, and the write is acknowledged at once
    /// (GPGPU-Sim 4's `L`, lazy fetch-on-read, as far as timing goes).
    #[default]
    Lazy,
    /// The write goes on to DRAM and the line is fetched into a reserved way; the write is
    /// acknowledged when the fetch fills the line (GPGPU-Sim 3.x's `W`,
    /// `data_cache::wr_miss_wa`, 3.2.2 `gpu-cache.cc`:794-850, which acknowledges when DRAM
    /// returns the write: the fetch queued right behind it arrives a burst later).
    Fetch,
}

impl WriteAllocate {
    fn is_lazy(&self) -> bool {
        *self == WriteAllocate::Lazy
    }
}

/// What a write does in the write-through L1D (GPGPU-Sim's write policy and write-allocation
/// letters of `-gpgpu_cache:dl1`); every write goes on to the L2 in all three.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteThrough {
    /// A write hit invalidates the line, a miss allocates nothing (`E`, and `L` for global
    /// writes: GPGPU-Sim's Fermi to Pascal files).
    #[default]
    Evict,
    /// A write hit updates the line, a miss allocates nothing (`T` with `N`).
    Update,
    /// A write hit updates the line; a miss allocates it without a fetch, the sectors the
    /// write fills wholly readable and the rest fetched by a later read (`T` with `L`, lazy
    /// fetch on read: `data_cache::wr_miss_wa_lazy_fetch_on_read`; Volta's files).
    Allocate,
}

impl WriteThrough {
    fn is_evict(&self) -> bool {
        *self == WriteThrough::Evict
    }
}

/// A cache's set index function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SetIndexFn {
    /// GPGPU-Sim 4's choice for a Fermi L1D: its hash when the cache has 128 B lines and 32
    /// or 64 sets, linear otherwise.
    #[default]
    Auto,
    /// `(address / line) mod sets` (GPGPU-Sim 3.2.2's only function, `gpu-cache.h`:229-232).
    Linear,
    /// GPGPU-Sim's Fermi hash (128 B lines, 32 or 64 sets).
    FermiHash,
    /// GPGPU-Sim's IPOLY hash (`P`; 16, 32 or 64 sets): the line number's bits above the set
    /// index folded in modulo an irreducible polynomial ([`crate::mem::address::ipoly`]); an
    /// L2 hashes its partition address.
    Ipoly,
}

impl SetIndexFn {
    fn is_auto(&self) -> bool {
        *self == SetIndexFn::Auto
    }
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

impl CacheConfig {
    /// Number of sets.
    pub fn sets(&self) -> u32 {
        self.size_bytes / (self.ways.max(1) * self.line_bytes.max(1))
    }

    /// Checks the geometry; the fields' ranges ([`RANGES`]) are checked before, so every
    /// count here is at least 1 and the products fit.
    fn validate(&self, name: &str) -> Result<(), ConfigError> {
        let f = |k: &str| format!("{name}.{k}");
        if !self.line_bytes.is_power_of_two() {
            return Err(field(
                &f("line_bytes"),
                format!("{} is not a power of two", self.line_bytes),
            ));
        }
        if self.sector_bytes != 0
            && (!self.sector_bytes.is_power_of_two()
                || self.sector_bytes > self.line_bytes
                || self.sector_bytes < 4
                || self.line_bytes / self.sector_bytes > 32)
        {
            return Err(field(
                &f("sector_bytes"),
                format!(
                    "{} is not 0 or a power of two from max(4, line_bytes / 32) to line_bytes \
                     = {}",
                    self.sector_bytes, self.line_bytes
                ),
            ));
        }
        if self.port_bytes != 0 && !self.line_bytes.is_multiple_of(self.port_bytes) {
            return Err(field(
                &f("port_bytes"),
                format!(
                    "{} does not divide line_bytes = {} (GPGPU-Sim: \"the data port width \
                     divides the line size\")",
                    self.port_bytes, self.line_bytes
                ),
            ));
        }
        let set_bytes = self.ways * self.line_bytes;
        if !self.size_bytes.is_multiple_of(set_bytes) {
            return Err(field(
                &f("size_bytes"),
                format!(
                    "{} is not a multiple of ways x line_bytes = {set_bytes}",
                    self.size_bytes
                ),
            ));
        }
        if !self.sets().is_power_of_two() {
            return Err(field(
                &f("size_bytes"),
                format!(
                    "gives {} sets; the number of sets must be a power of two",
                    self.sets()
                ),
            ));
        }
        if self.set_index == SetIndexFn::Ipoly && !matches!(self.sets(), 16 | 32 | 64) {
            return Err(field(
                &f("set_index"),
                format!(
                    "ipoly hashes 16, 32 or 64 sets (GPGPU-Sim's equations); this cache has {}",
                    self.sets()
                ),
            ));
        }
        if self.set_index == SetIndexFn::FermiHash
            && !crate::mem::cache::SetIndex::fermi_hash_fits(self.sets(), self.line_bytes)
        {
            return Err(field(
                &f("set_index"),
                format!(
                    "fermi-hash needs 128-byte lines and 32 or 64 sets; this cache has \
                     {}-byte lines and {} sets",
                    self.line_bytes,
                    self.sets()
                ),
            ));
        }
        Ok(())
    }

    /// The set index function of an L1D with this geometry (`set_index`, with `auto`
    /// resolved).
    pub fn l1d_index(&self) -> crate::mem::cache::SetIndex {
        use crate::mem::cache::SetIndex;
        let hashable = SetIndex::fermi_hash_fits(self.sets(), self.line_bytes);
        match self.set_index {
            SetIndexFn::Auto if hashable => SetIndex::FermiHash,
            SetIndexFn::FermiHash => SetIndex::FermiHash,
            SetIndexFn::Auto | SetIndexFn::Linear => SetIndex::Linear,
            SetIndexFn::Ipoly => SetIndex::Ipoly,
        }
    }
}

/// The crossbar between SMs and memory sub-partitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterconnectConfig {
    /// One-way latency, core cycles.
    pub latency: u32,
    /// Bytes per port per cycle (one flit).
    pub flit_bytes: u32,
    /// Packets each crossbar input (an SM's, a slice's) holds before it refuses one: GPGPU-Sim's
    /// `input_buffer_size` of the `.icnt` file (`-network_mode 1`; flits there, and a request
    /// is one flit; 9 when the file sets none) or `-icnt_in_buffer_limit` (`-network_mode 2`).
    /// Default 8 (the presets: the papers give none).
    #[serde(
        default = "InterconnectConfig::default_input_buffer",
        skip_serializing_if = "InterconnectConfig::is_default_input_buffer"
    )]
    pub input_buffer: u32,
    /// Flits each crossbar output (a slice's, an SM's) holds, crossed and not yet taken, before
    /// it takes no more: GPGPU-Sim's ejection plus boundary buffers of the `.icnt` file
    /// (`ejection_buffer_size`, `vc_buf_size` when 0, and `boundary_buffer_size`: 64 + 64 on
    /// Pascal) or `-icnt_out_buffer_limit` (`-network_mode 2`). A full output holds its inputs
    /// back, and the output's round robin shares it among them. 0 (the presets): unbounded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_buffer: u32,
}

impl InterconnectConfig {
    /// [`InterconnectConfig::input_buffer`] of the presets, packets.
    pub const DEFAULT_INPUT_BUFFER: u32 = 8;

    fn default_input_buffer() -> u32 {
        Self::DEFAULT_INPUT_BUFFER
    }

    fn is_default_input_buffer(v: &u32) -> bool {
        *v == Self::DEFAULT_INPUT_BUFFER
    }
}

/// DRAM: `channels` memory controllers, each with `sub_partitions` L2 slices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Memory channels (controllers).
    pub channels: u32,
    /// L2 slices (memory sub-partitions) per channel.
    pub sub_partitions: u32,
    /// DRAM chips per channel.
    pub chips_per_channel: u32,
    /// Data-bus width of one chip, bytes.
    pub chip_bus_bytes: u32,
    /// Burst length, data transfers per column command.
    pub burst_length: u32,
    /// Data transfers per command-clock cycle (4 for GDDR5/GDDR5X, 2 for HBM).
    pub data_rate: u32,
    /// Command clock, MHz.
    pub clock_mhz: f64,
    /// Banks per chip.
    pub banks: u32,
    /// Row-buffer size, bytes.
    pub row_bytes: u32,
    /// FR-FCFS scheduler queue entries per channel, one per column burst. GPGPU-Sim's entries
    /// are requests: a sectored L2's 32 B sector reads are a burst each, but a line fill of
    /// an L2 without sectors is `line / burst` bursts, so its queue is that many times
    /// GPGPU-Sim's (the `gtx480-3.2.2` preset's 16 requests are 32 bursts; a GPGPU-Sim file
    /// is read as it stands).
    pub scheduler_queue: u32,
    /// Fixed latency added to every access (GPGPU-Sim `-dram_latency`), core cycles.
    pub latency: u32,
    /// Timing constraints, command-clock cycles.
    pub timing: DramTiming,
    /// Peak bandwidth the source gives, GB/s (checked against the geometry above).
    pub peak_gbps: f64,
    /// GPGPU-Sim's address mapping (`-gpgpu_mem_addr_mapping`, e.g.
    /// `dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS`):
    /// which address bits choose the channel, the bank (whose low bits choose the
    /// sub-partition) and the row ([`crate::mem::address::Decoder`]). None (the presets): the
    /// model's own mapping, consecutive `l2.line_bytes * sub_partitions` chunks to consecutive
    /// channels and consecutive `row_bytes` of a channel to consecutive banks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address_mapping: Option<String>,
    /// How the channel and sub-partition are chosen (`-gpgpu_memory_partition_indexing`;
    /// with `address_mapping` only).
    #[serde(default, skip_serializing_if = "PartitionIndexing::is_consecutive")]
    pub partition_indexing: PartitionIndexing,
    /// Separate row and column command buses (`-dram_dual_bus_interface 1`, HBM): each cycle a
    /// channel may issue a column command and a row command (`ACT` or `PRE`). False: one
    /// command a cycle.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dual_bus: bool,
}

/// GPGPU-Sim's partition indexing (`-gpgpu_memory_partition_indexing`, `addrdec.cc`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionIndexing {
    /// 0: the mapping's channel bits, the bank's low bits for the sub-partition.
    #[default]
    Consecutive,
    /// 1: the channel XORed with the address bits above the channel and sub-partition bits
    /// (a power-of-two channel count).
    Xor,
    /// 2: the sub-partition number hashed with IPOLY over the bits above it (16, 32 or 64
    /// sub-partitions, channels rounded up to a power of two; the remainder modulo the real
    /// count otherwise).
    Ipoly,
    /// 4: every line-sized chunk to a random sub-partition (GPGPU-Sim draws C's `rand()` at
    /// its first touch; here a fixed hash of the chunk, as uniform and the same on every run).
    Random,
}

impl PartitionIndexing {
    fn is_consecutive(&self) -> bool {
        *self == PartitionIndexing::Consecutive
    }
}

/// DRAM timing constraints in command-clock cycles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramTiming {
    /// Activate to activate, different banks.
    pub rrd: u32,
    /// Activate to column command.
    pub rcd: u32,
    /// Activate to precharge.
    pub ras: u32,
    /// Precharge to activate.
    pub rp: u32,
    /// Activate to activate, same bank.
    pub rc: u32,
    /// Column read to data.
    pub cl: u32,
    /// Column write to data.
    pub wl: u32,
    /// Column to column.
    pub ccd: u32,
    /// Write recovery.
    pub wr: u32,
}

impl DramConfig {
    /// Bandwidth implied by the geometry and clock, GB/s (1 GB = 10^9 bytes).
    pub fn computed_gbps(&self) -> f64 {
        self.channels as f64
            * self.chips_per_channel as f64
            * self.chip_bus_bytes as f64
            * self.data_rate as f64
            * self.clock_mhz
            / 1000.0
    }
}

/// Latency (core cycles) and initiation interval of each functional-unit class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitConfig {
    /// SP pipelines per SM.
    pub sp_units: u32,
    /// SFU pipelines per SM.
    pub sfu_units: u32,
    /// Integer add/logic/shift.
    pub int_alu: Latency,
    /// Integer multiply and multiply-add.
    pub int_mul: Latency,
    /// Single-precision add/multiply/FMA.
    pub fp: Latency,
    /// Double precision.
    pub dp: Latency,
    /// Special functions (transcendentals, divide).
    pub sfu: Latency,
    /// Shared-memory access.
    pub shared_mem: Latency,
}

/// A pipeline's latency and initiation interval, core cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Cycles from issue to result.
    pub latency: u32,
    /// Cycles between two issues to the same pipeline.
    pub initiation: u32,
}

impl GpuConfig {
    /// A preset by name ([`presets::NAMES`]).
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        presets::by_name(name).ok_or_else(|| ConfigError::UnknownPreset(name.into()))
    }

    /// A preset name, or a `.toml` / `.json` file; validated.
    pub fn load(preset_or_path: &str) -> Result<Self, ConfigError> {
        Ok(Self::load_with_notes(preset_or_path)?.0)
    }

    /// [`GpuConfig::load`], also accepting a GPGPU-Sim `gpgpusim.config` file (read over the
    /// `gtx480` preset; see [`gpgpusim`]), or a comma-separated list whose first item is any of
    /// these and whose further items are GPGPU-Sim option files, each read over the
    /// configuration before it (`gpgpusim.config,trace.config`, as Accel-Sim takes two
    /// `-config` files); returns what the GPGPU-Sim files set that changes nothing here.
    pub fn load_with_notes(preset_or_path: &str) -> Result<(Self, gpgpusim::Notes), ConfigError> {
        let list = preset_or_path
            .split_once(',')
            .filter(|_| !Path::new(preset_or_path).exists());
        if let Some((first, rest)) = list {
            let (mut cfg, mut notes) = Self::load_with_notes(first)?;
            for item in rest.split(',') {
                if item.is_empty() {
                    return Err(ConfigError::File {
                        path: preset_or_path.into(),
                        message: "an empty item in the comma-separated --config list".into(),
                    });
                }
                let path = Path::new(item);
                let err = |message: String| ConfigError::File {
                    path: path.display().to_string(),
                    message,
                };
                let text = crate::input::read_text(path).map_err(|e| err(e.to_string()))?;
                if !gpgpusim::looks_like(&text) {
                    return Err(err(
                        "a later file of a comma-separated --config list must be a GPGPU-Sim \
                         option file (`-option value` lines)"
                            .into(),
                    ));
                }
                let name = cfg.name.clone();
                let p = gpgpusim::parse_over(&text, path, &cfg)?;
                cfg = p.config;
                cfg.name = format!("{name}+{}", cfg.name);
                notes.extend(p.notes);
            }
            return Ok((cfg, notes));
        }
        if presets::NAMES.contains(&preset_or_path) {
            return Ok((Self::preset(preset_or_path)?, Default::default()));
        }
        let path = Path::new(preset_or_path);
        // A bare name that is no file is a mistyped preset; anything with a directory or an
        // extension is a file, and reading it says why it cannot be read.
        let looks_like_path = preset_or_path.contains(['/', '\\', '.']);
        if !path.exists() && !looks_like_path {
            return Err(ConfigError::UnknownPreset(preset_or_path.into()));
        }
        let err = |message: String| ConfigError::File {
            path: path.display().to_string(),
            message,
        };
        let text = crate::input::read_text(path).map_err(|e| err(e.to_string()))?;
        let cfg: GpuConfig = match path.extension().and_then(|e| e.to_str()) {
            Some("json") => serde_json::from_str(&text).map_err(|e| err(e.to_string()))?,
            Some("toml") => toml::from_str(&text).map_err(|e| err(e.to_string()))?,
            _ if gpgpusim::looks_like(&text) => {
                let p = gpgpusim::parse(&text, path, &presets::gtx480())?;
                return Ok((p.config, p.notes));
            }
            _ => {
                return Err(err(
                    "expected a .toml or .json file, a GPGPU-Sim config (`-option value` lines), or a preset name"
                        .into(),
                ))
            }
        };
        cfg.validate().map_err(|e| {
            let line = e.field().and_then(|f| locate_key(&text, f));
            e.at(path, line)
        })?;
        Ok((cfg, Default::default()))
    }

    /// The configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config serializes")
    }

    /// Every integer field with its value, by its dotted name.
    pub fn integer_fields(&self) -> Vec<(String, u64)> {
        let sm = &self.sm;
        let mut v: Vec<(String, u64)> = [
            ("sm.count", sm.count),
            ("sm.warp_size", sm.warp_size),
            ("sm.max_threads", sm.max_threads),
            ("sm.max_warps", sm.max_warps),
            ("sm.max_blocks", sm.max_blocks),
            ("sm.registers", sm.registers),
            ("sm.shared_mem_bytes", sm.shared_mem_bytes),
            ("sm.shared_mem_banks", sm.shared_mem_banks),
            ("sm.schedulers", sm.schedulers),
            ("sm.ibuffer_entries", sm.ibuffer_entries),
            ("sm.fetch_width", sm.fetch_width),
            ("sm.two_level_max_active", sm.two_level_max_active),
            ("interconnect.latency", self.interconnect.latency),
            ("interconnect.flit_bytes", self.interconnect.flit_bytes),
            ("interconnect.input_buffer", self.interconnect.input_buffer),
            (
                "interconnect.output_buffer",
                self.interconnect.output_buffer,
            ),
            ("dram.channels", self.dram.channels),
            ("dram.sub_partitions", self.dram.sub_partitions),
            ("dram.chips_per_channel", self.dram.chips_per_channel),
            ("dram.chip_bus_bytes", self.dram.chip_bus_bytes),
            ("dram.burst_length", self.dram.burst_length),
            ("dram.data_rate", self.dram.data_rate),
            ("dram.banks", self.dram.banks),
            ("dram.row_bytes", self.dram.row_bytes),
            ("dram.scheduler_queue", self.dram.scheduler_queue),
            ("dram.latency", self.dram.latency),
            ("units.sp_units", self.units.sp_units),
            ("units.sfu_units", self.units.sfu_units),
            ("pipeline.decode_cycles", self.pipeline.decode_cycles),
            ("pipeline.operand_cycles", self.pipeline.operand_cycles),
            ("pipeline.writeback_cycles", self.pipeline.writeback_cycles),
            ("pipeline.lsu_queue", self.pipeline.lsu_queue),
            ("pipeline.l1d_banks", self.pipeline.l1d_banks),
            ("pipeline.l1d_bank_bytes", self.pipeline.l1d_bank_bytes),
            ("pipeline.fetch_throughput", self.pipeline.fetch_throughput),
            ("pipeline.issue_per_warp", self.pipeline.issue_per_warp),
            (
                "partition_queues.icnt_to_l2",
                self.partition_queues.icnt_to_l2,
            ),
            (
                "partition_queues.l2_to_icnt",
                self.partition_queues.l2_to_icnt,
            ),
        ]
        .into_iter()
        .map(|(n, x)| (n.to_string(), x as u64))
        .collect();
        {
            let oc = &self.pipeline.operand_collector;
            let prefix = "pipeline.operand_collector";
            v.push((format!("{prefix}.register_banks"), oc.register_banks as u64));
            v.push((
                format!("{prefix}.port_throughput"),
                oc.port_throughput as u64,
            ));
            v.push((format!("{prefix}.generic_units"), oc.generic_units as u64));
            v.push((format!("{prefix}.generic_ports"), oc.generic_ports as u64));
            v.push((
                format!("{prefix}.generic_dispatchers"),
                oc.generic_dispatchers as u64,
            ));
            v.push((
                format!("{prefix}.writeback_width"),
                oc.writeback_width as u64,
            ));
            for (k, a) in [
                ("units", oc.units),
                ("issue_widths", oc.issue_widths),
                ("dispatch_widths", oc.dispatch_widths),
            ] {
                for (path, x) in ["sp", "sfu", "mem"].iter().zip(a.array()) {
                    v.push((format!("{prefix}.{k}.{path}"), x as u64));
                }
            }
        }
        for (name, c) in [("l1i", &self.l1i), ("l1d", &self.l1d), ("l2", &self.l2)] {
            for (k, x) in [
                ("size_bytes", c.size_bytes),
                ("line_bytes", c.line_bytes),
                ("ways", c.ways),
                ("mshrs", c.mshrs),
                ("mshr_merge", c.mshr_merge),
                ("miss_queue", c.miss_queue),
                ("latency", c.latency),
                ("sector_bytes", c.sector_bytes),
                ("port_bytes", c.port_bytes),
            ] {
                v.push((format!("{name}.{k}"), x as u64));
            }
        }
        let t = &self.dram.timing;
        for (k, x) in [
            ("rrd", t.rrd),
            ("rcd", t.rcd),
            ("ras", t.ras),
            ("rp", t.rp),
            ("rc", t.rc),
            ("cl", t.cl),
            ("wl", t.wl),
            ("ccd", t.ccd),
            ("wr", t.wr),
        ] {
            v.push((format!("dram.timing.{k}"), x as u64));
        }
        let u = &self.units;
        for (k, l) in [
            ("int_alu", u.int_alu),
            ("int_mul", u.int_mul),
            ("fp", u.fp),
            ("dp", u.dp),
            ("sfu", u.sfu),
            ("shared_mem", u.shared_mem),
        ] {
            v.push((format!("units.{k}.latency"), l.latency as u64));
            v.push((format!("units.{k}.initiation"), l.initiation as u64));
        }
        v
    }

    /// The longest wait the configuration allows an instruction without anything being wrong
    /// (cycles), and what it is: a load's round trip to DRAM (the L1D, the crossbar both ways,
    /// the L2 and the DRAM latencies) or the slowest functional unit, whichever is longer.
    pub fn longest_wait(&self) -> (u64, String) {
        let trip = [
            ("l1d.latency", self.l1d.latency as u64),
            (
                "2 x interconnect.latency",
                2 * self.interconnect.latency as u64,
            ),
            ("l2.latency", self.l2.latency as u64),
            ("dram.latency", self.dram.latency as u64),
        ];
        let round: u64 = trip.iter().map(|t| t.1).sum();
        let slowest = self
            .integer_fields()
            .into_iter()
            .filter(|(n, _)| n.starts_with("units.") && n.ends_with(".latency"))
            .max_by_key(|t| t.1)
            .expect("the units have latencies");
        if slowest.1 > round {
            return (slowest.1, format!("{} {}", slowest.0, slowest.1));
        }
        let parts: Vec<String> = trip.iter().map(|(n, v)| format!("{n} {v}")).collect();
        (round, format!("a load's round trip: {}", parts.join(" + ")))
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (name, v) in self.integer_fields() {
            let (lo, hi) = range_of(&name).expect("every integer field has a range");
            if !(lo..=hi).contains(&v) {
                return Err(field(
                    &name,
                    format!("{v} is outside the supported range {lo}..={hi}"),
                ));
            }
        }
        for (name, v, (lo, hi)) in [
            ("sm.core_clock_mhz", self.sm.core_clock_mhz, CLOCK_MHZ),
            ("dram.clock_mhz", self.dram.clock_mhz, CLOCK_MHZ),
            ("dram.peak_gbps", self.dram.peak_gbps, PEAK_GBPS),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(field(
                    name,
                    format!("{v} is outside the supported range {lo}..={hi}"),
                ));
            }
        }
        let sm = &self.sm;
        if !self.dram.sub_partitions.is_power_of_two() {
            return Err(field(
                "dram.sub_partitions",
                format!("{} is not a power of two", self.dram.sub_partitions),
            ));
        }
        if sm.max_threads.div_ceil(sm.warp_size) > sm.max_warps {
            return Err(field(
                "sm.max_threads",
                format!(
                    "{} threads need {} warps but sm.max_warps is {}",
                    sm.max_threads,
                    sm.max_threads.div_ceil(32),
                    sm.max_warps
                ),
            ));
        }
        if !sm.max_warps.is_multiple_of(sm.schedulers) {
            return Err(field(
                "sm.schedulers",
                format!(
                    "{} schedulers do not divide sm.max_warps = {}",
                    sm.schedulers, sm.max_warps
                ),
            ));
        }
        if !["lrr", "gto", "two_level"].contains(&sm.warp_scheduler.as_str()) {
            return Err(field(
                "sm.warp_scheduler",
                format!("`{}`; expected lrr, gto or two_level", sm.warp_scheduler),
            ));
        }
        let per_sched = sm.max_warps / sm.schedulers;
        if sm.warp_scheduler == "two_level"
            && !(1..=per_sched / 2).contains(&sm.two_level_max_active)
        {
            return Err(field(
                "sm.two_level_max_active",
                format!(
                    "{} must be in 1..={} ({per_sched} warps per scheduler)",
                    sm.two_level_max_active,
                    per_sched / 2
                ),
            ));
        }
        self.l1i.validate("l1i")?;
        self.l1d.validate("l1d")?;
        self.l2.validate("l2")?;
        for (name, c) in [("l1i", &self.l1i), ("l1d", &self.l1d)] {
            let lines = (c.size_bytes / c.line_bytes) as u64;
            if lines > MAX_L1_LINES {
                return Err(field(
                    &format!("{name}.size_bytes"),
                    format!(
                        "{} bytes of {}-byte lines is {lines} lines; the model holds at most \
                         {MAX_L1_LINES} per L1",
                        c.size_bytes, c.line_bytes
                    ),
                ));
            }
        }
        let slices = self.dram.channels as u64 * self.dram.sub_partitions as u64;
        let l2_lines = (self.l2.size_bytes / self.l2.line_bytes) as u64 * slices;
        if l2_lines > MAX_L2_LINES {
            return Err(field(
                "l2.size_bytes",
                format!(
                    "{slices} slices of {} bytes in {}-byte lines is {l2_lines} lines; the model \
                     holds at most {MAX_L2_LINES}",
                    self.l2.size_bytes, self.l2.line_bytes
                ),
            ));
        }
        if self.l1d.line_bytes > self.l2.line_bytes {
            return Err(field("l1d.line_bytes", "larger than l2.line_bytes"));
        }
        if !self.dram.row_bytes.is_power_of_two() {
            return Err(field(
                "dram.row_bytes",
                format!("{} is not a power of two", self.dram.row_bytes),
            ));
        }
        for (name, x) in [
            ("pipeline.l1d_banks", self.pipeline.l1d_banks),
            ("pipeline.l1d_bank_bytes", self.pipeline.l1d_bank_bytes),
        ] {
            if !x.is_power_of_two() {
                return Err(field(name, format!("{x} is not a power of two")));
            }
        }
        let carve = &self.l1d_carveout;
        if carve.enabled && carve.unified_kb > 0 {
            let l1d = self.l1d.size_bytes as u64;
            let unified = carve.unified_kb as u64 * 1024;
            if !unified.is_multiple_of(l1d) {
                return Err(field(
                    "l1d_carveout.unified_kb",
                    format!(
                        "{unified} bytes is not a multiple of l1d.size_bytes = {l1d} (GPGPU-Sim \
                         grows the L1D by whole multiples of it)"
                    ),
                ));
            }
            if (unified / self.l1d.line_bytes as u64) > MAX_L1_LINES {
                return Err(field(
                    "l1d_carveout.unified_kb",
                    format!(
                        "{} lines; the model holds at most {MAX_L1_LINES} per L1",
                        unified / self.l1d.line_bytes as u64
                    ),
                ));
            }
            if carve.shared_options_kb.is_empty() {
                return Err(field(
                    "l1d_carveout.shared_options_kb",
                    "no shared-memory size to split the unified array at",
                ));
            }
        }
        let q = &self.partition_queues;
        if q.enabled && (1..4).contains(&q.icnt_to_l2) {
            return Err(field(
                "partition_queues.icnt_to_l2",
                format!(
                    "{}: GPGPU-Sim takes a request off the interconnect only while four fit \
                     (a line's sector requests), so a queue of fewer than 4 never takes one",
                    q.icnt_to_l2
                ),
            ));
        }
        self.check_collector().map_err(|(f, why)| field(f, why))?;
        if self.l2.set_index == SetIndexFn::FermiHash {
            return Err(field(
                "l2.set_index",
                "fermi-hash is the L1D's; the L2 indexes its partition address linearly or \
                 with ipoly",
            ));
        }
        match &self.dram.address_mapping {
            Some(m) => {
                crate::mem::address::Decoder::new(m, &self.dram)
                    .map_err(|e| field("dram.address_mapping", e))?;
            }
            None if !self.dram.partition_indexing.is_consecutive() => {
                return Err(field(
                    "dram.partition_indexing",
                    "a hashed partition indexing needs dram.address_mapping (GPGPU-Sim's)",
                ));
            }
            None => {}
        }
        // tRC is a constraint of its own beside tRAS + tRP (an activate waits for both), as in
        // GPGPU-Sim: its Kepler, Pascal, Turing and Ampere files set tRC = tRAS + tRP - 1.
        let computed = self.dram.computed_gbps();
        if (computed - self.dram.peak_gbps).abs() > 0.01 * self.dram.peak_gbps {
            return Err(field(
                "dram.peak_gbps",
                format!(
                    "{} GB/s, but the channel geometry and clock give {computed:.1} GB/s",
                    self.dram.peak_gbps
                ),
            ));
        }
        Ok(())
    }
}

/// The line of a TOML or JSON text where the dotted `field` is set: each part of the name is
/// looked for as a whole word after the previous one (a table header `[dram.timing]` or a key
/// `rc = ...`, `"dram": {...}` or `"rc": ...`). `None` when a part is not found.
fn locate_key(text: &str, field: &str) -> Option<usize> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut at = 0;
    for part in field.split('.') {
        let mut from = at;
        loop {
            let i = from + text[from..].find(part)?;
            let end = i + part.len();
            let before = text[..i].chars().next_back();
            let after = text[end..].chars().next();
            if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                at = end;
                break;
            }
            from = end;
        }
    }
    Some(text[..at].lines().count().max(1))
}

#[cfg(test)]
mod tests;
