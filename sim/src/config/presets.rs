//! The GPUs of the papers. Each value names its source: a paper table (through the spec in
//! `shared/spec/`, with the paper's line), or GPGPU-Sim's tested configuration for that GPU
//! (`configs/tested-cfgs/<dir>/gpgpusim.config`) where the papers say nothing. Where neither has
//! it, the value is marked `[assumed]` with the reason.

use super::{
    CacheConfig, DramConfig, DramTiming, GpuConfig, InterconnectConfig, L1dCarveout, Latency,
    LaunchConfig, OperandCollectorConfig, PartitionIndexing, PartitionQueues, PerPath,
    PipelineConfig, SetIndexFn, SmConfig, UnitConfig, WriteAllocate, WriteThrough,
};

/// Preset names.
pub const NAMES: &[&str] = &[
    "gtx480",
    "gtx480-3.2.2",
    "titanx",
    "titanv",
    "gtx980",
    "gtx980-3.2.2",
    "gtx680",
];

/// A preset by name.
pub fn by_name(name: &str) -> Option<GpuConfig> {
    match name {
        "gtx480" => Some(gtx480()),
        "gtx480-3.2.2" => Some(gtx480_gpgpusim_3_2_2()),
        "titanx" => Some(titanx()),
        "titanv" => Some(titanv()),
        "gtx980" => Some(gtx980()),
        "gtx980-3.2.2" => Some(gtx980_gpgpusim_3_2_2()),
        "gtx680" => Some(gtx680()),
        _ => None,
    }
}

const KB: u32 = 1024;

/// Cache: size, line, ways, (mshrs, merge, miss queue), hit latency.
fn cache(
    size_bytes: u32,
    line_bytes: u32,
    ways: u32,
    mshr: (u32, u32, u32),
    latency: u32,
) -> CacheConfig {
    let (mshrs, mshr_merge, miss_queue) = mshr;
    CacheConfig {
        size_bytes,
        line_bytes,
        ways,
        mshrs,
        mshr_merge,
        miss_queue,
        latency,
        sector_bytes: 0,
        mshr_sectors: false,
        port_bytes: 0,
        write_allocate: Default::default(),
        write_through: Default::default(),
        set_index: Default::default(),
    }
}

/// `c` with sectors of `bytes` (GPGPU-Sim's `S:` caches: 32 B).
fn sectored(c: CacheConfig, bytes: u32) -> CacheConfig {
    CacheConfig {
        sector_bytes: bytes,
        ..c
    }
}

fn lat(latency: u32, initiation: u32) -> Latency {
    Latency {
        latency,
        initiation,
    }
}

/// GPGPU-Sim timing string order: RRD, RCD, RAS, RP, RC, CL, WL, CCD, WR.
fn timing(t: [u32; 9]) -> DramTiming {
    let [rrd, rcd, ras, rp, rc, cl, wl, ccd, wr] = t;
    DramTiming {
        rrd,
        rcd,
        ras,
        rp,
        rc,
        cl,
        wl,
        ccd,
        wr,
    }
}

/// Fermi GTX 480 (ELF, seed 003 Table 3.1; PAVER, seed 004 Table 1; GPGPU-Sim SM2_GTX480).
///
/// Core clock: the papers' 1400 MHz is the shader clock of 16-lane pipelines; a 32-thread warp
/// takes two of those cycles, so one warp instruction per cycle is 700 MHz, the value of PAVER
/// Table 1 (L73) and of GPGPU-Sim's config.
pub fn gtx480() -> GpuConfig {
    GpuConfig {
        name: "gtx480".into(),
        sm: SmConfig {
            count: 15,                    // ELF T3.1 (L542), PAVER T1 (L69)
            core_clock_mhz: 700.0,        // PAVER T1 (L73); 1400 MHz shader clock / 2 (see above)
            warp_size: 32,                // ELF T3.1
            max_threads: 1536,            // ELF T3.1
            max_warps: 48,                // ELF L654; 1536 / 32
            max_blocks: 8,                // ELF T3.1
            registers: 32768,             // ELF T3.1
            shared_mem_bytes: 48 * KB,    // ELF T3.1
            shared_mem_banks: 32,         // GPGPU-Sim -gpgpu_shmem_num_banks
            schedulers: 2,                // ELF L512; GPGPU-Sim -gpgpu_num_sched_per_core
            ibuffer_entries: 2,           // GPGPU-Sim shader core i-buffer (2 per warp)
            fetch_width: 2,               // ELF L512-L514: 2 instructions of one warp per cycle
            warp_scheduler: "gto".into(), // GPGPU-Sim -gpgpu_scheduler; ELF's baseline
            two_level_max_active: 6,      // GPGPU-Sim's two_level_active:6:0:1
        },
        l1i: cache(2 * KB, 128, 4, (8, 32, 4), 1), // ELF T3.1 (2 kB/4-way/128 B, 8 MSHRs); merge and queue: GPGPU-Sim il1 S:2:32,4
        l1d: cache(16 * KB, 128, 4, (32, 8, 8), 35), // ELF T3.1 (16 kB/4-way/128 B, 32 MSHRs); merge 8, queue 8, latency 35: GPGPU-Sim
        // 768 kB / 16-way / 128 B in 6 partitions x 2 sub-partitions = 64 kB slices (ELF T3.1);
        // 32 MSHRs per partition (ELF T3.1); merge 4, queue 4, ROP latency 120, 32 B sectors
        // (dl2 S:): GPGPU-Sim.
        l2: sectored(cache(64 * KB, 128, 16, (32, 4, 4), 120), 32),
        interconnect: InterconnectConfig {
            latency: 8, // [assumed] the papers give none; GPGPU-Sim's iSLIP network is a few router cycles
            flit_bytes: 40, // GPGPU-Sim -icnt_flit_size
            input_buffer: InterconnectConfig::DEFAULT_INPUT_BUFFER, // [assumed] (GPGPU-Sim's .icnt file: 9 flits)
            output_buffer: 0, // [assumed] unbounded (GPGPU-Sim's .icnt file: 64 + 16 flits)
        },
        dram: DramConfig {
            channels: 6,          // ELF T3.1: 6 memory partitions
            sub_partitions: 2,    // GPGPU-Sim -gpgpu_n_sub_partition_per_mchannel
            chips_per_channel: 2, // GPGPU-Sim -gpgpu_n_mem_per_ctrlr (384-bit bus)
            chip_bus_bytes: 4,    // GPGPU-Sim -gpgpu_dram_buswidth
            burst_length: 8,      // GPGPU-Sim -gpgpu_dram_burst_length
            data_rate: 4,         // GDDR5 (GPGPU-Sim -dram_data_command_freq_ratio)
            clock_mhz: 924.0,     // GPGPU-Sim -gpgpu_clock_domains
            banks: 16,            // GPGPU-Sim nbk
            row_bytes: 4096,      // GPGPU-Sim address mapping: 6 column + 6 byte bits
            scheduler_queue: 64,  // GPGPU-Sim -gpgpu_frfcfs_dram_sched_queue_size
            latency: 100,         // GPGPU-Sim -dram_latency
            // tRRD 6, tRCD 12, tRAS 28, tRP 12, tRC 40, tCL 12 (DESIGN.md §4; GPGPU-Sim, Hynix H5GQ1H24AFR);
            // WL 4, CCD 2, WR 12: GPGPU-Sim.
            timing: timing([6, 12, 28, 12, 40, 12, 4, 2, 12]),
            peak_gbps: 177.4, // ELF T3.1
            address_mapping: None,
            partition_indexing: PartitionIndexing::Consecutive,
            dual_bus: false,
        },
        units: UnitConfig {
            sp_units: 2,            // GPGPU-Sim -gpgpu_num_sp_units
            sfu_units: 1,           // GPGPU-Sim -gpgpu_num_sfu_units
            int_alu: lat(4, 1),     // GPGPU-Sim int ADD
            int_mul: lat(5, 1),     // GPGPU-Sim int MAD
            fp: lat(5, 1),          // GPGPU-Sim fp MAD (ADD/MUL: 4)
            dp: lat(8, 8),          // GPGPU-Sim dp ADD
            sfu: lat(8, 8),         // GPGPU-Sim defaults (the config sets none)
            shared_mem: lat(26, 1), // GPGPU-Sim -gpgpu_smem_latency
        },
        pipeline: PipelineConfig::default(), // GPGPU-Sim 4 (shader.cc)
        launch: LaunchConfig::default(),     // GPGPU-Sim option defaults: no launch latency
        l1d_carveout: L1dCarveout::default(),
        partition_queues: PartitionQueues::default(),
    }
}

/// The GTX 480 as GPGPU-Sim 3.2.2 simulates it: the simulator ELF, Chimera and GPU Maestro ran
/// on (seed 003 L552, L937, L1246), whose GTX480 file the locality thesis's Table 4.1 matches.
///
/// [`gtx480`] with what the 3.2.2 release differs in: its mechanisms ([`gpgpusim_3_2_2`]) and
/// its `configs/GTX480/gpgpusim.config`'s L2 geometry.
///
/// Modelled but not set here, as in [`gtx480`]: the partition queues (3.2.2: 8 entries each,
/// the default of `-gpgpu_dram_partition_queues`, `gs/gpu-sim.cc`:144-146; 4.x: 64;
/// `partition_queues`) and the ejection buffer (3.2.2: 8 flits and the 16-flit boundary
/// buffer, `intersim2/interconnect_interface.cpp`:115-129; `interconnect.output_buffer`).
/// Both on (`8:8` and 24 flits) cost GTO 1.5% more cycles over `repro elf`'s suite at `medium`
/// and RR 4.0% over `repro locality`'s at `large` (`tran` 42%), and move the headlines by up
/// to 0.8 (ELF, either way) and 3.0 points (locality, LA-TB over BCS on type II: three of its
/// four away from the thesis) (`docs/src/notes/gpgpusim-3.2.2-against-4.x.md`); switching them on
/// re-runs every `gtx480-3.2.2` results page. Not modelled, in either preset: DRAM bank
/// groups (3.2.2 uses two of its four, `gs/gpu-sim.h`:193-198); the L2 fill port (four cycles
/// a line, `gs/gpu-cache.cc`:601-606).
pub fn gtx480_gpgpusim_3_2_2() -> GpuConfig {
    let mut c = gpgpusim_3_2_2(gtx480());
    // dl2 `64:128:8,L:B:m:W,A:32:4,4:0,32` (the GTX480 file's `-gpgpu_cache:dl2`, parsed by
    // `gs/gpu-cache.h`'s `cache_config::init`): 64 kB slices of 128 B lines, 8-way (the locality
    // thesis's Table 4.1 says 8-way too; ELF Table 3.1 says 16), 32 MSHRs merging 4, miss
    // queue 4; the rest of the string is a mechanism ([`gpgpusim_3_2_2`]).
    c.l2 = CacheConfig {
        port_bytes: c.l2.port_bytes,
        write_allocate: c.l2.write_allocate,
        ..cache(64 * KB, 128, 8, (32, 4, 4), 120)
    };
    c
}

/// [`gtx980`] under GPGPU-Sim 3.2.2's mechanisms ([`gpgpusim_3_2_2`]): the simulator GPU
/// Maestro ran on (seed 003 L1246), whose GTX 980 configuration the thesis does not publish
/// beyond Table 5.2 (the geometry both presets share).
pub fn gtx980_gpgpusim_3_2_2() -> GpuConfig {
    gpgpusim_3_2_2(gtx980())
}

/// `c` (a preset of GPGPU-Sim 4.x's mechanisms) with the mechanisms of the 3.2.2 release, named
/// `<name>-3.2.2`: its source at commit `24f29469` of `gpgpu-sim/gpgpu-sim_distribution`
/// (2013-10-31, the commit that sets `version` to 3.2.2; the repository has no tag for it).
/// Paths below are that commit's, `gs/` = `src/gpgpu-sim/`;
/// `docs/src/notes/gpgpusim-3.2.2-against-4.x.md` has the whole comparison. The SM, the DRAM
/// timing and geometry, the ROP and DRAM latencies, the clocks and the L1I are the
/// configuration's, the same in both releases (or the papers set them: ELF Table 3.1, Maestro
/// Table 5.2).
pub fn gpgpusim_3_2_2(mut c: GpuConfig) -> GpuConfig {
    c.name = format!("{}-3.2.2", c.name);
    // The L1D set index is linear, the release's only function (`gs/gpu-cache.h`:229-232; the
    // Fermi hash arrived in 2014, 94a6b6c5).
    c.l1d.set_index = SetIndexFn::Linear;
    // No L1 latency queue (`-gpgpu_l1_latency` does not exist): a hit releases its registers
    // in the LD/ST cycle that looks it up (`gs/shader.cc`:1302-1307, 1858-1881).
    c.pipeline.l1d_latency_queue = false;
    c.l1d.latency = 0;
    // The L2 is not sectored (no sector code in the release: a miss asks DRAM for the whole
    // line, `gs/gpu-cache.cc`:719), write-back with the naive write-allocate `W`
    // (`gs/gpu-cache.cc`:794-850), with a 32 B data port (`gs/gpu-cache.h`:205-208) that the
    // L2 checks before every access (`gs/l2cache.cc`:379-381).
    c.l2.sector_bytes = 0;
    c.l2.port_bytes = 32;
    c.l2.write_allocate = WriteAllocate::Fetch;
    // `config_fermi_islip.icnt`:3 `flit_size = 32` (4.x: 40).
    c.interconnect.flit_bytes = 32;
    // `-gpgpu_frfcfs_dram_sched_queue_size 16` requests (the GTX480 file's; 4.x: 64), the limit
    // `dram_t::full` and the FR-FCFS intake enforce (`gs/dram.cc`:118-125,
    // `gs/dram_sched.cc`:132); each is a line fill or a write of whole bursts, and the model's
    // queue holds bursts.
    let per_line =
        u64::from(c.l2.line_bytes).div_ceil(crate::mem::dram::Channel::bytes_per_column(&c.dram));
    c.dram.scheduler_queue = 16 * per_line as u32;
    // Shared memory is a 3-stage pipelined unit (`gs/shader.cc`:1582, 1618; 4.x: 26 cycles).
    c.units.shared_mem = lat(3, 1);
    c
}

/// Pascal TITAN X (PAVER Table 1; GPGPU-Sim SM6_TITANX).
///
/// Every value is GPGPU-Sim's `configs/tested-cfgs/SM6_TITANX/gpgpusim.config` (and its
/// `config_pascal_islip.icnt`) with Accel-Sim's `SM6_TITANX/trace.config`, read as `gpusched
/// sim --config gpgpusim.config,trace.config` reads them (a test checks it), except where PAVER
/// gives another: Table 1's 1 GHz core clock (the file: 1417 MHz), and global loads cached in
/// the L1D (the file skips it; see `gmem_skip_l1d`). Table 1's sizes are the file's, and its
/// 32 warps contradict its 2,048 threads (paver.md A20): 64, as the file.
pub fn titanx() -> GpuConfig {
    GpuConfig {
        name: "titanx".into(),
        sm: SmConfig {
            count: 28,                    // PAVER T1 (L69); -gpgpu_n_clusters 28 x 1 core
            core_clock_mhz: 1000.0,       // PAVER T1 (L73); the file's -gpgpu_clock_domains: 1417
            warp_size: 32,                // -gpgpu_shader_core_pipeline 2048:32
            max_threads: 2048,            // PAVER T1 (L70); -gpgpu_shader_core_pipeline
            max_warps: 64,                // 2048 / 32 (paver.md A20: Table 1's 32 contradicts it)
            max_blocks: 32,               // PAVER T1 (L70); -gpgpu_shader_cta 32
            registers: 65536,             // -gpgpu_shader_registers
            shared_mem_bytes: 96 * KB,    // PAVER T1 (L71); -gpgpu_shmem_size 98304
            shared_mem_banks: 32,         // -gpgpu_shmem_num_banks
            schedulers: 4,                // -gpgpu_num_sched_per_core
            ibuffer_entries: 2,           // GPGPU-Sim's i-buffer (shader.cc)
            fetch_width: 2,               // GPGPU-Sim fetches two instructions (shader.cc)
            warp_scheduler: "gto".into(), // PAVER L308; -gpgpu_scheduler gto
            two_level_max_active: 6,
        },
        l1i: cache(4 * KB, 128, 4, (2, 48, 4), 1), // -gpgpu_cache:il1 N:8:128:4,L:R:f:N:L,S:2:48,4
        // PAVER T1 48 kB; -gpgpu_cache:dl1 S:4:128:96,L:L:s:N:L,A:256:8,16:0,32; -gpgpu_l1_latency 82
        l1d: sector_mshrs(sectored(cache(48 * KB, 128, 96, (256, 8, 16), 82), 32)),
        // 3 MB (PAVER T1) = 24 slices of -gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:256:64,16:0,32
        // (P: IPOLY set index); -gpgpu_l2_rop_latency 120
        l2: ipoly(sector_mshrs(sectored(
            cache(128 * KB, 128, 16, (256, 64, 16), 120),
            32,
        ))),
        interconnect: InterconnectConfig {
            latency: 8,         // [assumed] as gtx480: the papers give none
            flit_bytes: 40,     // -icnt_flit_size
            input_buffer: 256,  // config_pascal_islip.icnt input_buffer_size (-network_mode 1)
            output_buffer: 128, // its ejection_buffer_size 64 + boundary_buffer_size 64
        },
        dram: DramConfig {
            channels: 12,         // -gpgpu_n_mem (384-bit GDDR5X)
            sub_partitions: 2,    // -gpgpu_n_sub_partition_per_mchannel
            chips_per_channel: 1, // -gpgpu_n_mem_per_ctrlr
            chip_bus_bytes: 4,    // -gpgpu_dram_buswidth
            burst_length: 8,      // -gpgpu_dram_burst_length
            data_rate: 4,         // -dram_data_command_freq_ratio (GDDR5X is QDR)
            clock_mhz: 2500.0,    // -gpgpu_clock_domains
            banks: 16,            // -gpgpu_dram_timing_opt nbk
            row_bytes: 2048,      // the mapping's 6 column and 5 byte bits
            scheduler_queue: 64,  // -gpgpu_frfcfs_dram_sched_queue_size
            latency: 100,         // -dram_latency
            // -gpgpu_dram_timing_opt RRD, RCD, RAS, RP, RC, CL, WL, CCD, WR
            timing: timing([8, 16, 37, 16, 52, 16, 6, 2, 16]),
            peak_gbps: 480.0, // 12 x 4 B x 4 x 2500 MHz (NVIDIA: 480 GB/s)
            address_mapping: Some(PASCAL_MAPPING.into()), // -gpgpu_mem_addr_mapping
            partition_indexing: PartitionIndexing::Random, // -gpgpu_memory_partition_indexing 4
            dual_bus: false,
        },
        units: UnitConfig {
            sp_units: 4,            // -gpgpu_num_sp_units
            sfu_units: 4,           // -gpgpu_num_sfu_units
            int_alu: lat(4, 1),     // trace.config -trace_opcode_latency_initiation_int 4,1
            int_mul: lat(4, 1),     // the same
            fp: lat(4, 1),          // -trace_opcode_latency_initiation_sp 4,1
            dp: lat(20, 8),         // -trace_opcode_latency_initiation_dp 20,8
            sfu: lat(20, 4),        // -trace_opcode_latency_initiation_sfu 20,4
            shared_mem: lat(24, 1), // -gpgpu_smem_latency 24
        },
        pipeline: PipelineConfig {
            // PAVER: the L1D caches global loads (the file: -gpgpu_gmem_skip_L1D 1). Table 1
            // gives a 48 kB L1, and Fig. 13's L2 accesses fall with the block order (L351),
            // which only L1D hits on global data can make happen.
            gmem_skip_l1d: false,
            perfect_inst_cache: true,    // -gpgpu_perfect_inst_const_cache 1
            sector_coalescing: true,     // -gpgpu_coalesce_arch 61
            l1d_banks: 2,                // -gpgpu_l1_banks 2
            fetch_throughput: 8,         // -gpgpu_inst_fetch_throughput 8
            issue_per_warp: 2,           // -gpgpu_max_insn_issue_per_warp 2
            dual_issue_diff_units: true, // -gpgpu_dual_issue_diff_exec_units 1
            // -gpgpu_num_reg_banks 16, -gpgpu_reg_file_port_throughput 2,
            // -gpgpu_pipeline_widths 4,0,0,4,4,4,0,0,4,4,8
            operand_collector: sub_core_collector(16),
            ..PipelineConfig::default() // GPGPU-Sim 4 (shader.cc)
        },
        launch: LaunchConfig {
            kernel_latency: 5000, // -gpgpu_kernel_launch_latency 5000
            block_latency: 0,
        },
        l1d_carveout: L1dCarveout::default(), // the file has no adaptive carve-out
        partition_queues: PartitionQueues {
            enabled: true, // -gpgpu_dram_partition_queues 32:32:32:32
            icnt_to_l2: 32,
            l2_to_icnt: 32,
        },
    }
}

/// The address mapping of GPGPU-Sim's SM6_TITANX file (`-gpgpu_mem_addr_mapping`).
const PASCAL_MAPPING: &str =
    "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS";
/// The address mapping of GPGPU-Sim's SM7_TITANV file (`-gpgpu_mem_addr_mapping`).
const VOLTA_MAPPING: &str =
    "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS";

/// `c` with MSHR entries of sectors (a GPGPU-Sim `S:` cache keys its MSHRs by sector).
fn sector_mshrs(mut c: CacheConfig) -> CacheConfig {
    c.mshr_sectors = true;
    c
}

/// `c` with GPGPU-Sim's IPOLY set index (the `P` of a cache string).
fn ipoly(mut c: CacheConfig) -> CacheConfig {
    c.set_index = SetIndexFn::Ipoly;
    c
}

/// The operand collector of GPGPU-Sim's Pascal and Volta files: eight generic collector units
/// with eight ports and eight dispatchers (`-gpgpu_enable_specialized_operand_collector 0`,
/// `-gpgpu_operand_collector_num_{units,in_ports,out_ports}_gen 8`), sub-cores
/// (`-gpgpu_sub_core_model 1`), two register-file ports (`-gpgpu_reg_file_port_throughput 2`),
/// `banks` register banks (`-gpgpu_num_reg_banks`), and `-gpgpu_pipeline_widths` 4 for SP, SFU
/// and MEM, 8 writebacks.
fn sub_core_collector(banks: u32) -> OperandCollectorConfig {
    let four = PerPath {
        sp: 4,
        sfu: 4,
        mem: 4,
    };
    OperandCollectorConfig {
        enabled: true,
        register_banks: banks,
        port_throughput: 2,
        issue_widths: four,
        dispatch_widths: four,
        writeback_width: 8,
        specialized: false,
        generic_units: 8,
        generic_ports: 8,
        generic_dispatchers: 8,
        sub_cores: true,
        ..OperandCollectorConfig::default()
    }
}

/// Volta TITAN V (PAVER Table 1; GPGPU-Sim SM7_TITANV).
///
/// Every value is GPGPU-Sim's `configs/tested-cfgs/SM7_TITANV/gpgpusim.config` with Accel-Sim's
/// `SM7_TITANV/trace.config`, read as `gpusched sim --config gpgpusim.config,trace.config` reads
/// them (a test checks it), except where PAVER gives another: GTO warp scheduling (L308; the
/// file: LRR) and Table 1's fixed 32 kB L1D beside 96 kB of shared memory (L71; the file's
/// adaptive carve-out, `-gpgpu_adaptive_cache_config 1`, would give a kernel without shared
/// memory the whole 128 kB).
pub fn titanv() -> GpuConfig {
    GpuConfig {
        name: "titanv".into(),
        sm: SmConfig {
            count: 80,                    // PAVER T1 (L69); -gpgpu_n_clusters 40 x 2 cores
            core_clock_mhz: 1200.0,       // PAVER T1 (L73); -gpgpu_clock_domains 1200
            warp_size: 32,                // -gpgpu_shader_core_pipeline 2048:32
            max_threads: 2048,            // PAVER T1 (L70)
            max_warps: 64,                // PAVER T1 (L70)
            max_blocks: 32,               // PAVER T1 (L70); -gpgpu_shader_cta 32
            registers: 65536,             // -gpgpu_shader_registers
            shared_mem_bytes: 96 * KB,    // PAVER T1 (L71); -gpgpu_shmem_size 98304
            shared_mem_banks: 32,         // -gpgpu_shmem_num_banks
            schedulers: 4,                // -gpgpu_num_sched_per_core
            ibuffer_entries: 2,           // GPGPU-Sim's i-buffer (shader.cc)
            fetch_width: 2,               // GPGPU-Sim fetches two instructions (shader.cc)
            warp_scheduler: "gto".into(), // PAVER L308 (the file: -gpgpu_scheduler lrr)
            two_level_max_active: 6,
        },
        l1i: cache(128 * KB, 128, 16, (2, 48, 4), 1), // -gpgpu_cache:il1 N:64:128:16,L:R:f:N:L,S:2:48,4
        // PAVER T1 32 kB; -gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32 (T: write
        // through, L: allocate on a write miss); -gpgpu_l1_latency 20
        l1d: CacheConfig {
            write_through: WriteThrough::Allocate,
            ..sector_mshrs(sectored(cache(32 * KB, 128, 64, (512, 8, 16), 20), 32))
        },
        // 4.5 MB (PAVER T1) = 48 slices of -gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32;
        // -gpgpu_l2_rop_latency 160
        l2: ipoly(sector_mshrs(sectored(
            cache(96 * KB, 128, 24, (192, 4, 32), 160),
            32,
        ))),
        interconnect: InterconnectConfig {
            latency: 8,         // [assumed] as gtx480: the papers give none
            flit_bytes: 40,     // -icnt_flit_size
            input_buffer: 512,  // -icnt_in_buffer_limit 512 (-network_mode 2)
            output_buffer: 512, // -icnt_out_buffer_limit 512
        },
        dram: DramConfig {
            channels: 24,         // -gpgpu_n_mem (HBM2, 3 stacks)
            sub_partitions: 2,    // -gpgpu_n_sub_partition_per_mchannel
            chips_per_channel: 1, // -gpgpu_n_mem_per_ctrlr
            chip_bus_bytes: 16,   // -gpgpu_dram_buswidth
            burst_length: 2,      // -gpgpu_dram_burst_length
            data_rate: 2,         // -dram_data_command_freq_ratio (HBM is DDR)
            clock_mhz: 850.0,     // -gpgpu_clock_domains
            banks: 16,            // -gpgpu_dram_timing_opt nbk
            row_bytes: 2048,      // the mapping's 6 column and 5 byte bits
            scheduler_queue: 64,  // -gpgpu_frfcfs_dram_sched_queue_size
            latency: 100,         // -dram_latency
            // -gpgpu_dram_timing_opt RRD, RCD, RAS, RP, RC, CL, WL, CCD, WR
            timing: timing([3, 12, 28, 12, 40, 12, 2, 1, 10]),
            peak_gbps: 652.8,                             // 24 x 16 B x 2 x 850 MHz
            address_mapping: Some(VOLTA_MAPPING.into()),  // -gpgpu_mem_addr_mapping
            partition_indexing: PartitionIndexing::Ipoly, // -gpgpu_memory_partition_indexing 2
            dual_bus: true,                               // -dram_dual_bus_interface 1
        },
        units: UnitConfig {
            sp_units: 4,            // -gpgpu_num_sp_units
            sfu_units: 4,           // -gpgpu_num_sfu_units
            int_alu: lat(2, 2),     // trace.config -trace_opcode_latency_initiation_int 2,2
            int_mul: lat(2, 2),     // the same
            fp: lat(2, 2),          // -trace_opcode_latency_initiation_sp 2,2
            dp: lat(8, 4),          // -trace_opcode_latency_initiation_dp 8,4
            sfu: lat(20, 8),        // -trace_opcode_latency_initiation_sfu 20,8
            shared_mem: lat(20, 1), // -gpgpu_smem_latency 20
        },
        pipeline: PipelineConfig {
            perfect_inst_cache: true,    // -gpgpu_perfect_inst_const_cache 1
            sector_coalescing: true,     // -gpgpu_coalesce_arch 60
            l1d_banks: 4,                // -gpgpu_l1_banks 4
            fetch_throughput: 4,         // -gpgpu_inst_fetch_throughput 4
            issue_per_warp: 1,           // -gpgpu_max_insn_issue_per_warp 1
            dual_issue_diff_units: true, // -gpgpu_dual_issue_diff_exec_units 1
            // -gpgpu_num_reg_banks 8, -gpgpu_reg_file_port_throughput 2,
            // -gpgpu_pipeline_widths 4,4,4,4,4,4,4,4,4,4,8,4,4 (SP, SFU, MEM; EX_WB)
            operand_collector: sub_core_collector(8),
            ..PipelineConfig::default() // GPGPU-Sim 4 (shader.cc)
        },
        launch: LaunchConfig::default(), // the file sets no launch latency
        l1d_carveout: L1dCarveout::default(), // PAVER T1's fixed split (see above)
        partition_queues: PartitionQueues {
            enabled: true, // -gpgpu_dram_partition_queues 64:64:64:64
            icnt_to_l2: 64,
            l2_to_icnt: 64,
        },
    }
}

/// Maxwell GTX 980 (GPU Maestro, seed 003 Table 5.2). GPGPU-Sim has no GM204 configuration:
/// values the table omits follow the Fermi preset, with DRAM timings scaled from the GTX 480's
/// GDDR5 (924 MHz) to 1750 MHz, each marked `[assumed]`.
pub fn gtx980() -> GpuConfig {
    GpuConfig {
        name: "gtx980".into(),
        sm: SmConfig {
            count: 16,              // Maestro T5.2 (L1246-L1252)
            core_clock_mhz: 1126.0, // T5.2
            warp_size: 32,
            max_threads: 2048,         // T5.2
            max_warps: 64,             // 2048 / 32
            max_blocks: 32,            // T5.2
            registers: 65536,          // T5.2 (64K)
            shared_mem_bytes: 96 * KB, // T5.2 (chimera_maestro.md: 96 kB, not Table 5.1's 64 kB)
            shared_mem_banks: 32,
            schedulers: 4, // T5.2 (L1249)
            ibuffer_entries: 2,
            fetch_width: 2, // [assumed] as gtx480
            warp_scheduler: "gto".into(),
            two_level_max_active: 6,
        },
        l1i: cache(2 * KB, 128, 4, (8, 32, 4), 1), // T5.2 2 kB; geometry and MSHRs [assumed] as gtx480
        l1d: cache(48 * KB, 128, 6, (32, 8, 8), 35), // T5.2 48 kB; 6-way as GPGPU-Sim's 48 kB Fermi L1 [assumed]
        l2: sectored(cache(256 * KB, 128, 16, (32, 4, 4), 120), 32), // T5.2 2 MB in 4 partitions x 2 slices; 16-way, 32 B sectors [assumed]
        interconnect: InterconnectConfig {
            latency: 8,
            flit_bytes: 40,
            input_buffer: InterconnectConfig::DEFAULT_INPUT_BUFFER,
            output_buffer: 0,
        },
        dram: DramConfig {
            channels: 4,          // T5.2: 4 memory partitions
            sub_partitions: 2,    // [assumed] as gtx480
            chips_per_channel: 2, // 256-bit bus = 4 x 2 x 32-bit chips
            chip_bus_bytes: 4,
            burst_length: 8,
            data_rate: 4,      // GDDR5
            clock_mhz: 1750.0, // 7 Gb/s GDDR5: 224 GB/s (T5.2)
            banks: 16,
            row_bytes: 4096,
            scheduler_queue: 64,
            latency: 100,
            timing: timing([12, 23, 53, 23, 76, 23, 8, 4, 23]), // [assumed] gtx480 x 1750/924, rounded up
            peak_gbps: 224.0,                                   // T5.2
            address_mapping: None,
            partition_indexing: PartitionIndexing::Consecutive,
            dual_bus: false,
        },
        units: UnitConfig {
            sp_units: 4,
            sfu_units: 4,
            int_alu: lat(4, 1),
            int_mul: lat(5, 1),
            fp: lat(4, 1),
            dp: lat(8, 8),
            sfu: lat(20, 4),
            shared_mem: lat(24, 1), // [assumed] as the Pascal preset (same SM generation lineage)
        },
        pipeline: PipelineConfig::default(), // GPGPU-Sim 4 (shader.cc)
        launch: LaunchConfig::default(),     // GPGPU-Sim option defaults: no launch latency
        l1d_carveout: L1dCarveout::default(),
        partition_queues: PartitionQueues::default(),
    }
}

/// The GTX 680 (Kepler GK104) of the cache-bypassing paper (seed 001 Table I, L68-L81; spec
/// `locality_bypass_paws.md` §2.2, B-R3), whose results are measured on the hardware: the
/// paper gives the SMs, threads, blocks, registers, caches and clock; the rest is
/// `[assumed]` as the Maxwell preset ([`gtx980`]), Kepler's successor. Compare trends only
/// (B12). The L1D is its default 16 kB of the 64 kB split (48 kB shared memory);
/// [`with_l1_split`] gives the other two.
pub fn gtx680() -> GpuConfig {
    let mut c = gtx980();
    c.name = "gtx680".into();
    c.sm.count = 8; // T-I: 8 SMs (L70)
    c.sm.core_clock_mhz = 1006.0; // T-I (L81)
    c.sm.max_threads = 2048; // T-I (L77)
    c.sm.max_warps = 64; // 2048 / 32
    c.sm.max_blocks = 16; // T-I (L78)
    c.sm.registers = 65536; // T-I: 64K 32-bit registers (L79)
    c.sm.shared_mem_bytes = 48 * KB; // T-I: 48 kB with the 16 kB L1 (L75-L76)
    c.l1d = cache(16 * KB, 128, 4, (32, 8, 8), 35); // T-I 16 kB, 128 B lines; 32 sets x 4 ways (B-R3); MSHRs and latency [assumed] as gtx480
    c.l2 = sectored(cache(64 * KB, 128, 8, (32, 4, 4), 120), 32); // T-I 512 kB = 4 partitions x 2 slices, 32 B blocks (sectors); 8-way (B-R3)
    c.dram.clock_mhz = 1502.0; // 6.008 Gb/s GDDR5 on a 256-bit bus: 192.3 GB/s (GTX 680 datasheet) [assumed]
    c.dram.timing = timing([10, 20, 46, 20, 66, 20, 7, 4, 20]); // [assumed] gtx480 x 1502/924, rounded up (tRC >= tRAS + tRP)
    c.dram.peak_gbps = 192.3;
    c
}

/// `c` with the unified 64 kB of L1D and shared memory split `l1_kb` / `64 - l1_kb` (seed 001
/// §V-B, L348-L390: 16, 32 or 48 kB of L1D; geometry 32 x 4, 64 x 4 or 64 x 6 of 128 B, B-R3),
/// named `<name>-l1-<l1_kb>k`; `None` for another size.
pub fn with_l1_split(mut c: GpuConfig, l1_kb: u32) -> Option<GpuConfig> {
    let ways = match l1_kb {
        16 | 32 => 4,
        48 => 6,
        _ => return None,
    };
    c.l1d.size_bytes = l1_kb * KB;
    c.l1d.ways = ways;
    c.sm.shared_mem_bytes = (64 - l1_kb) * KB;
    c.name = format!("{}-l1-{l1_kb}k", c.name);
    Some(c)
}
