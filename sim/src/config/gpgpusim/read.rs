//! The options this model reads into its configuration (the table in [`super`]'s docs).

use super::notes::Notes;
use super::structured::{self, Which};
use super::Ctx;
use crate::config::{ConfigError, GpuConfig, Latency, OperandCollectorConfig};

/// Applies option `c` (one [`super::known::Role::Read`] has, other than the SM-count
/// factors [`super::parse_layer`] keeps) to `cfg`.
pub(super) fn apply(
    c: &Ctx<'_>,
    cfg: &mut GpuConfig,
    notes: &mut Notes,
) -> Result<(), ConfigError> {
    let option = c.option;
    let u = &mut cfg.units;
    match option {
        "gpgpu_shader_core_pipeline" => {
            let v = c.list(':', 2, "<threads>:<warp size>")?;
            cfg.sm.max_threads = v[0];
            cfg.sm.warp_size = v[1];
            cfg.sm.max_warps = v[0] / v[1].max(1);
        }
        "gpgpu_shader_cta" => cfg.sm.max_blocks = c.u32()?,
        "gpgpu_kernel_launch_latency" => cfg.launch.kernel_latency = c.u32()?,
        "gpgpu_TB_launch_latency" => cfg.launch.block_latency = c.u32()?,
        "gpgpu_shader_registers" => cfg.sm.registers = c.u32()?,
        "gpgpu_shmem_size" => cfg.sm.shared_mem_bytes = c.u32()?,
        "gpgpu_shmem_num_banks" => cfg.sm.shared_mem_banks = c.u32()?,
        "gpgpu_smem_latency" => u.shared_mem.latency = c.u32()?,
        "gpgpu_num_sched_per_core" => cfg.sm.schedulers = c.u32()?,
        "gpgpu_scheduler" => structured::scheduler(c, cfg)?,
        "gpgpu_cache:il1" => structured::cache(c, Which::Il1, &mut cfg.l1i, notes)?,
        "gpgpu_cache:dl1" => structured::cache(c, Which::Dl1, &mut cfg.l1d, notes)?,
        "gpgpu_cache:dl2" => structured::cache(c, Which::Dl2, &mut cfg.l2, notes)?,
        "gpgpu_l1_latency" => cfg.l1d.latency = c.u32()?,
        "gpgpu_l2_rop_latency" => cfg.l2.latency = c.u32()?,
        "gpgpu_dram_partition_queues" => structured::partition_queues(c, cfg, notes)?,
        "gpgpu_n_mem" => cfg.dram.channels = c.u32()?,
        "gpgpu_n_sub_partition_per_mchannel" => cfg.dram.sub_partitions = c.u32()?,
        "gpgpu_n_mem_per_ctrlr" => cfg.dram.chips_per_channel = c.u32()?,
        "gpgpu_dram_buswidth" => cfg.dram.chip_bus_bytes = c.u32()?,
        "gpgpu_dram_burst_length" => cfg.dram.burst_length = c.u32()?,
        "dram_data_command_freq_ratio" => cfg.dram.data_rate = c.u32()?,
        "gpgpu_frfcfs_dram_sched_queue_size" => cfg.dram.scheduler_queue = c.u32()?,
        "dram_latency" => cfg.dram.latency = c.u32()?,
        "dram_dual_bus_interface" => cfg.dram.dual_bus = c.u32()? != 0,
        "gpgpu_dram_timing_opt" => structured::dram_timing(c, cfg, notes)?,
        "gpgpu_clock_domains" => structured::clock_domains(c, cfg, notes)?,
        "gpgpu_num_reg_banks" => collector(cfg).register_banks = c.u32()?,
        "gpgpu_reg_file_port_throughput" => collector(cfg).port_throughput = c.u32()?,
        "gpgpu_enable_specialized_operand_collector" => collector(cfg).specialized = c.u32()? != 0,
        "gpgpu_operand_collector_num_units_gen" => collector(cfg).generic_units = c.u32()?,
        "gpgpu_operand_collector_num_in_ports_gen" => collector(cfg).generic_ports = c.u32()?,
        "gpgpu_operand_collector_num_out_ports_gen" => {
            collector(cfg).generic_dispatchers = c.u32()?
        }
        "gpgpu_sub_core_model" => collector(cfg).sub_cores = c.u32()? != 0,
        "gpgpu_operand_collector_num_units_sp" => collector(cfg).units.sp = c.u32()?,
        "gpgpu_operand_collector_num_units_sfu" => collector(cfg).units.sfu = c.u32()?,
        "gpgpu_operand_collector_num_units_mem" => collector(cfg).units.mem = c.u32()?,
        "gpgpu_pipeline_widths" => {
            const FORM: &str = "<ID_OC_SP>,<ID_OC_DP>,<ID_OC_INT>,<ID_OC_SFU>,<ID_OC_MEM>,\
                <OC_EX_SP>,<OC_EX_DP>,<OC_EX_INT>,<OC_EX_SFU>,<OC_EX_MEM>,<EX_WB>";
            let v = c.list(',', 11, FORM)?;
            let oc = collector(cfg);
            let per_path = |sp, sfu, mem| crate::config::PerPath { sp, sfu, mem };
            oc.issue_widths = per_path(v[0], v[3], v[4]);
            oc.dispatch_widths = per_path(v[5], v[8], v[9]);
            oc.writeback_width = v[10];
        }
        "gpgpu_gmem_skip_L1D" | "gmem_skip_L1D" => cfg.pipeline.gmem_skip_l1d = c.u32()? != 0,
        "gpgpu_mem_addr_mapping" => {
            let m = c.value.trim().trim_matches('"');
            crate::mem::address::Decoder::parse(m)
                .map_err(|why| c.err_because("dramid@<bit>;<64 of D B R C S 0>", &why))?;
            cfg.dram.address_mapping = Some(m.to_string());
            // A row holds the addresses that differ in column and byte bits only.
            let bits = m.rsplit(';').next().unwrap_or(m);
            cfg.dram.row_bytes = 1 << bits.chars().filter(|&b| b == 'C' || b == 'S').count();
        }
        "gpgpu_memory_partition_indexing" | "memory_partition_indexing" => {
            use crate::config::PartitionIndexing as P;
            cfg.dram.partition_indexing = match c.u32()? {
                0 | 5 => P::Consecutive, // 5: GPGPU-Sim's custom slot, which does nothing
                1 => P::Xor,
                2 => P::Ipoly,
                4 => P::Random,
                _ => {
                    return Err(c.err_because(
                        "0|1|2|4|5",
                        "0 consecutive, 1 XOR, 2 IPOLY, 4 random, 5 custom (none); GPGPU-Sim \
                         stops on 3 (PAE) and on any other value",
                    ))
                }
            };
        }
        "gpgpu_l1_banks" => cfg.pipeline.l1d_banks = c.u32()?,
        "gpgpu_inst_fetch_throughput" => cfg.pipeline.fetch_throughput = c.u32()?,
        "gpgpu_max_insn_issue_per_warp" => cfg.pipeline.issue_per_warp = c.u32()?,
        "gpgpu_dual_issue_diff_exec_units" => cfg.pipeline.dual_issue_diff_units = c.u32()? != 0,
        "gpgpu_l1_banks_byte_interleaving" => cfg.pipeline.l1d_bank_bytes = c.u32()?,
        "gpgpu_coalesce_arch" => cfg.pipeline.sector_coalescing = c.u32()? >= 40,
        "gpgpu_adaptive_cache_config" => cfg.l1d_carveout.enabled = c.u32()? != 0,
        "gpgpu_unified_l1d_size" => cfg.l1d_carveout.unified_kb = c.u32()?,
        "gpgpu_shmem_option" => {
            let v = c.value.trim().trim_matches('"');
            cfg.l1d_carveout.shared_options_kb = v
                .split(',')
                .map(|x| x.trim().parse::<u32>())
                .collect::<Result<_, _>>()
                .map_err(|_| c.err("<KB>,<KB>,..."))?;
        }
        "gpgpu_perfect_inst_const_cache" | "perfect_inst_const_cache" => {
            cfg.pipeline.perfect_inst_cache = c.u32()? != 0
        }
        "gpgpu_num_sp_units" => cfg.units.sp_units = c.u32()?,
        "gpgpu_num_sfu_units" => cfg.units.sfu_units = c.u32()?,
        "icnt_flit_size" => cfg.interconnect.flit_bytes = c.u32()?,
        "ptx_opcode_latency_int" | "ptx_opcode_initiation_int" => {
            let v = c.list(',', 4, "<add>,<max>,<mul>,<mad>[,<div>]")?;
            let lat = option.contains("latency");
            set(&mut u.int_alu, lat, v[0]);
            set(&mut u.int_mul, lat, v[3]);
        }
        "ptx_opcode_latency_fp" | "ptx_opcode_initiation_fp" => {
            let v = c.list(',', 4, "<add>,<max>,<mul>,<mad>[,<div>]")?;
            set(&mut u.fp, option.contains("latency"), v[3]);
        }
        "ptx_opcode_latency_dp" | "ptx_opcode_initiation_dp" => {
            let v = c.list(',', 1, "<add>,<max>,<mul>,<mad>[,<div>]")?;
            set(&mut u.dp, option.contains("latency"), v[0]);
        }
        "trace_opcode_latency_initiation_int"
        | "trace_opcode_latency_initiation_sp"
        | "trace_opcode_latency_initiation_dp"
        | "trace_opcode_latency_initiation_sfu" => {
            // Accel-Sim's trace mode: one latency and initiation interval per unit class.
            let v = c.list(',', 2, "<latency>,<initiation interval>")?;
            let units: &mut [&mut Latency] = match &option[32..] {
                "int" => &mut [&mut u.int_alu, &mut u.int_mul],
                "sp" => &mut [&mut u.fp],
                "dp" => &mut [&mut u.dp],
                _ => &mut [&mut u.sfu],
            };
            for l in units.iter_mut() {
                set(l, true, v[0]);
                set(l, false, v[1]);
            }
        }
        "ptx_opcode_latency_sfu" | "ptx_opcode_initiation_sfu" => {
            let v = c.u32()?;
            set(&mut u.sfu, option.contains("latency"), v);
        }
        other => unreachable!("`-{other}` is listed as read but not read"),
    }
    Ok(())
}

/// The operand collector of `cfg`, turned on: a file that sizes GPGPU-Sim's operand
/// collector describes a pipeline that has one, so the collector model runs it.
fn collector(cfg: &mut GpuConfig) -> &mut OperandCollectorConfig {
    let oc = &mut cfg.pipeline.operand_collector;
    oc.enabled = true;
    oc
}

fn set(l: &mut Latency, latency: bool, v: u32) {
    if latency {
        l.latency = v;
    } else {
        l.initiation = v;
    }
}
