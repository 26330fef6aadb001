//! Presets, round trips, and validation errors that name the field.

use super::*;

#[test]
fn every_preset_is_valid_and_matches_its_paper_totals() {
    for name in presets::NAMES {
        let c = GpuConfig::preset(name).unwrap();
        c.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.name, *name);
        let slices = c.dram.channels * c.dram.sub_partitions;
        let l2_total = c.l2.size_bytes as u64 * slices as u64;
        let expected_l2 = match *name {
            "gtx480" | "gtx480-3.2.2" => 768 * 1024, // ELF Table 3.1, PAVER Table 1
            "titanx" => 3 * 1024 * 1024,             // PAVER Table 1
            "titanv" => 4608 * 1024,                 // PAVER Table 1 (4.5 MB)
            "gtx980" | "gtx980-3.2.2" => 2 * 1024 * 1024, // Maestro Table 5.2
            "gtx680" => 512 * 1024,                  // bypass paper Table I
            _ => unreachable!(),
        };
        assert_eq!(l2_total, expected_l2, "{name}: total L2");
        let bw = c.dram.computed_gbps();
        assert!(
            (bw - c.dram.peak_gbps).abs() / c.dram.peak_gbps < 0.001,
            "{name}: {bw} GB/s"
        );
    }
}

#[test]
fn gtx480_has_the_elf_table_values() {
    let c = GpuConfig::preset("gtx480").unwrap();
    assert_eq!(
        (
            c.sm.count,
            c.sm.max_threads,
            c.sm.max_warps,
            c.sm.max_blocks
        ),
        (15, 1536, 48, 8)
    );
    assert_eq!(
        (c.sm.registers, c.sm.shared_mem_bytes, c.sm.schedulers),
        (32768, 49152, 2)
    );
    assert_eq!(
        (
            c.l1d.size_bytes,
            c.l1d.ways,
            c.l1d.line_bytes,
            c.l1d.mshrs,
            c.l1d.sets()
        ),
        (16384, 4, 128, 32, 32)
    );
    assert_eq!((c.l1i.size_bytes, c.l1i.ways, c.l1i.mshrs), (2048, 4, 8));
    assert_eq!((c.l2.ways, c.l2.mshrs, c.dram.channels), (16, 32, 6));
    let t = &c.dram.timing;
    assert_eq!(
        (t.rrd, t.rcd, t.ras, t.rp, t.rc, t.cl),
        (6, 12, 28, 12, 40, 12)
    );
    assert_eq!(c.dram.peak_gbps, 177.4);
}

#[test]
fn configs_round_trip_through_toml_and_json() {
    let dir = tempfile::tempdir().unwrap();
    for name in presets::NAMES {
        let c = GpuConfig::preset(name).unwrap();
        let t = dir.path().join(format!("{name}.toml"));
        std::fs::write(&t, c.to_toml()).unwrap();
        assert_eq!(GpuConfig::load(t.to_str().unwrap()).unwrap(), c);
        let j = dir.path().join(format!("{name}.json"));
        std::fs::write(&j, serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(GpuConfig::load(j.to_str().unwrap()).unwrap(), c);
    }
}

fn field_of(e: ConfigError) -> String {
    match e {
        ConfigError::Field { field, .. } => field,
        other => panic!("not a field error: {other}"),
    }
}

#[test]
fn bad_values_name_the_field() {
    let base = GpuConfig::preset("gtx480").unwrap();
    type Edit = Box<dyn Fn(&mut GpuConfig)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("sm.count", Box::new(|c| c.sm.count = 0)),
        (
            "sm.core_clock_mhz",
            Box::new(|c| c.sm.core_clock_mhz = f64::NAN),
        ),
        ("sm.max_warps", Box::new(|c| c.sm.max_warps = 96)),
        ("sm.max_threads", Box::new(|c| c.sm.max_threads = 4096)),
        ("sm.schedulers", Box::new(|c| c.sm.schedulers = 5)),
        (
            "sm.warp_scheduler",
            Box::new(|c| c.sm.warp_scheduler = "fifo".into()),
        ),
        (
            "sm.two_level_max_active",
            Box::new(|c| {
                c.sm.warp_scheduler = "two_level".into();
                c.sm.two_level_max_active = 20;
            }),
        ),
        ("l1d.line_bytes", Box::new(|c| c.l1d.line_bytes = 96)),
        ("l1d.size_bytes", Box::new(|c| c.l1d.size_bytes = 24 * 1024)), // 48 sets
        ("l1d.size_bytes", Box::new(|c| c.l1d.size_bytes = 1000)),
        ("l2.ways", Box::new(|c| c.l2.ways = 0)),
        ("l1i.mshrs", Box::new(|c| c.l1i.mshrs = 0)),
        ("dram.channels", Box::new(|c| c.dram.channels = 0)),
        ("dram.timing.rc", Box::new(|c| c.dram.timing.rc = 100_001)),
        ("dram.peak_gbps", Box::new(|c| c.dram.peak_gbps = 300.0)),
        ("dram.row_bytes", Box::new(|c| c.dram.row_bytes = 3000)),
    ];
    for (want, edit) in cases {
        let mut c = base.clone();
        edit(&mut c);
        let e = c.validate().expect_err(want);
        assert!(
            e.to_string().starts_with(&format!("config field `{want}`")),
            "{e}"
        );
        assert_eq!(field_of(e), want);
    }
}

#[test]
fn files_with_unknown_fields_or_bad_syntax_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("c.toml");
    let text = GpuConfig::preset("gtx480")
        .unwrap()
        .to_toml()
        .replace("count = 15", "count = 15\ncuont = 3");
    std::fs::write(&t, text).unwrap();
    let e = GpuConfig::load(t.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.toml") && e.contains("cuont"), "{e}");
    std::fs::write(&t, "name = ").unwrap();
    assert!(GpuConfig::load(t.to_str().unwrap())
        .unwrap_err()
        .to_string()
        .contains("c.toml"));
    let e = GpuConfig::load("kepler").unwrap_err().to_string();
    assert!(
        e.contains("gtx480, gtx480-3.2.2, titanx, titanv, gtx980, gtx980-3.2.2"),
        "{e}"
    );
    let y = dir.path().join("c.yaml");
    std::fs::write(&y, "").unwrap();
    assert!(GpuConfig::load(y.to_str().unwrap())
        .unwrap_err()
        .to_string()
        .contains(".toml or .json"));
}

#[test]
fn every_integer_field_has_a_range_that_validation_enforces() {
    let base = GpuConfig::preset("gtx480").unwrap();
    let fields = base.integer_fields();
    assert!(fields.len() > 60, "{} fields", fields.len());
    for (name, _) in &fields {
        let (lo, hi) = range_of(name).unwrap_or_else(|| panic!("{name} has no range"));
        let mut bad = vec![hi + 1];
        if lo > 0 {
            bad.push(lo - 1);
        }
        for v in bad.into_iter().filter(|&v| v <= u32::MAX as u64) {
            let mut j = serde_json::to_value(&base).unwrap();
            let mut at = &mut j;
            for part in name.split('.') {
                at = &mut at[part];
            }
            *at = serde_json::json!(v);
            let c: GpuConfig = serde_json::from_value(j).unwrap();
            let e = c.validate().unwrap_err();
            assert_eq!(e.field(), Some(name.as_str()), "{name} = {v}: {e}");
            assert!(e.to_string().contains("outside the supported range"), "{e}");
        }
    }
}

#[test]
fn clocks_that_round_to_nothing_or_overflow_are_refused() {
    for (field, v) in [
        ("core_clock_mhz", 0.0001),
        ("core_clock_mhz", 1e18),
        ("core_clock_mhz", f64::NAN),
    ] {
        let mut c = GpuConfig::preset("gtx480").unwrap();
        c.sm.core_clock_mhz = v;
        let e = c.validate().unwrap_err();
        assert_eq!(e.field(), Some(format!("sm.{field}").as_str()), "{v}: {e}");
    }
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.dram.clock_mhz = 1e18;
    assert_eq!(c.validate().unwrap_err().field(), Some("dram.clock_mhz"));
}

#[test]
fn a_file_with_a_bad_value_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.dram.timing.rc = 1_000_000;
    let toml_text = c.to_toml();
    let t = dir.path().join("bad.toml");
    std::fs::write(&t, &toml_text).unwrap();
    let e = GpuConfig::load(t.to_str().unwrap()).unwrap_err();
    let line = toml_text
        .lines()
        .position(|l| l.trim_start().starts_with("rc ="))
        .unwrap()
        + 1;
    assert_eq!(
        e.to_string(),
        format!(
            "{}:{line}: config field `dram.timing.rc`: 1000000 is outside the supported range 0..=100000",
            t.display()
        )
    );
    let j = dir.path().join("bad.json");
    let json_text = serde_json::to_string_pretty(&c).unwrap();
    std::fs::write(&j, &json_text).unwrap();
    let e = GpuConfig::load(j.to_str().unwrap()).unwrap_err();
    let line = json_text
        .lines()
        .position(|l| l.trim_start().starts_with("\"rc\""))
        .unwrap()
        + 1;
    assert!(
        e.to_string().starts_with(&format!(
            "{}:{line}: config field `dram.timing.rc`",
            j.display()
        )),
        "{e}"
    );
}

#[test]
fn caches_too_large_for_the_model_are_refused() {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.l1d.size_bytes = 1 << 26;
    c.l1d.line_bytes = 4;
    c.l1d.ways = 4;
    let e = c.validate().unwrap_err();
    assert_eq!(e.field(), Some("l1d.size_bytes"), "{e}");
    assert!(e.to_string().contains("at most 16384 per L1"), "{e}");
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.dram.channels = 64;
    c.dram.sub_partitions = 16;
    c.l2.size_bytes = 1 << 26;
    let e = c.validate().unwrap_err();
    assert_eq!(e.field(), Some("l2.size_bytes"), "{e}");
    for name in presets::NAMES {
        GpuConfig::preset(name).unwrap().validate().unwrap();
    }
}

/// GPGPU-Sim takes a request off the interconnect only while its `icnt_L2` queue has room
/// for four: a smaller queue (but 0, unbounded) would never take one, so it is refused.
#[test]
fn an_l2_input_queue_that_never_takes_a_request_is_refused() {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.partition_queues.enabled = true;
    for (n, ok) in [(0, true), (3, false), (4, true), (64, true)] {
        c.partition_queues.icnt_to_l2 = n;
        let r = c.validate();
        assert_eq!(r.is_ok(), ok, "icnt_to_l2 = {n}: {r:?}");
        if let Err(e) = r {
            assert_eq!(e.field(), Some("partition_queues.icnt_to_l2"), "{e}");
            assert!(e.to_string().contains("four fit"), "{e}");
        }
    }
}

/// The GPGPU-Sim 3.2.2 preset is `gtx480` except where the 3.2.2 release differs (each
/// difference names its file and line in `presets.rs`): put those back and nothing differs.
#[test]
fn gtx480_3_2_2_differs_from_gtx480_only_where_the_release_does() {
    let v4 = GpuConfig::preset("gtx480").unwrap();
    let v3 = GpuConfig::preset("gtx480-3.2.2").unwrap();
    let diff: Vec<(String, u64, u64)> = v4
        .integer_fields()
        .into_iter()
        .zip(v3.integer_fields())
        .filter(|((_, a), (_, b))| a != b)
        .map(|((n, a), (_, b))| (n, a, b))
        .collect();
    let want = [
        ("dram.scheduler_queue", 64, 32),
        ("interconnect.flit_bytes", 40, 32),
        ("l1d.latency", 35, 0),
        ("l2.ways", 16, 8),
        ("l2.sector_bytes", 32, 0),
        ("l2.port_bytes", 0, 32),
        ("units.shared_mem.latency", 26, 3),
    ];
    let mut got: Vec<_> = diff.iter().map(|(n, a, b)| (n.as_str(), *a, *b)).collect();
    got.sort();
    let mut want = want.to_vec();
    want.sort();
    assert_eq!(got, want);
    let mut back = v3.clone();
    assert_eq!(back.l1d.set_index, SetIndexFn::Linear);
    assert_eq!(back.l2.write_allocate, WriteAllocate::Fetch);
    assert!(!back.pipeline.l1d_latency_queue);
    back.name = v4.name.clone();
    back.l1d = v4.l1d.clone();
    back.l2 = v4.l2.clone();
    back.interconnect = v4.interconnect.clone();
    back.dram.scheduler_queue = v4.dram.scheduler_queue;
    back.units.shared_mem = v4.units.shared_mem;
    back.pipeline.l1d_latency_queue = true;
    assert_eq!(back, v4);
    // The L1D index resolves: the release's linear function, GPGPU-Sim 4's hash.
    use crate::mem::cache::SetIndex;
    assert_eq!(v3.l1d.l1d_index(), SetIndex::Linear);
    assert_eq!(v4.l1d.l1d_index(), SetIndex::FermiHash);
}

/// Maestro's GTX 980 under 3.2.2 differs from `gtx980` in the same mechanisms as the GTX 480
/// pair (without the GTX 480 file's L2 geometry): the transform is one function.
#[test]
fn gtx980_3_2_2_takes_the_same_mechanisms_as_gtx480_3_2_2() {
    let changed = |a: &GpuConfig, b: &GpuConfig| -> Vec<String> {
        let mut d: Vec<String> = a
            .integer_fields()
            .into_iter()
            .zip(b.integer_fields())
            .filter(|((_, x), (_, y))| x != y)
            .map(|((n, _), _)| n)
            .collect();
        d.sort();
        d
    };
    let p = |n| GpuConfig::preset(n).unwrap();
    let mut fermi = changed(&p("gtx480"), &p("gtx480-3.2.2"));
    fermi.retain(|n| n != "l2.ways");
    assert_eq!(changed(&p("gtx980"), &p("gtx980-3.2.2")), fermi);
    let v3 = p("gtx980-3.2.2");
    assert_eq!(
        v3.dram.scheduler_queue, 32,
        "16 line requests of two bursts"
    );
    assert_eq!(v3.l2.write_allocate, WriteAllocate::Fetch);
    assert_eq!(v3.l1d.l1d_index(), crate::mem::cache::SetIndex::Linear);
}

#[test]
fn a_fermi_hash_needs_its_geometry_and_a_port_divides_the_line() {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.l1d.set_index = SetIndexFn::FermiHash;
    c.validate().unwrap();
    c.l1d.size_bytes = 8 * 1024;
    let e = c.validate().unwrap_err();
    assert_eq!(e.field(), Some("l1d.set_index"), "{e}");
    assert!(e.to_string().contains("16 sets"), "{e}");
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.l2.port_bytes = 48;
    let e = c.validate().unwrap_err();
    assert_eq!(e.field(), Some("l2.port_bytes"), "{e}");
    // Both round-trip through TOML, and a preset that leaves them at their defaults writes
    // neither.
    let v3 = GpuConfig::preset("gtx480-3.2.2").unwrap();
    let text = toml::to_string(&v3).unwrap();
    assert!(text.contains("write_allocate = \"fetch\""), "{text}");
    assert!(text.contains("set_index = \"linear\""), "{text}");
    assert_eq!(toml::from_str::<GpuConfig>(&text).unwrap(), v3);
    let v4 = toml::to_string(&GpuConfig::preset("gtx480").unwrap()).unwrap();
    assert!(
        !v4.contains("write_allocate") && !v4.contains("port_bytes"),
        "{v4}"
    );
}

/// Volta's unified L1D / shared memory: the L1D gets what the kernel's shared memory leaves
/// of the 128 KB, in whole ways (GPGPU-Sim's `max_cta` with `-gpgpu_adaptive_cache_config 1`).
#[test]
fn the_unified_l1d_takes_what_shared_memory_leaves() {
    let mut l1d = GpuConfig::preset("titanv").unwrap().l1d;
    (l1d.size_bytes, l1d.line_bytes, l1d.ways) = (32 * 1024, 128, 64);
    let carve = L1dCarveout {
        enabled: true,
        unified_kb: 128,
        shared_options_kb: vec![0, 8, 16, 32, 64, 96],
    };
    assert_eq!(carve.max_ways(&l1d), Some(256));
    for (shared, ways) in [(0, 256), (1, 240), (20 * 1024, 192), (96 * 1024, 64)] {
        assert_eq!(
            carve.ways_for(&l1d, shared),
            Some(ways),
            "{shared} B shared"
        );
    }
    let off = L1dCarveout {
        enabled: false,
        ..carve
    };
    assert_eq!(off.ways_for(&l1d, 0), None);
}

/// `titanx` and `titanv` are GPGPU-Sim's tested configurations with Accel-Sim's trace.config
/// (the copies in `tests/data/gpgpusim-tested-cfgs`), read as a user's `--config a,b` reads
/// them, but for the values PAVER's Table 1, figures and text give otherwise.
#[test]
fn the_pascal_and_volta_presets_are_gpgpu_sims_files_but_for_the_paper() {
    let files = |gpu: &str| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/gpgpusim-tested-cfgs")
            .join(gpu);
        let list = format!(
            "{},{}",
            dir.join("gpgpusim.config").display(),
            dir.join("trace.config").display()
        );
        GpuConfig::load_with_notes(&list).unwrap().0
    };
    let file = files("SM6_TITANX");
    let mut preset = GpuConfig::preset("titanx").unwrap();
    assert_eq!(preset.sm.core_clock_mhz, 1000.0, "PAVER Table 1");
    preset.sm.core_clock_mhz = file.sm.core_clock_mhz;
    assert!(
        !preset.pipeline.gmem_skip_l1d,
        "PAVER Fig. 13: the L1D caches global loads"
    );
    preset.pipeline.gmem_skip_l1d = file.pipeline.gmem_skip_l1d;
    preset.name = file.name.clone();
    assert_eq!(preset, file);

    let file = files("SM7_TITANV");
    let mut preset = GpuConfig::preset("titanv").unwrap();
    assert_eq!(preset.sm.warp_scheduler, "gto", "PAVER L308");
    assert!(
        !preset.l1d_carveout.enabled,
        "PAVER Table 1's fixed 32 kB L1D"
    );
    preset.sm.warp_scheduler = file.sm.warp_scheduler.clone();
    preset.l1d_carveout = file.l1d_carveout.clone();
    preset.name = file.name.clone();
    assert_eq!(preset, file);
}
