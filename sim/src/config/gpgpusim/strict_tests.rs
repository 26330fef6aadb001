//! The reader is as strict as GPGPU-Sim: unknown names, malformed structured fields and
//! values of the wrong kind are errors naming the file and line; what is read but not
//! modelled is noted.

use super::{known, parse, Role};
use crate::config::{presets, ConfigError};
use std::path::Path;

fn read(text: &str) -> Result<super::Parsed, ConfigError> {
    parse(text, Path::new("user.config"), &presets::gtx480())
}

fn err(text: &str) -> String {
    read(text).unwrap_err().to_string()
}

fn noted(text: &str) -> Vec<(String, String, Option<String>)> {
    let p = read(text).unwrap();
    p.notes
        .unmodelled
        .into_iter()
        .map(|u| (u.option, u.value, u.model))
        .collect()
}

#[test]
fn an_unknown_option_is_an_error_naming_the_nearest_known_one() {
    // A misspelled SM-count factor used to make a silent 1-SM GPU.
    let e = err("-gpgpu_n_mem 6\n-gpgpu_n_clustres 15\n");
    assert_eq!(
        e,
        "user.config:2: unknown GPGPU-Sim option `-gpgpu_n_clustres` (GPGPU-Sim stops with \
         \"Unknown Option\"); did you mean `-gpgpu_n_clusters`?"
    );
    let e = err("-no_such_thing_at_all 1\n");
    assert!(
        e.ends_with("(GPGPU-Sim stops with \"Unknown Option\")"),
        "{e}"
    );
    // Options of earlier GPGPU-Sim releases and Accel-Sim's trace options are known.
    let p = read("-gpuwattch_xml_file x.xml\n-gpgpu_dram_sched_queue_size 0\n-trace k.g\n");
    assert!(p.is_ok(), "{p:?}");
}

#[test]
fn values_of_options_not_read_are_checked_against_their_kind() {
    for (text, want) in [
        (
            "-gpgpu_max_concurrent_kernel fermi\n",
            "`-gpgpu_max_concurrent_kernel <integer>`",
        ),
        (
            "-gpgpu_flush_l1_cache 2\n",
            "`-gpgpu_flush_l1_cache 0|1` (a flag: 0, 1 or no value)",
        ),
        ("-gpgpu_max_cycle 1e9\n", "`-gpgpu_max_cycle <integer>`"),
        ("-icnt_in_buffer_limit -1\n", "<unsigned integer>"),
        ("-inter_config_file\n", "`-inter_config_file <value>`"),
        ("-visualizer_zlevel 99999999999\n", "<integer>"),
    ] {
        let e = err(text);
        assert!(
            e.starts_with("user.config:1: expected") && e.contains(want),
            "{text:?}: {e}"
        );
    }
    // GPGPU-Sim's integer forms; a flag without a value.
    assert!(read(
        "-gpgpu_max_concurrent_kernel 0x1\n-gpgpu_flush_l1_cache\n-gpgpu_shmem_warp_parts 02\n"
    )
    .is_ok());
}

#[test]
fn cache_fields_are_parsed_and_checked_as_gpgpu_sim_checks_them() {
    let ok = [
        "-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8\n",
        "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32:8,8\n",
        // GPGPU-Sim 3.x: no cache type, four policy letters.
        "-gpgpu_cache:dl1 32:128:4,L:L:m:N,A:32:8,8\n",
        "-gpgpu_cache:dl2 S:32:128:16,L:B:m:L:L,A:32:4,4:0,32\n",
    ];
    for text in ok {
        assert!(read(text).is_ok(), "{text}: {:?}", read(text));
    }
    for (text, want) in [
        (
            "-gpgpu_cache:dl1 Q:32:128:4,L:L:m:N:H,A:32:8,8\n",
            "the cache type is `N`",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,Z:L:m:N:H,A:32:8,8\n",
            "the replacement is one of L (LRU), F (FIFO)",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:Q:m:N:H,A:32:8,8\n",
            "the write policy is one of",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:x:N:H,A:32:8,8\n",
            "the allocation is one of",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:q:H,A:32:8,8\n",
            "the write allocation is one of",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:Z,A:32:8,8\n",
            "the set index is one of",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,Q:32:8,8\n",
            "the mshr type is one of",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,F:32:8,8\n",
            "a FIFO MSHR `F` needs",
        ),
        (
            "-gpgpu_cache:dl2 32:128:16,L:B:f:N:L,A:32:4,4\n",
            "write-back cache that allocates on fill",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:T:f:F:L,A:32:4,4\n",
            "fetch-on-write",
        ),
        (
            "-gpgpu_cache:dl1 S:32:64:4,L:L:m:N:L,A:32:8,8\n",
            "128 B lines",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32:8,8,48\n",
            "divides the line size",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H:L,A:32:8,8\n",
            "<write allocation>[:<set index>]",
        ),
        (
            "-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32:8,8,128,9\n",
            "<data port bytes>",
        ),
    ] {
        let e = err(text);
        assert!(
            e.starts_with("user.config:1: expected `-gpgpu_cache:"),
            "{text}: {e}"
        );
        assert!(e.contains(want), "{text}: {e}");
    }
    // Policies the model does not have are noted with what it does instead; a later line
    // with the model's letter takes the note back.
    let n = noted("-gpgpu_cache:dl1 32:128:4,F:E:m:W:H,A:32:8,8\n");
    assert_eq!(
        n,
        [
            (
                "-gpgpu_cache:dl1 replacement".into(),
                "F".into(),
                Some("LRU".into())
            ),
            (
                "-gpgpu_cache:dl1 write allocation".into(),
                "W".into(),
                Some("no write-allocate".into())
            ),
        ]
    );
    assert!(noted("-gpgpu_cache:dl1 32:128:4,F:E:m:N:H,A:32:8,8\n-gpgpu_cache:dl1 32:128:4,L:E:m:N:H,A:32:8,8\n").is_empty());
}

#[test]
fn dram_timing_keys_are_checked_and_the_legacy_list_is_read() {
    let e = err("-gpgpu_dram_timing_opt \"nbk=16:CCD=2:RCDD=12\"\n");
    assert!(e.contains("`RCDD` is no GPGPU-Sim DRAM timing key"), "{e}");
    let e = err("-gpgpu_dram_timing_opt \"nbk=16:ccd=2\"\n");
    assert!(e.contains("did you mean `CCD`?"), "{e}");
    let e = err("-gpgpu_dram_timing_opt \"nbk=16:nbkgrp=0\"\n");
    assert!(e.contains("Number of bank groups cannot be zero"), "{e}");
    // `;` separates too; the legacy positional form (GPGPU-Sim 3.x).
    let p = read("-gpgpu_dram_timing_opt nbk=8;RC=50\n").unwrap();
    assert_eq!((p.config.dram.banks, p.config.dram.timing.rc), (8, 50));
    let p = read("-gpgpu_dram_timing_opt 4:2:8:12:21:13:34:9:4:5:13:1:0:0\n").unwrap();
    let t = &p.config.dram.timing;
    assert_eq!(
        (p.config.dram.banks, t.ccd, t.rc, t.cl, t.wr),
        (4, 2, 34, 9, 13)
    );
    assert!(err("-gpgpu_dram_timing_opt 4:2:8\n").contains("legacy positional list"));
    // Bank groups are not modelled: noted unless they are the model's (one group).
    let n = noted("-gpgpu_dram_timing_opt \"nbkgrp=4:CCDL=0\"\n");
    assert_eq!(
        n,
        [(
            "-gpgpu_dram_timing_opt nbkgrp".into(),
            "4".into(),
            Some("behaves as nbkgrp=1".into())
        )]
    );
}

#[test]
fn clock_domains_and_schedulers_are_checked() {
    let e = err("-gpgpu_clock_domains 700:700:700:-924\n");
    assert!(e.contains("four clocks, each > 0"), "{e}");
    let n = noted("-gpgpu_clock_domains 700.0:1400.0:700.0:924.0\n");
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].0, "-gpgpu_clock_domains interconnect");
    for (text, want) in [
        (
            "-gpgpu_scheduler rrr\n",
            "GPGPU-Sim's `rrr` scheduler is not modelled",
        ),
        (
            "-gpgpu_scheduler warp_limiting:2:4\n",
            "`warp_limiting` scheduler is not modelled",
        ),
        (
            "-gpgpu_scheduler two_level_active:6\n",
            "two_level_active:<active warps>:<inner>:<outer>",
        ),
        (
            "-gpgpu_scheduler two_level_active:6:x:1\n",
            "two_level_active:<active warps>",
        ),
        ("-gpgpu_scheduler gtox\n", "lrr|gto"),
    ] {
        let e = err(text);
        assert!(e.contains(want), "{text}: {e}");
    }
    // GPGPU-Sim aborts on any order but inner LRR (0) and outer SRR (1).
    let e = err("-gpgpu_scheduler two_level_active:6:2:1\n");
    assert!(
        e.contains("GPGPU-Sim implements only inner 0 (LRR) and outer 1 (SRR)"),
        "{e}"
    );
}

#[test]
fn every_option_read_is_read_and_refuses_a_malformed_value() {
    for o in known::OPTIONS.iter().filter(|o| o.role == Role::Read) {
        let text = format!("-{} x!\n", o.name);
        let e = read(&text).expect_err(o.name);
        assert!(e.to_string().starts_with("user.config:1: expected"), "{e}");
    }
}

#[test]
fn options_without_timing_effect_are_counted_not_listed() {
    let p = read("-power_simulation_enabled 1\n-visualizer_enabled 0\n-gpgpu_flush_l1_cache 1\n")
        .unwrap();
    assert_eq!(
        p.notes.inert,
        ["power_simulation_enabled", "visualizer_enabled"]
    );
    let s = p.notes.summary().unwrap();
    assert!(
        s.starts_with("1 GPGPU-Sim timing setting is not modelled, changing nothing here: -gpgpu_flush_l1_cache;"),
        "{s}"
    );
    assert!(
        s.ends_with(
            "2 options without effect on a trace-driven run (power, statistics, PTX mode, \
             debugging, units no trace reaches)"
        ),
        "{s}"
    );
}

#[test]
fn an_invalid_field_the_file_did_not_set_still_names_the_file() {
    // The peak bandwidth is computed from four lines; no one line set it.
    let e = err(
        "-gpgpu_n_mem 64\n-gpgpu_n_mem_per_ctrlr 64\n-gpgpu_dram_buswidth 64\n\
                 -dram_data_command_freq_ratio 16\n",
    );
    assert!(
        e.starts_with("user.config: config field `dram.peak_gbps`"),
        "{e}"
    );
}

/// GPGPU-Sim's Kepler to Ampere files: tRC one below tRAS + tRP (a constraint of its own, as
/// the model applies it), and Turing's 512-way streaming L1D (issue 60).
#[test]
fn later_gpus_timings_and_wide_caches_read() {
    let p = read("-gpgpu_dram_timing_opt \"nbk=16:RAS=28:RP=12:RC=39\"\n").unwrap();
    assert_eq!(p.config.dram.timing.rc, 39);
    let p = read("-gpgpu_cache:dl1 S:1:128:512,L:L:s:N:L,A:256:8,16:0,32\n").unwrap();
    assert_eq!(
        (p.config.l1d.ways, p.config.l1d.size_bytes),
        (512, 64 * 1024)
    );
    let noted: Vec<String> = p
        .notes
        .unmodelled
        .iter()
        .map(|u| u.option.clone())
        .collect();
    assert!(
        noted.contains(&"-gpgpu_cache:dl1 allocation".to_string()),
        "{noted:?}"
    );
}

/// The address mapping, the partition indexing and the IPOLY set index are read; what
/// GPGPU-Sim refuses or stops on is an error naming the file and line (issue 60).
#[test]
fn address_mappings_and_partition_indexing_read_or_fail_clearly() {
    use crate::config::{PartitionIndexing, SetIndexFn};
    const MAP: &str =
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS";
    let p = read(&format!(
        "-gpgpu_n_mem 12\n-gpgpu_mem_addr_mapping {MAP}\n-gpgpu_memory_partition_indexing 4\n\
         -gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:256:64,16:0,32\n"
    ))
    .unwrap();
    let d = &p.config.dram;
    assert_eq!(d.address_mapping.as_deref(), Some(MAP));
    assert_eq!(d.partition_indexing, PartitionIndexing::Random);
    assert_eq!(p.config.l2.set_index, SetIndexFn::Ipoly);
    assert!(p.notes.unmodelled.is_empty(), "{:?}", p.notes.unmodelled);
    for (text, want) in [
        (
            "-gpgpu_mem_addr_mapping dramid@8;0000RRRR.RRRRRRRR\n",
            "16 address bits: the mapping names all 64",
        ),
        (
            "-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSX\n",
            "`X` is not an address bit",
        ),
        ("-gpgpu_memory_partition_indexing 3\n", "stops on 3 (PAE)"),
        (
            "-gpgpu_cache:dl2 S:8:128:16,L:B:m:L:P,A:256:64,16:0,32\n",
            "hashes 16, 32 or 64 sets",
        ),
    ] {
        let e = err(text);
        assert!(e.starts_with("user.config:1: expected `-gpgpu_"), "{e}");
        assert!(e.contains(want), "{text}: {e}");
    }
    // What needs the whole geometry is checked once the file is read.
    let e = err(&format!(
        "-gpgpu_n_mem 6\n-gpgpu_mem_addr_mapping {MAP}\n-gpgpu_memory_partition_indexing 1\n"
    ));
    assert!(
        e.contains("dram.address_mapping") && e.contains("XOR"),
        "{e}"
    );
}

/// The partition queues and the fetch throughput are read; an `icnt_L2` queue that GPGPU-Sim
/// would never pop the interconnect into is refused at its line.
#[test]
fn partition_queues_and_fetch_throughput_read() {
    let p =
        read("-gpgpu_dram_partition_queues 32:16:8:24\n-gpgpu_inst_fetch_throughput 8\n").unwrap();
    let q = p.config.partition_queues;
    assert_eq!((q.enabled, q.icnt_to_l2, q.l2_to_icnt), (true, 32, 24));
    assert_eq!(p.config.pipeline.fetch_throughput, 8);
    let noted: Vec<_> = noted("-gpgpu_dram_partition_queues 32:16:8:24\n")
        .into_iter()
        .map(|n| n.0)
        .collect();
    assert_eq!(
        noted,
        [
            "-gpgpu_dram_partition_queues L2_dram",
            "-gpgpu_dram_partition_queues dram_L2"
        ]
    );
    let e = err("-gpgpu_dram_partition_queues 2:8:8:8\n");
    assert!(
        e.contains("partition_queues.icnt_to_l2") && e.contains("four fit"),
        "{e}"
    );
    assert!(err("-gpgpu_dram_partition_queues 8:8\n").contains("expected"));
}

/// The L1D's write policy and write allocation: `T` keeps written data (`N`: no allocation,
/// `L`: lazy fetch on read allocates), `L` and `E` evict; `T` with `F` is noted as `N`.
#[test]
fn l1d_write_policies_read() {
    use crate::config::WriteThrough;
    let dl1 =
        |w: &str, a: &str| format!("-gpgpu_cache:dl1 S:4:128:64,L:{w}:m:{a}:L,A:512:8,16:0,32\n");
    for (w, a, want) in [
        ("T", "L", WriteThrough::Allocate),
        ("T", "N", WriteThrough::Update),
        ("L", "N", WriteThrough::Evict),
        ("E", "N", WriteThrough::Evict),
    ] {
        let p = read(&dl1(w, a)).unwrap();
        assert_eq!(p.config.l1d.write_through, want, "{w} {a}");
        let notes: Vec<_> = p
            .notes
            .unmodelled
            .iter()
            .map(|u| u.option.as_str())
            .collect();
        assert!(
            !notes.contains(&"-gpgpu_cache:dl1 write allocation"),
            "{notes:?}"
        );
    }
    let noted = noted(&dl1("T", "F"));
    assert!(
        noted
            .iter()
            .any(|n| n.0 == "-gpgpu_cache:dl1 write allocation" && n.1 == "F"),
        "{noted:?}"
    );
}

/// `-gpgpu_mem_address_mask` only picks GPGPU-Sim's built-in mapping: with a mapping string it
/// changes nothing and is not noted; without one it is.
#[test]
fn the_address_mask_is_noted_only_without_a_mapping_string() {
    let mapping = "-gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS\n";
    let p = read(&format!("-gpgpu_mem_address_mask 1\n{mapping}")).unwrap();
    assert!(p
        .notes
        .unmodelled
        .iter()
        .all(|u| u.option != "-gpgpu_mem_address_mask"));
    assert!(p
        .notes
        .inert
        .contains(&"gpgpu_mem_address_mask".to_string()));
    let noted = noted("-gpgpu_mem_address_mask 1\n");
    assert!(
        noted.iter().any(|n| n.0 == "-gpgpu_mem_address_mask"),
        "{noted:?}"
    );
}
