//! Every option GPGPU-Sim and Accel-Sim register, so a name neither knows is an error (as
//! GPGPU-Sim's "Unknown Option") and a known one we do not read can be named in a note.
//!
//! The names are those `option_parser_register` registers in GPGPU-Sim (`accel-sim/gpgpu-sim_distribution`,
//! commit 667834c of 2024-10-07, the one `../shared/reference/accelsim` was measured with),
//! plus Accel-Sim's trace-driven options (`trace_config::reg_options`) and the options earlier
//! GPGPU-Sim releases (3.x, 4.0) had and later renamed or dropped (`retired`), so their config
//! files still read.

use Kind::*;
use Role::*;

/// How GPGPU-Sim parses an option's value (`OPT_*` in its `option_parser.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `OPT_BOOL`: `0` or `1`, or no value (set).
    Flag,
    /// `OPT_INT32`.
    Int,
    /// `OPT_UINT32`.
    UInt,
    /// `OPT_INT64`.
    Int64,
    /// `OPT_UINT64`.
    UInt64,
    /// `OPT_FLOAT` / `OPT_DOUBLE`.
    Float,
    /// `OPT_CSTR`: any text (structured options are parsed where they are read).
    Text,
    /// `OPT_CHAR`: one character.
    Char,
}

/// What an option is to this model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read into the configuration (`super::parse_layer`'s options).
    Read,
    /// Timing in GPGPU-Sim that this model does not read. `Some(v)`: the model behaves as
    /// GPGPU-Sim with value `v` (a file that sets `v` loses nothing; `v*` is any value that
    /// starts with `v`); `None`: no value does. The values were read off the model's code
    /// against GPGPU-Sim's (the operand-collector ones hold when the file sizes the collector,
    /// which turns the collector model on).
    Timing(Option<&'static str>),
    /// No effect on an Accel-Sim trace-driven timing run: power, statistics, PTX-mode and
    /// CUDA-runtime options, debugging, checkpoints, and units or caches no trace reaches
    /// (tensor cores, texture and constant caches, per-kernel cache carve-outs).
    Inert,
}

/// A known option.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// The name without its `-`.
    pub name: &'static str,
    /// How its value parses.
    pub kind: Kind,
    /// What it is to this model.
    pub role: Role,
    /// Only in earlier GPGPU-Sim releases (renamed or dropped since).
    pub retired: bool,
}

const fn k(name: &'static str, kind: Kind, role: Role, retired: bool) -> Known {
    Known {
        name,
        kind,
        role,
        retired,
    }
}

/// The known options, sorted by name.
pub const OPTIONS: &[Known] = &[
    k("Elimnate_rw_turnaround", Flag, Timing(None), true),
    k("Seperate_Write_Queue_Enable", Flag, Timing(Some("0")), true),
    k("Write_Queue_Size", Text, Inert, true),
    k("accelwattch_hybrid_perfsim_CC_ACC", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_CYCLES", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_DRAM_RD", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_DRAM_WR", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L1_RH", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L1_RM", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L1_WH", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L1_WM", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L2_RH", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L2_RM", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L2_WH", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_L2_WM", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_NOC", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_NUM_SM_IDLE", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_PIPE_DUTY", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_SHARED_ACC", Flag, Inert, false),
    k("accelwattch_hybrid_perfsim_VOLTAGE", Flag, Inert, false),
    k("accelwattch_xml_file", Text, Inert, false),
    k("adaptive_cache_config", UInt, Timing(Some("0")), true),
    k("adpative_volta_cache_config", Flag, Timing(Some("0")), true),
    k("aggregate_power_stats", Flag, Inert, false),
    k("arbiter_algo", UInt, Timing(Some("1")), true),
    k("cdp_latency", Text, Timing(None), false),
    k("checkpoint_CTA", Int, Inert, false),
    k("checkpoint_CTA_t", Int, Inert, false),
    k("checkpoint_insn_Y", Int, Inert, false),
    k("checkpoint_kernel", Int, Inert, false),
    k("checkpoint_option", Int, Inert, false),
    k("dram_bnk_indexing_policy", UInt, Timing(Some("0")), false),
    k("dram_bnkgrp_indexing_policy", UInt, Inert, false),
    k("dram_data_command_freq_ratio", UInt, Read, false),
    k("dram_dual_bus_interface", UInt, Read, false),
    k("dram_elimnate_rw_turnaround", Flag, Timing(None), false),
    k("dram_latency", UInt, Read, false),
    k(
        "dram_seperate_write_queue_enable",
        Flag,
        Timing(Some("0")),
        false,
    ),
    k("dram_write_queue_size", Text, Inert, false),
    k("dual_bus_interface", UInt, Timing(Some("0")), true),
    k("dvfs_enabled", Flag, Inert, false),
    k("enable_ptx_file_line_stats", Flag, Inert, false),
    k(
        "enable_specialized_operand_collector",
        Flag,
        Timing(Some("1")),
        true,
    ),
    k("gmem_skip_L1D", Flag, Read, true),
    k("gpgpu_L1_warp_parts_cached", Int, Timing(None), true),
    k("gpgpu_TB_launch_latency", Int, Read, false),
    k("gpgpu_adaptive_cache_config", Flag, Read, false),
    k("gpgpu_cache:dl1", Text, Read, false),
    k("gpgpu_cache:dl1PreShared", Text, Inert, true),
    k("gpgpu_cache:dl1PrefL1", Text, Inert, false),
    k("gpgpu_cache:dl1PrefShared", Text, Inert, false),
    k("gpgpu_cache:dl2", Text, Read, false),
    k(
        "gpgpu_cache:dl2_texture_only",
        Flag,
        Timing(Some("0")),
        false,
    ),
    k("gpgpu_cache:il1", Text, Read, false),
    k("gpgpu_cdp_enabled", Flag, Inert, false),
    k("gpgpu_cflog_interval", Int, Inert, false),
    k("gpgpu_clock_domains", Text, Read, false),
    k("gpgpu_clock_gated_lanes", Flag, Inert, false),
    k("gpgpu_clock_gated_reg_file", Flag, Inert, false),
    k("gpgpu_coalesce_arch", Int, Read, false),
    k("gpgpu_compute_capability_major", UInt, Inert, false),
    k("gpgpu_compute_capability_minor", UInt, Inert, false),
    k("gpgpu_concurrent_kernel_sm", Flag, Timing(None), false),
    k("gpgpu_const_cache:l1", Text, Inert, false),
    k("gpgpu_deadlock_detect", Flag, Inert, false),
    k("gpgpu_dram_burst_length", UInt, Read, false),
    k("gpgpu_dram_buswidth", UInt, Read, false),
    k("gpgpu_dram_partition_queues", Text, Read, false),
    k(
        "gpgpu_dram_return_queue_size",
        Int,
        Timing(Some("0")),
        false,
    ),
    k("gpgpu_dram_sched_queue_size", Int, Timing(None), true),
    k("gpgpu_dram_scheduler", Int, Timing(Some("1")), false),
    k("gpgpu_dram_timing_opt", Text, Read, false),
    k("gpgpu_dual_issue_diff_exec_units", Flag, Read, false),
    k(
        "gpgpu_enable_specialized_operand_collector",
        Flag,
        Read,
        false,
    ),
    k("gpgpu_experimental_lib_support", Flag, Inert, false),
    k("gpgpu_flush_cache", Flag, Timing(Some("0")), true),
    k("gpgpu_flush_l1_cache", Flag, Timing(Some("0")), false),
    k("gpgpu_flush_l2_cache", Flag, Timing(Some("0")), false),
    k("gpgpu_frfcfs_dram_sched_queue_size", Int, Read, false),
    k("gpgpu_gmem_skip_L1D", Flag, Read, false),
    k("gpgpu_heap_size_limit", Int, Inert, false),
    k(
        "gpgpu_ignore_resources_limitation",
        Flag,
        Timing(Some("0")),
        false,
    ),
    k("gpgpu_inst_fetch_throughput", UInt, Read, false),
    k("gpgpu_kernel_launch_latency", Int, Read, false),
    k("gpgpu_l1_banks", UInt, Read, false),
    k("gpgpu_l1_banks_byte_interleaving", UInt, Read, false),
    k("gpgpu_l1_banks_hashing_function", UInt, Inert, false),
    k("gpgpu_l1_cache_write_ratio", UInt, Timing(Some("0")), false),
    k("gpgpu_l1_latency", UInt, Read, false),
    k("gpgpu_l2_rop_latency", UInt, Read, false),
    k("gpgpu_local_mem_map", Flag, Timing(None), false),
    k("gpgpu_max_completed_cta", Int, Timing(Some("0")), false),
    k("gpgpu_max_concurrent_kernel", Int, Timing(None), false),
    k("gpgpu_max_cta", Int, Timing(Some("0")), false),
    k("gpgpu_max_cycle", Int64, Timing(Some("0")), false),
    k("gpgpu_max_insn", Int64, Timing(Some("0")), false),
    k("gpgpu_max_insn_issue_per_warp", UInt, Read, false),
    k("gpgpu_mem_addr_mapping", Text, Read, false),
    k("gpgpu_mem_addr_test", Flag, Inert, false),
    k("gpgpu_mem_address_mask", Int, Timing(None), false),
    k("gpgpu_mem_unit_ports", Int, Timing(Some("1")), false),
    k("gpgpu_memlatency_stat", Int, Inert, false),
    k("gpgpu_memory_partition_indexing", UInt, Read, false),
    k(
        "gpgpu_n_cluster_ejection_buffer_size",
        UInt,
        Timing(None),
        false,
    ),
    k("gpgpu_n_clusters", UInt, Read, false),
    k("gpgpu_n_cores_per_cluster", UInt, Read, false),
    k(
        "gpgpu_n_ldst_response_buffer_size",
        UInt,
        Timing(None),
        false,
    ),
    k("gpgpu_n_mem", UInt, Read, false),
    k("gpgpu_n_mem_per_ctrlr", UInt, Read, false),
    k("gpgpu_n_sub_partition_per_mchannel", UInt, Read, false),
    k("gpgpu_num_cta_barriers", UInt, Inert, false),
    k("gpgpu_num_dp_units", UInt, Timing(Some("0")), false),
    k("gpgpu_num_int_units", UInt, Timing(Some("0")), false),
    k("gpgpu_num_mem_units", UInt, Inert, false),
    k("gpgpu_num_reg_banks", Int, Read, false),
    k("gpgpu_num_sched_per_core", Int, Read, false),
    k("gpgpu_num_sfu_units", UInt, Read, false),
    k("gpgpu_num_sp_units", UInt, Read, false),
    k("gpgpu_num_tensor_core_units", UInt, Inert, false),
    k("gpgpu_occupancy_sm_number", Int, Inert, false),
    k("gpgpu_operand_collector_num_in_ports_dp", Int, Inert, false),
    k("gpgpu_operand_collector_num_in_ports_gen", Int, Read, false),
    k(
        "gpgpu_operand_collector_num_in_ports_int",
        Int,
        Inert,
        false,
    ),
    k(
        "gpgpu_operand_collector_num_in_ports_mem",
        Int,
        Timing(Some("1")),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_in_ports_sfu",
        Int,
        Timing(Some("1")),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_in_ports_sp",
        Int,
        Timing(None),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_in_ports_tensor_core",
        Int,
        Inert,
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_dp",
        Int,
        Inert,
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_gen",
        Int,
        Read,
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_int",
        Int,
        Inert,
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_mem",
        Int,
        Timing(Some("1")),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_sfu",
        Int,
        Timing(Some("1")),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_sp",
        Int,
        Timing(None),
        false,
    ),
    k(
        "gpgpu_operand_collector_num_out_ports_tensor_core",
        Int,
        Inert,
        false,
    ),
    k("gpgpu_operand_collector_num_units_dp", Int, Inert, false),
    k("gpgpu_operand_collector_num_units_gen", Int, Read, false),
    k("gpgpu_operand_collector_num_units_int", Int, Inert, false),
    k("gpgpu_operand_collector_num_units_mem", Int, Read, false),
    k("gpgpu_operand_collector_num_units_sfu", Int, Read, false),
    k("gpgpu_operand_collector_num_units_sp", Int, Read, false),
    k(
        "gpgpu_operand_collector_num_units_tensor_core",
        Int,
        Inert,
        false,
    ),
    k("gpgpu_perf_sim_memcpy", Flag, Timing(Some("0")), false),
    k("gpgpu_perfect_inst_const_cache", Flag, Read, false),
    k("gpgpu_perfect_mem", Flag, Timing(Some("0")), false),
    k("gpgpu_pipeline_widths", Text, Read, false),
    k("gpgpu_ptx_convert_to_ptxplus", Flag, Inert, false),
    k("gpgpu_ptx_force_max_capability", UInt, Inert, false),
    k("gpgpu_ptx_inst_debug_file", Text, Inert, false),
    k("gpgpu_ptx_inst_debug_thread_uid", Int, Inert, false),
    k("gpgpu_ptx_inst_debug_to_file", Flag, Inert, false),
    k("gpgpu_ptx_instruction_classification", Int, Inert, false),
    k("gpgpu_ptx_save_converted_ptxplus", Flag, Inert, false),
    k("gpgpu_ptx_sim_mode", Int, Inert, false),
    k("gpgpu_ptx_use_cuobjdump", Flag, Inert, false),
    k("gpgpu_reg_bank_use_warp_id", Flag, Inert, false),
    k("gpgpu_reg_file_port_throughput", UInt, Read, false),
    k("gpgpu_registers_per_block", UInt, Inert, false),
    k(
        "gpgpu_runtime_pending_launch_count_limit",
        Int,
        Inert,
        false,
    ),
    k("gpgpu_runtime_stat", Text, Inert, false),
    k("gpgpu_runtime_sync_depth_limit", Int, Inert, false),
    k("gpgpu_scheduler", Text, Read, false),
    k("gpgpu_shader_core_pipeline", Text, Read, false),
    k("gpgpu_shader_cta", UInt, Read, false),
    k("gpgpu_shader_registers", UInt, Read, false),
    k(
        "gpgpu_shmem_limited_broadcast",
        Flag,
        Timing(Some("0")),
        false,
    ),
    k("gpgpu_shmem_num_banks", UInt, Read, false),
    k("gpgpu_shmem_option", Text, Read, false),
    k("gpgpu_shmem_per_block", UInt, Inert, false),
    k("gpgpu_shmem_size", UInt, Read, false),
    k("gpgpu_shmem_sizeDefault", UInt, Inert, false),
    k("gpgpu_shmem_size_PrefL1", UInt, Inert, false),
    k("gpgpu_shmem_size_PrefShared", UInt, Inert, false),
    k("gpgpu_shmem_warp_parts", Int, Timing(Some("1")), false),
    k("gpgpu_simd_model", Int, Timing(Some("1")), false),
    k("gpgpu_simple_dram_model", Flag, Timing(Some("0")), false),
    k("gpgpu_simt_core_sim_order", Int, Inert, false),
    k("gpgpu_smem_latency", UInt, Read, false),
    k("gpgpu_stack_size_limit", Int, Inert, false),
    k("gpgpu_sub_core_model", Flag, Read, false),
    k("gpgpu_tensor_core_avail", UInt, Inert, false),
    k("gpgpu_tex_cache:l1", Text, Inert, false),
    k("gpgpu_unified_l1d_size", UInt, Read, false),
    k("gpgpu_warp_issue_shader", Int, Inert, false),
    k("gpgpu_warpdistro_shader", Int, Inert, false),
    k("gpuwattch_xml_file", Text, Inert, true),
    k("hw_perf_bench_name", Text, Inert, false),
    k("hw_perf_file_name", Text, Inert, false),
    k("icnt_arbiter_algo", UInt, Timing(Some("1")), false),
    k("icnt_flit_size", UInt, Read, false),
    k("icnt_grant_cycles", UInt, Timing(Some("1")), false),
    k("icnt_in_buffer_limit", UInt, Timing(None), false),
    k("icnt_out_buffer_limit", UInt, Timing(None), false),
    k("icnt_subnets", UInt, Timing(Some("2")), false),
    k("icnt_verbose", UInt, Inert, false),
    k("inct_grant_cycles", UInt, Timing(Some("1")), true),
    k("inct_in_buffer_limit", UInt, Timing(None), true),
    k("inct_out_buffer_limit", UInt, Timing(None), true),
    k("inct_subnets", UInt, Timing(Some("2")), true),
    k("inct_verbose", UInt, Inert, true),
    k("inter_config_file", Text, Timing(None), false),
    k("keep", Flag, Inert, false),
    k("l1_banks", UInt, Timing(Some("1")), true),
    k("l1_latency", UInt, Timing(None), true),
    k("l2_ideal", Flag, Inert, false),
    k("liveness_message_freq", Int64, Inert, false),
    k("mem_unit_ports", Int, Timing(Some("1")), true),
    k("memory_partition_indexing", UInt, Read, true),
    k("n_regfile_gating_group", UInt, Inert, false),
    k("network_mode", Int, Timing(None), false),
    k("perf_sim_memcpy", Flag, Timing(Some("0")), true),
    k("perfect_inst_const_cache", Flag, Read, true),
    k("power_per_cycle_dump", Flag, Inert, false),
    k("power_simulation_enabled", Flag, Inert, false),
    k("power_simulation_mode", Int, Inert, false),
    k("power_trace_enabled", Flag, Inert, false),
    k("power_trace_zlevel", Int, Inert, false),
    k("ptx_line_stats_filename", Text, Inert, false),
    k("ptx_opcode_initiation_dp", Text, Read, false),
    k("ptx_opcode_initiation_fp", Text, Read, false),
    k("ptx_opcode_initiation_int", Text, Read, false),
    k("ptx_opcode_initiation_sfu", Text, Read, false),
    k("ptx_opcode_initiation_tensor", Text, Inert, false),
    k("ptx_opcode_latency_dp", Text, Read, false),
    k("ptx_opcode_latency_fp", Text, Read, false),
    k("ptx_opcode_latency_int", Text, Read, false),
    k("ptx_opcode_latency_sfu", Text, Read, false),
    k("ptx_opcode_latency_tesnor", Text, Inert, false),
    k("resume_CTA", Int, Inert, false),
    k("resume_kernel", Int, Inert, false),
    k("resume_option", Int, Inert, false),
    k("rop_latency", UInt, Timing(None), true),
    k("save_embedded_ptx", Flag, Inert, false),
    k("simple_dram_model", Flag, Timing(Some("0")), true),
    k("smem_latency", UInt, Timing(None), true),
    k("specialized_unit_1", Text, Timing(Some("0,*")), false),
    k("specialized_unit_2", Text, Timing(Some("0,*")), false),
    k("specialized_unit_3", Text, Timing(Some("0,*")), false),
    k("specialized_unit_4", Text, Timing(Some("0,*")), false),
    k("specialized_unit_5", Text, Timing(Some("0,*")), false),
    k("specialized_unit_6", Text, Timing(Some("0,*")), false),
    k("specialized_unit_7", Text, Timing(Some("0,*")), false),
    k("specialized_unit_8", Text, Timing(Some("0,*")), false),
    k("steady_power_levels_enabled", Flag, Inert, false),
    k("steady_state_definition", Text, Inert, false),
    k("sub_core_model", Flag, Timing(Some("0")), true),
    k("trace", Text, Inert, false),
    k("trace_components", Text, Inert, false),
    k("trace_driven_mode", Flag, Inert, true),
    k("trace_enabled", Flag, Inert, false),
    k("trace_opcode_latency_initiation_dp", Text, Read, false),
    k("trace_opcode_latency_initiation_int", Text, Read, false),
    k("trace_opcode_latency_initiation_sfu", Text, Read, false),
    k("trace_opcode_latency_initiation_sp", Text, Read, false),
    k(
        "trace_opcode_latency_initiation_spec_op_1",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_2",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_3",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_4",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_5",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_6",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_7",
        Text,
        Inert,
        false,
    ),
    k(
        "trace_opcode_latency_initiation_spec_op_8",
        Text,
        Inert,
        false,
    ),
    k("trace_opcode_latency_initiation_tensor", Text, Inert, false),
    k("trace_sampling_core", Int, Inert, false),
    k("trace_sampling_memory_partition", Int, Inert, false),
    k("visualizer_enabled", Flag, Inert, false),
    k("visualizer_outputfile", Text, Inert, false),
    k("visualizer_zlevel", Int, Inert, false),
];

/// The known option `name` (without `-`).
pub fn find(name: &str) -> Option<&'static Known> {
    OPTIONS
        .binary_search_by(|o| o.name.cmp(name))
        .ok()
        .map(|i| &OPTIONS[i])
}

/// The known option nearest to `name` by edit distance, when it is close enough to be a
/// likely misspelling (at most a third of the name's length, and at least 1).
pub fn nearest(name: &str) -> Option<&'static str> {
    let limit = (name.chars().count() / 3).max(1);
    OPTIONS
        .iter()
        .filter_map(|o| edit_distance_within(name, o.name, limit).map(|d| (d, o.name)))
        .min()
        .map(|(_, n)| n)
}

/// Levenshtein distance between `a` and `b` in characters, if it is at most `limit` (the
/// search stops once every entry of a row exceeds it).
fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let (na, nb) = (a.chars().count(), b.chars().count());
    if na.abs_diff(nb) > limit {
        return None;
    }
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=nb).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        let mut least = row[0];
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
            least = least.min(next);
        }
        if least > limit {
            return None;
        }
    }
    Some(row[nb]).filter(|&d| d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_and_unique() {
        assert!(OPTIONS.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn a_misspelling_finds_its_option_and_a_stranger_finds_none() {
        assert_eq!(nearest("gpgpu_n_clustres"), Some("gpgpu_n_clusters"));
        assert_eq!(nearest("gpgpu_n_cluster"), Some("gpgpu_n_clusters"));
        assert_eq!(nearest("completely_unrelated_name"), None);
        assert_eq!(edit_distance_within("kitten", "sitting", 3), Some(3));
        assert_eq!(edit_distance_within("kitten", "sitting", 2), None);
    }
}
