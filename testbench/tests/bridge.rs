//! The FPGA host bridge end to end without a board: the Verilated `<m>_bridge` (module,
//! protocol engine, UART) driven through its serial pins by the Rust client, as a host drives a
//! board. The register map is read from the generated `<m>.regmap.csv`.

mod common;

use common::{parse_vcd, stuck_grant_bit0, value_at, Faulty};
use gpusched_tb::bridge::{board_lockstep, BridgeClient, SimSerial};
use gpusched_tb::cosim::CosimOptions;
use gpusched_tb::lockstep::LockstepConfig;
use gpusim::block::{port_values, word_count, Block, BlockKind, PortBundle, Stimulus};
use gpusim::bridge::{REG_CYCLES, REG_STATUS};
use std::collections::HashMap;
use std::path::PathBuf;

fn rtl_out() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rtl-out")
}

/// Whether the build has the Verilated bridges (SKIP, or a failure under
/// `GPUSCHED_REQUIRE=rtl`).
#[track_caller]
fn bridges_built() -> bool {
    gpusim::testing::available(
        "rtl",
        !gpusched_tb::bridge::serial::simulated_bridges().is_empty(),
        "built without Verilator: no Verilated bridges (apt-get install -y verilator, then rebuild)",
    )
}

/// The first 32 bits of `module`'s Verilog SHA-256, from `rtl-out/manifest.json`.
fn manifest_hash(module: &str) -> u32 {
    let text = std::fs::read_to_string(rtl_out().join("manifest.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let m = v["modules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["module"] == module)
        .unwrap();
    gpusim::bridge::hash_word(m["sha256"].as_str().unwrap()).unwrap()
}

/// `<m>.regmap.csv`: port -> (dir, width, first address, words).
fn regmap(module: &str) -> HashMap<String, (String, u32, u16, u16)> {
    let text =
        std::fs::read_to_string(rtl_out().join(format!("fpga/{module}.regmap.csv"))).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("port,dir,width,addr,words,vec_offset"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let addr = u16::from_str_radix(f[3].trim_start_matches("0x"), 16).unwrap();
            (
                f[0].to_string(),
                (
                    f[1].to_string(),
                    f[2].parse().unwrap(),
                    addr,
                    f[4].parse().unwrap(),
                ),
            )
        })
        .collect()
}

fn opts(cycles: u64, window: usize, dir: &std::path::Path) -> CosimOptions {
    CosimOptions {
        cycles,
        seed: 5,
        lockstep: LockstepConfig {
            window,
            mismatch_dir: dir.to_path_buf(),
            vcd_dir: None,
            ..Default::default()
        },
    }
}

#[test]
fn the_bridge_identifies_itself_and_registers_drive_the_module_like_the_golden_model() {
    if !bridges_built() {
        return;
    }
    use gpusim::blocks::tb_dispatch::Kind;
    let module = "tb_dispatch_lrr_proto";
    let p = Kind::params("lrr", "proto");
    let mut client = BridgeClient::connect(SimSerial::new(module).unwrap()).unwrap();
    let info = client.info();
    let (ins, outs) = (
        <Kind as BlockKind>::In::specs(&p),
        <Kind as BlockKind>::Out::specs(&p),
    );
    assert_eq!(info.hash, manifest_hash(module));
    assert_eq!(info.in_bits, ins.iter().map(|s| s.width).sum::<u32>());
    assert_eq!(info.out_bits, outs.iter().map(|s| s.width).sum::<u32>());
    assert!(
        info.out_bits > 64,
        "a port wider than two registers is exercised"
    );
    let map = regmap(module);
    // Write every input through its registers, read every output, step: 300 cycles of the
    // block's stimulus against its golden model.
    client.reset_cycle().unwrap();
    let mut golden = Kind::golden(&p);
    let mut stim = Kind::stimulus(&p, 9);
    let mut prev = None;
    let mut iw = vec![0; word_count(&ins)];
    let mut ow = vec![0; word_count(&outs)];
    for cycle in 0..300u32 {
        let inp = stim.next(prev.as_ref());
        inp.to_words(&p, &mut iw);
        for (spec, v) in ins.iter().zip(port_values(&ins, &iw)) {
            let (dir, width, addr, words) = &map[&spec.name];
            assert_eq!((dir.as_str(), *width), ("input", spec.width));
            for k in 0..*words {
                client.write_reg(addr + k, (v >> (32 * k)) as u32).unwrap();
            }
        }
        let expected = golden.step(&inp);
        expected.to_words(&p, &mut ow);
        for (spec, v) in outs.iter().zip(port_values(&outs, &ow)) {
            let (dir, _, addr, words) = &map[&spec.name];
            assert_eq!(dir, "output");
            let mut got = 0u128;
            for k in 0..*words {
                got |= (client.read_reg(addr + k).unwrap() as u128) << (32 * k);
            }
            assert_eq!(got, v, "cycle {cycle}, output {}", spec.name);
        }
        client.step().unwrap();
        assert_eq!(client.read_reg(REG_CYCLES).unwrap(), cycle + 1);
        prev = Some(expected);
    }
    assert_eq!(client.take_status().unwrap(), 0);
}

#[test]
fn board_lockstep_through_the_bridge_passes_and_catches_a_planted_bug_with_waveforms() {
    if !bridges_built() {
        return;
    }
    use gpusim::blocks::warp_arbiter::{Golden, Kind};
    let module = "warp_arbiter_two_level_proto";
    let p = Kind::params("two_level", "proto");
    let dir = tempfile::tempdir().unwrap();
    let client = BridgeClient::connect(SimSerial::new(module).unwrap()).unwrap();
    let hash = manifest_hash(module);
    let (ok, client) = board_lockstep::<Kind, _, _>(
        Golden::new(p),
        &p,
        module,
        client,
        Some(hash),
        &opts(2_000, 16, dir.path()),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((ok.mismatches, ok.cycles), (0, 2_000));
    // The same bridge again (a reset cycle starts every run), against a golden model whose
    // grant_warp bit 0 sticks at 0 from cycle 700.
    let (r, client) = board_lockstep::<Kind, _, _>(
        stuck_grant_bit0(Golden::new(p), 700),
        &p,
        module,
        client,
        Some(hash),
        &opts(2_000, 16, dir.path()),
        &mut |_| {},
    )
    .unwrap();
    let m = r.mismatch.expect("the planted bug is caught");
    assert!(m.cycle >= 700 && m.port == "grant_warp", "{m}");
    assert_eq!(m.got, m.expected | 1, "{m}");
    let (g, rtl) = (m.golden_vcd.clone().unwrap(), m.rtl_vcd.clone().unwrap());
    let pair = m.pair.clone().expect("pair and save file");
    assert!(pair.gtkw.exists() && pair.vcd.exists());
    // Both waveforms show the compared values at time 2 * cycle.
    let (gv, _) = parse_vcd(&g);
    let (rv, _) = parse_vcd(&rtl);
    let t = 2 * m.cycle;
    assert_eq!(value_at(&gv, "grant_warp", t), m.expected);
    assert_eq!(value_at(&rv, "grant_warp", t), m.got);
    // A bridge built from other Verilog is refused before anything runs.
    let e = board_lockstep::<Kind, _, _>(
        Golden::new(p),
        &p,
        module,
        client,
        Some(hash ^ 1),
        &opts(10, 16, dir.path()),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("other RTL"), "{e}");
    // And so is a bridge of another module.
    use gpusim::blocks::tb_dispatch::{Golden as Td, Kind as TdKind};
    let tp = TdKind::params("lrr", "proto");
    let client = BridgeClient::connect(SimSerial::new(module).unwrap()).unwrap();
    let e = board_lockstep::<TdKind, _, _>(
        Td::new(tp),
        &tp,
        "tb_dispatch_lrr_proto",
        client,
        None,
        &opts(10, 16, dir.path()),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("another module"), "{e}");
}

#[test]
fn a_damaged_byte_is_a_mismatch_and_line_errors_set_the_status_bits() {
    if !bridges_built() {
        return;
    }
    use gpusim::blocks::tb_dispatch::{DispatchOut, Golden as Td, Kind};
    let module = "tb_dispatch_lrr_proto";
    let p = Kind::params("lrr", "proto");
    let dir = tempfile::tempdir().unwrap();
    let mut client = BridgeClient::connect(SimSerial::new(module).unwrap()).unwrap();
    // The identity of a wrong golden copy: nothing planted, the line is damaged instead.
    let same = Faulty::new(Td::new(p), u64::MAX, |_: &mut DispatchOut| {});
    // Byte 0 from now is the reset cycle's `X`; every `C` command takes 1 + 7 bytes. Flip the
    // whole first payload byte of cycle 40 (the `start`/`total` inputs).
    let in_bytes = gpusim::bridge::payload_bytes(client.info().in_bits) as u64;
    client
        .serial_mut()
        .corrupt(1 + 40 * (1 + in_bytes) + 1, 0xff);
    let (r, mut client) = board_lockstep::<Kind, _, _>(
        same,
        &p,
        module,
        client,
        None,
        &opts(3_000, 8, dir.path()),
        &mut |_| {},
    )
    .unwrap();
    let m = r.mismatch.expect("the damaged byte is caught");
    assert!(m.cycle >= 40, "{m}");
    // A low stop bit: the byte is dropped and status bit 0 is set; an unknown command is
    // answered `?` and sets bit 1.
    client.serial_mut().break_stop_bit(0);
    use gpusched_tb::bridge::Serial;
    client.serial_mut().send(b"S").unwrap();
    assert_eq!(client.read_reg(REG_STATUS).unwrap(), 1);
    client.serial_mut().send(b"Z").unwrap();
    assert_eq!(client.serial_mut().recv(1).unwrap(), b"?");
    assert_eq!(client.take_status().unwrap(), 3);
    assert_eq!(client.read_reg(REG_STATUS).unwrap(), 0);
}

#[test]
fn one_arbiter_of_the_gpu_runs_on_the_bridge_with_golden_statistics_and_a_damaged_line_stops_it() {
    if !bridges_built() {
        return;
    }
    use gpusched_tb::bridge::{run_on_board, run_on_board_with, BoardSite, Connect, Target};
    use gpusched_tb::gpu::{self as tbgpu, BlockMode, GpuRunError, Modes};
    use gpusim::config::GpuConfig;
    use gpusim::gpu::SimOptions;
    use gpusim::workload::builtin;
    let gpu = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions::default();
    let dir = tempfile::tempdir().unwrap();
    let cfg = LockstepConfig {
        window: 16,
        mismatch_dir: dir.path().to_path_buf(),
        vcd_dir: None,
        ..Default::default()
    };
    let open = || Ok(Box::new(builtin::workload("stream", "small").unwrap()) as _);
    let golden = tbgpu::run(
        &gpu,
        &opts,
        &mut open.clone(),
        Modes::default(),
        &cfg,
        &mut |_| {},
    )
    .unwrap();
    let mut modes = Modes::default();
    modes.set("warp_arbiter", BlockMode::Lockstep).unwrap();
    let hash_of = |m: &str| Some(manifest_hash(m));
    let board = BoardSite {
        target: Target::UartSim,
        block: "warp_arbiter".into(),
        site: Some("sm3_sched1".into()),
        hash_of: &hash_of,
    };
    let (report, on_board) = run_on_board(
        &gpu,
        &opts,
        &mut open.clone(),
        modes.clone(),
        &cfg,
        &board,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&report).unwrap(),
        serde_json::to_value(&golden).unwrap()
    );
    assert_eq!(
        (on_board.site.as_str(), on_board.module.as_str()),
        ("sm3_sched1", "warp_arbiter_gto_fermi")
    );
    assert_eq!(on_board.cycles, report.counters.cycles);
    // One payload byte of cycle 300 damaged on the line: the GPU run stops there with a
    // mismatch of that site and its waveforms.
    let in_bytes = 12; // 4 x 24 input bits
    let connect: Connect<'_, SimSerial> = Box::new(move |module: &str| {
        let mut serial = SimSerial::new(module).unwrap();
        // After the connect's three 3-byte reads, byte 0 is the reset cycle's `X`; the
        // `ready` inputs of cycle 300 start at byte 1 + 300 * 13 + 1.
        serial.corrupt(9 + 1 + 300 * (1 + in_bytes) + 1, 0xff);
        BridgeClient::connect(serial)
    });
    let e = run_on_board_with(
        &gpu,
        &opts,
        &mut open.clone(),
        modes,
        &cfg,
        &board,
        connect,
        &mut |_| {},
    )
    .unwrap_err();
    let GpuRunError::Mismatch(m) = e else {
        panic!("expected a mismatch, got {e}")
    };
    assert_eq!(m.name, "sm3_sched1");
    assert!(m.cycle >= 300, "{m}");
    assert!(m.pair.is_some_and(|p| p.gtkw.exists()));
}
