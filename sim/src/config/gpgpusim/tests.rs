use super::{looks_like, parse};
use crate::config::{presets, ConfigError, GpuConfig};
use std::path::{Path, PathBuf};

/// The options and fields noted as not modelled, in order.
fn unmodelled(notes: &super::Notes) -> Vec<&str> {
    notes.unmodelled.iter().map(|u| u.option.as_str()).collect()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/gtx480.gpgpusim.config")
}

#[test]
fn the_sample_gtx480_file_gives_the_gtx480_preset() {
    let (cfg, notes) = GpuConfig::load_with_notes(sample().to_str().unwrap()).unwrap();
    let mut want = presets::gtx480();
    want.name = "gtx480.gpgpusim".into();
    // The preset keeps the model's own address mapping, which gives this file's channels,
    // slices and L2 sets (`mem::address` tests) but not its DRAM banks.
    want.dram.address_mapping = cfg.dram.address_mapping.clone();
    assert_eq!(
        cfg.dram.row_bytes, 2048,
        "the mapping's 6 column and 5 byte bits"
    );
    want.dram.row_bytes = cfg.dram.row_bytes;
    // The file's `S:` L2 keys its MSHRs by sector, as GPGPU-Sim's; the preset keeps the ELF
    // thesis's 32 MSHRs of whole lines (Table 3.1).
    want.l2.mshr_sectors = true;
    assert_eq!(cfg, want);
    assert_eq!(
        cfg.dram.address_mapping.as_deref(),
        Some("dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS")
    );
    assert_eq!(
        unmodelled(&notes),
        [
            "-gpgpu_cache:il1 allocation",
            "-gpgpu_cache:dl1 write policy",
            "-network_mode",
            "-gpgpu_dram_timing_opt CDLR"
        ]
    );
    assert_eq!(
        notes.inert,
        [
            "gpgpu_ptx_force_max_capability",
            "gpgpu_ptx_sim_mode",
            "visualizer_enabled"
        ]
    );
}

/// GPGPU-Sim 3.2.2's cache strings (no type, no set index field) read as the release
/// behaves: a linear L1D index, an L2 without sectors whose data port is 32 B and whose
/// write misses fetch (`W`); GPGPU-Sim 4's letters read as the `gtx480` preset.
#[test]
fn gpgpusim_3_2_2_cache_strings_read_as_the_release_behaves() {
    use crate::config::{SetIndexFn, WriteAllocate};
    let text = "-gpgpu_cache:dl1 32:128:4,L:L:m:N,A:32:8,8\n\
                -gpgpu_cache:dl2 64:128:8,L:B:m:W,A:32:4,4:0,32\n";
    let c = parse(text, Path::new("v3.config"), &presets::gtx480())
        .unwrap()
        .config;
    let v3 = presets::gtx480_gpgpusim_3_2_2();
    assert_eq!(c.l1d.set_index, SetIndexFn::Linear);
    assert_eq!(c.l2, v3.l2);
    assert_eq!(c.l2.write_allocate, WriteAllocate::Fetch);
    let text = "-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:L,S:64:8,8\n\
                -gpgpu_cache:dl2 S:64:128:8,L:B:m:L:L,A:256:4,4:0,32\n";
    let c = parse(text, Path::new("v4.config"), &presets::gtx480())
        .unwrap()
        .config;
    assert_eq!(c.l1d.set_index, SetIndexFn::Linear, "an explicit L");
    assert_eq!(
        (c.l2.port_bytes, c.l2.write_allocate, c.l2.sector_bytes),
        (0, WriteAllocate::Lazy, 32),
        "a sectored L2 takes a sector a cycle"
    );
}

#[test]
fn options_change_their_fields_and_later_lines_win() {
    let text = "# comment\n-gpgpu_n_clusters 8\n-gpgpu_n_cores_per_cluster 2 # inline\n\
                -gpgpu_scheduler two_level_active:4:0:1\n-gpgpu_shader_cta 16\n\
                -gpgpu_cache:dl1 N:64:128:6,L:E:m:N:H,A:128:8,8\n-gpgpu_shader_cta 12\n\
                -gpgpu_clock_domains 1000.0:1000.0:1000.0:1500.0\n-gpgpu_n_mem 8\n";
    let p = parse(text, Path::new("x.config"), &presets::gtx480()).unwrap();
    let c = &p.config;
    assert_eq!(c.name, "x");
    assert_eq!(c.sm.count, 16);
    assert_eq!(
        (c.sm.warp_scheduler.as_str(), c.sm.two_level_max_active),
        ("two_level", 4)
    );
    assert_eq!(c.sm.max_blocks, 12);
    assert_eq!(
        (c.l1d.size_bytes, c.l1d.ways, c.l1d.mshrs),
        (64 * 128 * 6, 6, 128)
    );
    assert_eq!((c.sm.core_clock_mhz, c.dram.clock_mhz), (1000.0, 1500.0));
    assert_eq!(
        c.dram.peak_gbps,
        (c.dram.computed_gbps() * 10.0).round() / 10.0
    );
    assert!(p.notes.is_empty(), "{:?}", p.notes);
}

#[test]
fn malformed_values_name_file_line_and_form() {
    let cases = [
        (
            "-gpgpu_shader_cta eight\n",
            1,
            "`-gpgpu_shader_cta <unsigned integer>`",
        ),
        (
            "\n\n-gpgpu_cache:dl1 32:128,L\n",
            3,
            "<sets>:<line bytes>:<ways>",
        ),
        (
            "-gpgpu_clock_domains 700:700\n",
            1,
            "<core MHz>:<interconnect MHz>:<L2 MHz>:<DRAM MHz>",
        ),
        ("-gpgpu_scheduler fifo\n", 1, "lrr|gto|two_level_active"),
        (
            "-gpgpu_dram_timing_opt \"nbk=16:CCD\"\n",
            1,
            "nbk=<n>:CCD=<n>",
        ),
        (
            "-gpgpu_shader_core_pipeline 1536\n",
            1,
            "<threads>:<warp size>",
        ),
        ("gpgpu_n_mem 6\n", 1, "an option line `-<name> <value>`"),
        (
            "-gpgpu_cache:dl1 none\n",
            1,
            "a disabled cache is not modelled",
        ),
    ];
    for (text, line, want) in cases {
        let e = parse(text, Path::new("bad.config"), &presets::gtx480()).unwrap_err();
        let ConfigError::Syntax { path, line: l, .. } = &e else {
            panic!("{text:?}: {e}")
        };
        assert_eq!((path.as_str(), *l), ("bad.config", line), "{text:?}");
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    // Well-formed but invalid values are field errors at the line that set the field.
    let e = parse(
        "# c\n-gpgpu_n_mem 0\n",
        Path::new("z.config"),
        &presets::gtx480(),
    )
    .unwrap_err();
    assert_eq!(e.field(), Some("dram.channels"));
    assert!(
        e.to_string().starts_with(
            "z.config:2: config field `dram.channels`: 0 is outside the supported range 1..=64"
        ),
        "{e}"
    );
    // Products that do not fit are errors, not wrapped values.
    let e = parse(
        "-gpgpu_n_clusters 2147483649\n-gpgpu_n_cores_per_cluster 2\n",
        Path::new("z.config"),
        &presets::gtx480(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("z.config:2: config field `sm.count`")
            && e.to_string().contains("does not fit"),
        "{e}"
    );
}

#[test]
fn option_files_are_recognized_by_their_content() {
    assert!(looks_like("# c\n\n-gpgpu_n_mem 6\n"));
    assert!(!looks_like("[sm]\ncount = 15\n"));
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_cases(100_000)))]

    /// Any corruption of the sample file (a token replaced or dropped, the text cut short, a
    /// random line added) parses or is rejected with a file:line or field error: never a panic.
    #[test]
    fn corrupted_gpgpusim_configs_never_panic(
        pos in 0usize..4000,
        cut in 0usize..6000,
        garbage in "[-_:,=.\"0-9a-zA-Z# ]{0,16}",
        extra in "-[a-z_:0-9]{1,24} [-0-9a-zA-Z:,=.\"]{0,24}",
        drop in any::<bool>(),
    ) {
        let text = std::fs::read_to_string(sample()).unwrap();
        let mut toks: Vec<String> = text.split(' ').map(str::to_string).collect();
        let i = pos % toks.len();
        if drop { toks.remove(i); } else { toks[i] = garbage; }
        let mut mutated = toks.join(" ");
        mutated.push('\n');
        mutated.push_str(&extra);
        if cut < mutated.len() && mutated.is_char_boundary(cut) && cut % 5 == 0 {
            mutated.truncate(cut);
        }
        match parse(&mutated, Path::new("fuzz.config"), &presets::gtx480()) {
            Ok(p) => prop_assert!(p.config.validate().is_ok()),
            Err(ConfigError::Syntax { path, line, .. }) => {
                prop_assert_eq!(path, "fuzz.config");
                prop_assert!(line >= 1 && line <= mutated.lines().count());
            }
            Err(ConfigError::Field { .. }) => {}
            Err(ConfigError::InFile { path, .. }) => prop_assert_eq!(path, "fuzz.config"),
            Err(ConfigError::UnknownOption { path, line, .. }) => {
                prop_assert_eq!(path, "fuzz.config");
                prop_assert!(line >= 1 && line <= mutated.lines().count());
            }
            Err(ConfigError::At { path, line, source }) => {
                prop_assert_eq!(path, "fuzz.config");
                prop_assert!(line >= 1 && line <= mutated.lines().count());
                let is_field = matches!(*source, ConfigError::Field { .. });
                prop_assert!(is_field);
            }
            Err(e) => prop_assert!(false, "unexpected error kind: {}", e),
        }
    }
}

/// GPGPU-Sim reads its files as tokens: a quoted value may run over several lines (as
/// SM2_GTX480's `-gpgpu_dram_timing_opt` does), options may share a line, and a later one
/// wins.
#[test]
fn options_are_read_as_gpgpu_sims_parser_reads_them() {
    let text = "-gpgpu_dram_timing_opt \"nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:\n\
                \t\t\t\tCL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2\"  # GDDR5\n\
                -gpgpu_shader_cta 16 -gpgpu_n_mem 8\n\
                -gpgpu_scheduler \"gto\"\n-gpgpu_perf_sim_memcpy\n-gpgpu_shader_cta 12\n";
    let p = parse(text, Path::new("x.config"), &presets::gtx480()).unwrap();
    let c = &p.config;
    assert_eq!((c.dram.banks, c.dram.timing.rc), (16, 40));
    assert_eq!(
        (c.dram.timing.cl, c.dram.timing.wl, c.dram.timing.wr),
        (12, 4, 12)
    );
    assert_eq!((c.sm.max_blocks, c.dram.channels), (12, 8));
    assert_eq!(c.sm.warp_scheduler, "gto");
    assert_eq!(
        unmodelled(&p.notes),
        [
            "-gpgpu_dram_timing_opt CDLR",
            "-gpgpu_dram_timing_opt nbkgrp",
            "-gpgpu_dram_timing_opt CCDL",
            "-gpgpu_dram_timing_opt RTPL",
            "-gpgpu_perf_sim_memcpy"
        ]
    );
    // An unterminated quote names the line where it opens.
    let e = parse(
        "-gpgpu_n_mem 6\n-gpgpu_dram_timing_opt \"nbk=16:\n-gpgpu_n_mem 8\n",
        Path::new("x.config"),
        &presets::gtx480(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("x.config:2:") && e.contains("closing `\"`"),
        "{e}"
    );
    // A value without its option.
    let e = parse(
        "-gpgpu_n_mem 6 7\n",
        Path::new("x.config"),
        &presets::gtx480(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("x.config:1:") && e.contains("`7`"), "{e}");
}

/// GPGPU-Sim's own SM2_GTX480 file (as the Accel-Sim reference set ran it), when present.
#[test]
fn gpgpu_sims_sm2_gtx480_file_is_read() {
    let p = crate::testing::shared_dir().join("reference/accelsim/config/gpgpusim.config");
    if !crate::testing::available("reference", p.is_file(), "no reference config") {
        return;
    }
    let (cfg, notes) = GpuConfig::load_with_notes(p.to_str().unwrap()).unwrap();
    assert_eq!((cfg.sm.count, cfg.sm.schedulers), (15, 2));
    assert_eq!((cfg.dram.timing.cl, cfg.dram.timing.rc), (12, 40));
    // dl2 S:64:128:8: 32 B sectors, 64 KB slices; dl1 ...,S:64:8,8: 64 MSHRs.
    assert_eq!((cfg.l2.sector_bytes, cfg.l2.size_bytes), (32, 64 * 1024));
    assert!(
        cfg.l2.mshr_sectors && !cfg.l1d.mshr_sectors,
        "S: keys the MSHRs by sector"
    );
    assert_eq!((cfg.l1d.sector_bytes, cfg.l1d.mshrs), (0, 64));
    // -gpgpu_dram_partition_queues 64:64:64:64: the interconnect-side queues are modelled,
    // the DRAM-side ones noted.
    let q = cfg.partition_queues;
    assert_eq!((q.enabled, q.icnt_to_l2, q.l2_to_icnt), (true, 64, 64));
    assert!(unmodelled(&notes).contains(&"-gpgpu_dram_partition_queues L2_dram"));
    assert!(!unmodelled(&notes).contains(&"-gpgpu_dram_partition_queues"));
    // It sizes the operand collector, which is then modelled.
    let oc = &cfg.pipeline.operand_collector;
    assert!(oc.enabled);
    assert_eq!((oc.units.array(), oc.register_banks), ([6, 8, 2], 16));
}

/// Accel-Sim's `trace.config` over a `gpgpusim.config` (a comma-separated list, each file over
/// the one before, as Accel-Sim's two `-config` files): its trace-mode latencies set the units,
/// what the model has no unit for is listed as ignored.
#[test]
fn a_trace_config_applies_over_a_gpgpusim_config() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.config");
    std::fs::write(
        &trace,
        "-trace_opcode_latency_initiation_int 4,2\n-trace_opcode_latency_initiation_sp 5,1\n\
         -trace_opcode_latency_initiation_dp 8,4\n-trace_opcode_latency_initiation_sfu 20,8\n\
         -trace_opcode_latency_initiation_tensor 64,64\n-specialized_unit_1 0,4,4,4,4,BRA\n",
    )
    .unwrap();
    let list = format!("{},{}", sample().display(), trace.display());
    let (cfg, notes) = GpuConfig::load_with_notes(&list).unwrap();
    let u = &cfg.units;
    assert_eq!((u.int_alu.latency, u.int_alu.initiation), (4, 2));
    assert_eq!((u.int_mul.latency, u.int_mul.initiation), (4, 2));
    assert_eq!((u.fp.latency, u.dp.latency, u.sfu.latency), (5, 8, 20));
    assert_eq!(
        (u.fp.initiation, u.dp.initiation, u.sfu.initiation),
        (1, 4, 8)
    );
    assert_eq!(cfg.name, "gtx480.gpgpusim+trace");
    assert_eq!(
        cfg.sm.count,
        presets::gtx480().sm.count,
        "the first file's values stay"
    );
    // No trace reaches a tensor unit; a disabled specialized unit (first field 0) is the
    // model's; the first file's network stays noted.
    assert!(unmodelled(&notes).contains(&"-network_mode"), "{notes:?}");
    assert!(notes
        .inert
        .contains(&"trace_opcode_latency_initiation_tensor".to_string()));
    assert!(
        !unmodelled(&notes).contains(&"-specialized_unit_1"),
        "{notes:?}"
    );
    std::fs::write(&trace, "-specialized_unit_1 1,4,4,4,4,BRA\n").unwrap();
    let (_, notes) = GpuConfig::load_with_notes(&list).unwrap();
    assert!(
        unmodelled(&notes).contains(&"-specialized_unit_1"),
        "{notes:?}"
    );
    // A malformed value names the second file and its line; a later file must be GPGPU-Sim's.
    std::fs::write(&trace, "\n-trace_opcode_latency_initiation_sp 4\n").unwrap();
    let e = GpuConfig::load_with_notes(&list).unwrap_err().to_string();
    assert!(
        e.contains("trace.config:2:") && e.contains("<latency>,<initiation interval>"),
        "{e}"
    );
    let toml = dir.path().join("x.toml");
    std::fs::write(&toml, presets::gtx480().to_toml()).unwrap();
    let e = GpuConfig::load_with_notes(&format!("gtx480,{}", toml.display()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be a GPGPU-Sim option file"), "{e}");
    // A later file cannot set one SM-count factor alone; an empty item is an error.
    std::fs::write(&trace, "-gpgpu_n_clusters 4\n").unwrap();
    let e = GpuConfig::load_with_notes(&list).unwrap_err().to_string();
    assert!(
        e.contains("trace.config:1:") && e.contains("together or not at all"),
        "{e}"
    );
    let e = GpuConfig::load_with_notes("gtx480,")
        .unwrap_err()
        .to_string();
    assert!(e.contains("an empty item"), "{e}");
}

#[test]
fn operand_collector_options_set_its_sizes() {
    let text = "-gpgpu_num_reg_banks 32\n-gpgpu_operand_collector_num_units_sp 4\n\
                -gpgpu_operand_collector_num_units_mem 3\n\
                -gpgpu_pipeline_widths 4,0,0,2,1,3,0,0,2,1,4\n";
    let p = parse(text, Path::new("x.config"), &presets::gtx480()).unwrap();
    let oc = p.config.pipeline.operand_collector;
    assert!(
        oc.enabled,
        "a file that sizes the collector turns the model on"
    );
    assert_eq!(oc.register_banks, 32);
    assert_eq!(oc.units.array(), [4, 8, 3]);
    assert_eq!(
        (oc.issue_widths.array(), oc.dispatch_widths.array()),
        ([4, 2, 1], [3, 2, 1])
    );
    assert_eq!(oc.writeback_width, 4);
    // A file with none of them keeps SM2_GTX480's sizes.
    let p = parse(
        "-gpgpu_shader_cta 8\n",
        Path::new("y.config"),
        &presets::gtx480(),
    )
    .unwrap();
    assert_eq!(p.config.pipeline.operand_collector, Default::default());
    // Too few widths, and a width out of range, name the file and line.
    let e = parse(
        "\n-gpgpu_pipeline_widths 2,0,0,1,1\n",
        Path::new("z.config"),
        &presets::gtx480(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("z.config:2:") && e.contains("<EX_WB>"), "{e}");
    let e = parse(
        "-gpgpu_num_reg_banks 65\n",
        Path::new("z.config"),
        &presets::gtx480(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("register_banks") && e.contains("1..=64"), "{e}");
}

/// The crossbar's input and output buffers come from the network GPGPU-Sim runs: the `.icnt`
/// file's `input_buffer_size` (9 when it sets none) and ejection plus boundary buffers beside
/// the configuration (`-network_mode 1`), or `-icnt_in_buffer_limit` and
/// `-icnt_out_buffer_limit` (`-network_mode 2`; 64 each by default); a missing `.icnt` file
/// keeps the base's with a note, a bad value is an error at its own file and line.
#[test]
fn the_network_sets_the_crossbar_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("gpgpusim.config");
    let icnt = dir.path().join("net.icnt");
    let read = |text: &str| parse(text, &cfg, &presets::gtx480());
    let buffers = |c: &GpuConfig| (c.interconnect.input_buffer, c.interconnect.output_buffer);
    let islip = "-network_mode 1\n-inter_config_file net.icnt\n";
    let pascal =
        "// x\ninput_buffer_size = 256;\nejection_buffer_size = 64;\nboundary_buffer_size = 64;\n";
    std::fs::write(&icnt, pascal).unwrap();
    assert_eq!(buffers(&read(islip).unwrap().config), (256, 128));
    std::fs::write(&icnt, "vc_buf_size = 64;\n").unwrap();
    assert_eq!(
        buffers(&read(islip).unwrap().config),
        (9, 64 + 16),
        "GTX480's file"
    );
    std::fs::write(&icnt, "k = 52;\n").unwrap();
    assert_eq!(
        buffers(&read(islip).unwrap().config),
        (9, 8 + 16),
        "BookSim's defaults"
    );
    std::fs::write(&icnt, "\ninput_buffer_size = many;\n").unwrap();
    match read(islip) {
        Err(ConfigError::Syntax { path, line, .. }) => {
            assert!(path.ends_with("net.icnt") && line == 2, "{path}:{line}")
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(&icnt, "input_buffer_size = 5000;\n").unwrap();
    let e = read(islip).unwrap_err().to_string();
    assert!(e.contains("net.icnt") && e.contains("1..=4096"), "{e}");
    assert!(e.contains("interconnect.input_buffer"), "{e}");
    std::fs::write(
        &icnt,
        "ejection_buffer_size = 4090;\nboundary_buffer_size = 64;\n",
    )
    .unwrap();
    let e = read(islip).unwrap_err().to_string();
    assert!(
        e.contains("interconnect.output_buffer") && e.contains("net.icnt:2"),
        "{e}"
    );
    std::fs::remove_file(&icnt).unwrap();
    let p = read(islip).unwrap();
    assert_eq!(buffers(&p.config), (8, 0), "the base's");
    let note = p
        .notes
        .unmodelled
        .iter()
        .find(|u| u.option == "-inter_config_file");
    assert!(note.is_some_and(|u| u.line == 2), "{:?}", p.notes);
    let local = "-network_mode 2\n-icnt_in_buffer_limit 512\n-icnt_out_buffer_limit 32\n";
    let local = read(local).unwrap();
    assert_eq!(buffers(&local.config), (512, 32));
    assert!(local
        .notes
        .unmodelled
        .iter()
        .all(|u| !u.option.contains("buffer")));
    assert_eq!(
        buffers(&read("-network_mode 2\n").unwrap().config),
        (64, 64)
    );
    let e = read("-icnt_in_buffer_limit 0\n-network_mode 2\n").unwrap_err();
    assert!(e.to_string().contains(":1"), "{e}");
    let no_mode = read("-icnt_in_buffer_limit 512\n").unwrap();
    assert_eq!(buffers(&no_mode.config), (8, 0), "no network named");
    assert_eq!(unmodelled(&no_mode.notes), ["-icnt_in_buffer_limit"]);
}
