//! Verilates every module listed in `rtl-out/manifest.json` and builds, from the manifest
//! alone, the C++ shims and the Rust table of their FFI entry points and ports (DESIGN.md §7).
//!
//! Each module is built once, with `--trace` (waveforms can be switched on at any cycle) and
//! `--savable` (its whole state can be saved to memory and restored: the lockstep's
//! snapshots). Measured on `elf_base_fermi`, that model runs about 7% slower than one without
//! either option while no waveform is open, and building one model instead of two halves the
//! build. Without Verilator on PATH the crate still builds, with an empty table, so the
//! golden-only parts of gpusched keep working. `VERILATOR` names the binary (default
//! `verilator`); pointing it at a missing one builds the golden-only configuration.
//!
//! Each module, each host bridge and the Verilator runtime is a unit of its own, Verilated,
//! compiled in parallel and cached in `target/verilated/<name>-<key>/` ([`units`]): a change
//! rebuilds only the units it touches. The C++ is compiled with the same flags in every profile
//! (`-O2` for the code that runs every cycle, `-O0` for Verilator's cold code:
//! [`units::opt_level_of`]; no debug information), so `cargo clippy` (dev) and `cargo test
//! --release` share one build (the Verilated `fermi` modules take minutes to compile).

#[path = "build/bridges.rs"]
mod bridges;
#[path = "build/units.rs"]
mod units;

use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};
use units::{Sources, Unit};

#[derive(Deserialize)]
pub(crate) struct Manifest {
    modules: Vec<Module>,
}

#[derive(Clone, Deserialize)]
pub(crate) struct Module {
    module: String,
    file: String,
    ports: Vec<Port>,
}

#[derive(Clone, Deserialize)]
struct Port {
    name: String,
    dir: String,
    width: u32,
}

fn main() {
    // Before any file is opened (units::jobserver says why).
    units::jobserver();
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let rtl = crate_dir.join("../rtl-out");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let manifest_path = rtl.join("manifest.json");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/units.rs");
    // For tests/build_units.rs, which runs the units' build as this script does.
    println!(
        "cargo:rustc-env=GS_BUILD_TARGET={}",
        env::var("TARGET").unwrap()
    );
    println!("cargo:rerun-if-changed={}", manifest_path.display());
    println!("cargo:rerun-if-env-changed=VERILATOR");
    let text = fs::read_to_string(&manifest_path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `gpusched gen`)", manifest_path.display()));
    let manifest: Manifest =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest_path.display()));
    for m in &manifest.modules {
        println!("cargo:rerun-if-changed={}", rtl.join(&m.file).display());
        for p in &m.ports {
            assert!(
                (1..=128).contains(&p.width),
                "{}.{}: ports are 1 to 128 bits wide",
                m.module,
                p.name
            );
        }
    }

    let verilator = env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    let root = match Command::new(&verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
    {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8(o.stdout).unwrap().trim()),
        _ => {
            // Re-run when Verilator appears: installing it changes the modification time of
            // the directory it lands in (the binary itself keeps its package's older time,
            // which cargo would not count as a change).
            println!("cargo:rerun-if-env-changed=PATH");
            for dir in env::split_paths(&env::var_os("PATH").unwrap_or_default()) {
                if dir.is_dir() {
                    println!("cargo:rerun-if-changed={}", dir.display());
                }
            }
            println!(
                "cargo:warning={verilator} not found: RTL co-simulation is disabled in this build \
                 (apt-get install -y verilator, then rebuild)"
            );
            let mut table = rust_table(&[], false);
            table.push_str(&bridges::rust_table(&[]));
            fs::write(out.join("rtl_modules.rs"), table).unwrap();
            return;
        }
    };

    let target = out
        .ancestors()
        .nth(4)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| out.clone());
    // The emitted modules, and the planted missing reset of the X-randomisation test.
    let mut models: Vec<Module> = manifest.modules.iter().map(Module::clone).collect();
    models.extend(planted_missing_reset(&manifest));
    // Link order: the bridges and the modules use the runtime, which goes last.
    let (bridge_names, mut list) = bridges::units(&verilator, &rtl, &manifest);
    list.extend(models.iter().map(|m| model_unit(&verilator, &rtl, m)));
    list.push(runtime_unit(&root));
    units::build(&verilator, &root, &target.join("verilated"), list);
    units::link_cxx_runtime(&root);
    // The whole-library cache of earlier versions of this script.
    let _ = fs::remove_dir_all(target.join("verilated-bridges"));
    let mut table = rust_table(&models, true);
    table.push_str(&bridges::rust_table(&bridge_names));
    fs::write(out.join("rtl_modules.rs"), table).unwrap();
}

/// Definitions of the modules' and the runtime's C++: VCD tracing compiled in.
const TRACE_DEFINES: &[(&str, &str)] = &[("VM_TRACE", "1"), ("VM_TRACE_VCD", "1")];

/// The Verilator runtime the models and bridges link against (its library goes last).
fn runtime_unit(root: &Path) -> Unit<'static> {
    const FILES: [&str; 4] = [
        "verilated.cpp",
        "verilated_vcd_c.cpp",
        "verilated_threads.cpp",
        "verilated_save.cpp",
    ];
    let root = root.to_path_buf();
    Unit {
        name: "runtime".into(),
        inputs: FILES.join(" ").into_bytes(),
        defines: TRACE_DEFINES,
        make: Box::new(move |_dir| Sources {
            files: FILES.iter().map(|f| root.join("include").join(f)).collect(),
            includes: vec![],
            unity: false,
        }),
    }
}

/// The unit of module `m`: Verilated with [`VERILATOR_ARGS`] under its top ([`wrapper_for`]),
/// with its shim ([`shim_for`]).
fn model_unit<'a>(verilator: &'a str, rtl: &Path, m: &'a Module) -> Unit<'a> {
    let verilog = verilog_of(rtl, m);
    let shim = format!("{SHIM_PRELUDE}{}", shim_for(m));
    let wrapper = wrapper_for(m);
    let inputs = [
        VERILATOR_ARGS.join(" "),
        verilog.clone(),
        wrapper.clone(),
        shim.clone(),
    ]
    .join("\n\u{0}")
    .into_bytes();
    Unit {
        name: m.module.clone(),
        inputs,
        defines: TRACE_DEFINES,
        make: Box::new(move |dir| {
            let mdir = dir.join("vl");
            verilate(verilator, &verilog, &wrapper, m, &mdir);
            let shim_path = dir.join("gpusched_shim.cpp");
            fs::write(&shim_path, &shim).unwrap();
            let mut files = units::model_files(&mdir);
            files.push(shim_path);
            Sources {
                files,
                includes: vec![mdir],
                unity: true,
            }
        }),
    }
}

/// Serializers of a model's state to and from memory (Verilator ships file-based ones only),
/// and a VCD file that fails instead of hanging when its disk fills.
const SHIM_PRELUDE: &str = r#"// Generated by testbench/build.rs from rtl-out/manifest.json.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include "verilated.h"
#include "verilated_save.h"
#include "verilated_vcd_c.h"
namespace {
// A VCD file that keeps its first write error (a full disk: ENOSPC) and drops what follows.
// Verilator's own file reports such an error through VL_FATAL_MT from inside its flush, which
// takes the trace's lock again and never returns (Verilator 5.006): the run hung.
class GsVcdFile final : public VerilatedVcdFile {
public:
    int err = 0;
    ssize_t write(const char* bufp, ssize_t len) override {
        if (err) return len;
        const ssize_t got = VerilatedVcdFile::write(bufp, len);
        if (got < 0 && errno != EAGAIN && errno != EINTR) {
            err = errno;
            return len;
        }
        if (got == 0) {
            err = EIO;
            return len;
        }
        return got;
    }
};
// Hands the serialized bytes to `sink` in pieces, in order.
class MemSave final : public VerilatedSerialize {
    void* m_ctx;
    void (*m_sink)(void*, const uint8_t*, size_t);
public:
    MemSave(void* ctx, void (*sink)(void*, const uint8_t*, size_t)) : m_ctx(ctx), m_sink(sink) {
        m_isOpen = true;
        m_cp = m_bufp;
        header();
    }
    ~MemSave() override { close(); }
    void flush() override {
        if (m_cp > m_bufp) m_sink(m_ctx, m_bufp, (size_t)(m_cp - m_bufp));
        m_cp = m_bufp;
    }
    void close() override {
        if (!m_isOpen) return;
        trailer();
        flush();
        m_isOpen = false;
    }
};
// Reads bytes written by MemSave.
class MemRestore final : public VerilatedDeserialize {
    const uint8_t* m_src;
    size_t m_len;
    size_t m_pos = 0;
public:
    MemRestore(const uint8_t* src, size_t len) : m_src(src), m_len(len) {
        m_isOpen = true;
        m_cp = m_bufp;
        m_endp = m_bufp;
        header();
    }
    ~MemRestore() override { close(); }
    void close() override {
        if (!m_isOpen) return;
        trailer();
        m_isOpen = false;
    }
    void fill() override {
        uint8_t* rp = m_bufp;
        for (uint8_t* sp = m_cp; sp < m_endp; *rp++ = *sp++) {}
        m_endp = m_bufp + (m_endp - m_cp);
        m_cp = m_bufp;
        size_t room = (size_t)(m_bufp + bufferSize() - m_endp);
        size_t n = m_len - m_pos < room ? m_len - m_pos : room;
        std::memcpy(m_endp, m_src + m_pos, n);
        m_pos += n;
        m_endp += n;
    }
};
}
"#;

/// The Verilated top around module `m`: the same ports, every input (reset included) through
/// a register clocked with the module, the module as instance `dut`.
///
/// Why: a block's outputs are Mealy, so a plain model needs two evaluations per cycle, one after
/// the inputs change (outputs valid) and one after the clock edge, and Verilator evaluates the
/// block's combinational logic in both, the second time with the old inputs, for nothing.
/// Here the shim applies cycle `c`'s inputs and the rising edge in one evaluation: the module's
/// registers take the values computed from cycle `c - 1`'s inputs (held in the input registers
/// until the edge) while the input registers take cycle `c`'s, and the logic is evaluated once,
/// with both. Seen from the module nothing changes (its inputs change right after each edge, as
/// from any testbench); `elf_base_fermi` runs about 3.5x faster. `reset`'s register starts at 1,
/// so the edge that precedes the first step resets the module instead of clocking its initial
/// state with zero inputs.
fn wrapper_for(m: &Module) -> String {
    let range = |w: u32| {
        if w > 1 {
            format!("[{}:0] ", w - 1)
        } else {
            String::new()
        }
    };
    let names: Vec<&str> = m.ports.iter().map(|p| p.name.as_str()).collect();
    let mut v = format!(
        "// The simulation top of {name} (testbench/build.rs): registered inputs, see wrapper_for.\n\
         module {name}__tb({ports});\n",
        name = m.module,
        ports = names.join(",")
    );
    let mut regs = String::new();
    let mut conn = vec![];
    for p in &m.ports {
        writeln!(v, "    {} wire {}{};", p.dir, range(p.width), p.name).unwrap();
        if p.dir == "input" && p.name != "clock" {
            let init = if p.name == "reset" { " = 1'b1" } else { "" };
            writeln!(v, "    reg {}{}__q{init};", range(p.width), p.name).unwrap();
            writeln!(regs, "        {0}__q <= {0};", p.name).unwrap();
            conn.push(format!(".{0}({0}__q)", p.name));
        } else {
            conn.push(format!(".{0}({0})", p.name));
        }
    }
    write!(
        v,
        "    always @(posedge clock) begin\n{regs}    end\n    {name} dut({conn});\nendmodule\n",
        name = m.module,
        conn = conn.join(", ")
    )
    .unwrap();
    v
}

/// The module whose reset of one register is removed: `newcar_base_proto` without `valid`'s
/// (its valid mask starts as the power-up left it). Zero-initialised it behaves as the real one;
/// with X randomisation its lockstep fails (`testbench/tests/x_random.rs`).
pub(crate) const PLANTED: &str = "planted_noreset_newcar_base_proto";
/// The module it is made from, and the reset assignment removed.
const PLANTED_FROM: (&str, &str) = ("newcar_base_proto", "valid__d = zero_e;");

/// The planted module's entry (with the ports of the one it is made from), if the manifest has
/// that one.
fn planted_missing_reset(manifest: &Manifest) -> Option<Module> {
    let from = manifest
        .modules
        .iter()
        .find(|m| m.module == PLANTED_FROM.0)?;
    Some(Module {
        module: PLANTED.into(),
        ..from.clone()
    })
}

/// The Verilog Verilator builds for `m`: its file with the registers' initial values removed
/// (every register then starts as Verilator's `--x-initial unique` sets it: zero, or random per
/// seed under X randomisation), and for [`PLANTED`] the one reset assignment removed too.
fn verilog_of(rtl: &Path, m: &Module) -> String {
    let text = fs::read_to_string(rtl.join(&m.file)).expect("read the module's Verilog");
    let text = without_register_initials(&text);
    if m.module != PLANTED {
        return text;
    }
    let (from, line) = PLANTED_FROM;
    let at = text.find("if (reset) begin").expect("a reset branch");
    let cut = at
        + text[at..]
            .find(line)
            .expect("the reset assignment to remove");
    let text = format!("{}{}", &text[..cut], &text[cut + line.len()..]);
    text.replace(from, PLANTED)
}

/// `verilog` without rust-hdl's register initial values: each DFF module's `initial begin q =
/// <width>'h0; end` (every register of the emitted modules starts at 0 that way; on a board
/// those that the reset does not set start unknown). Other `initial` blocks are kept.
fn without_register_initials(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    let mut lines = verilog.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "initial begin" {
            let mut block = vec![line];
            for next in lines.by_ref() {
                block.push(next);
                if next.trim() == "end" {
                    break;
                }
            }
            let register_init = block.len() == 3
                && block[1].trim().starts_with("q = ")
                && block[1].trim().ends_with("'h0;");
            if register_init {
                continue;
            }
            for l in block {
                out.push_str(l);
                out.push('\n');
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Verilator's arguments for every module (before its prefix, top and folder). Unknown values
/// (X assignments, registers without an initial value) are set by a function of the context's
/// `randReset` and seed: 0 by default, random per seed under X randomisation (the shim's
/// `gs_<m>_new`).
const VERILATOR_ARGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "unique",
    "--x-initial",
    "unique",
    "--trace",
    "--savable",
];

/// Verilates module `m` (`verilog`, under its top `wrapper`) into `mdir` as class `V<module>`.
fn verilate(verilator: &str, verilog: &str, wrapper: &str, m: &Module, mdir: &Path) {
    let _ = fs::remove_dir_all(mdir);
    fs::create_dir_all(mdir).expect("create the Verilator output directory");
    let top = format!("{}__tb", m.module);
    let top_file = mdir.join(format!("{top}.v"));
    fs::write(&top_file, wrapper).expect("write the Verilator top");
    let file = mdir.join(format!("{}.v", m.module));
    fs::write(&file, verilog).expect("write the module's Verilog");
    let class = format!("V{}", m.module);
    let status = Command::new(verilator)
        .args(VERILATOR_ARGS)
        .args(["--prefix", &class, "--top-module", &top, "-Mdir"])
        .arg(mdir)
        .arg(&top_file)
        .arg(&file)
        .status()
        .expect("verilator runs");
    assert!(status.success(), "verilator failed on {}", file.display());
}

fn inputs(m: &Module) -> impl Iterator<Item = &Port> {
    m.ports
        .iter()
        .filter(|p| p.dir == "input" && p.name != "clock" && p.name != "reset")
}

fn outputs(m: &Module) -> impl Iterator<Item = &Port> {
    m.ports.iter().filter(|p| p.dir == "output")
}

fn shim_for(m: &Module) -> String {
    let name = &m.module;
    let class = format!("V{name}");
    // Words: a port of w bits takes ceil(w / 64) 64-bit words, least significant first
    // (gpusim::block's flattening rule); Verilator holds ports over 64 bits as 32-bit words.
    let mut set_inputs = String::new();
    let mut i = 0;
    for p in inputs(m) {
        if p.width <= 64 {
            writeln!(set_inputs, "    h->top->{} = in[{i}];", p.name).unwrap();
        } else {
            for k in 0..p.width.div_ceil(32) as usize {
                writeln!(
                    set_inputs,
                    "    h->top->{}[{k}] = (uint32_t)(in[{}] >> {});",
                    p.name,
                    i + k / 2,
                    32 * (k % 2)
                )
                .unwrap();
            }
        }
        i += p.width.div_ceil(64) as usize;
    }
    let mut get_outputs = String::new();
    let mut i = 0;
    for p in outputs(m) {
        if p.width <= 64 {
            writeln!(get_outputs, "    out[{i}] = (uint64_t)h->top->{};", p.name).unwrap();
        } else {
            writeln!(get_outputs, "    out[{i}] = 0; out[{}] = 0;", i + 1).unwrap();
            for k in 0..p.width.div_ceil(32) as usize {
                writeln!(
                    get_outputs,
                    "    out[{}] |= (uint64_t)h->top->{}[{k}] << {};",
                    i + k / 2,
                    p.name,
                    32 * (k % 2)
                )
                .unwrap();
            }
        }
        i += p.width.div_ceil(64) as usize;
    }
    format!(
        r#"
#include "{class}.h"
namespace {{
struct H_{name} {{
    VerilatedContext* ctx;
    {class}* top;
    VerilatedVcdC* tfp;
    GsVcdFile* vf;
}};
}}
// A fresh model. `x_seed` 0: every register without a reset value starts at 0; otherwise at
// random values of that seed (X randomisation: what a board's power-up may leave).
extern "C" void* gs_{name}_new(uint64_t x_seed) {{
    H_{name}* h = new H_{name};
    h->ctx = new VerilatedContext;
    h->ctx->randReset(x_seed ? 2 : 0);
    h->ctx->randSeed((int)(x_seed & 0x7fffffff));
    h->ctx->traceEverOn(true);
    // Construction draws the initial values from the constructing thread's context.
    Verilated::threadContextp(h->ctx);
    h->top = new {class}(h->ctx, "{module}");
    h->tfp = nullptr;
    h->vf = nullptr;
    h->top->clock = 0;
    h->top->reset = 0;
    h->top->eval();
    return h;
}}
extern "C" void gs_{name}_free(void* p) {{
    H_{name}* h = (H_{name}*)p;
    if (h->tfp) {{ h->tfp->close(); delete h->tfp; delete h->vf; }}
    h->top->final();
    delete h->top;
    delete h->ctx;
    delete h;
}}
// One cycle: the inputs and the rising edge in one evaluation (the registers take what the
// previous cycle's inputs gave, the input registers this cycle's: wrapper_for in build.rs),
// read the (Mealy) outputs, clock low. Waveform times: 2*cycle-1 (the rising edge: the
// cycle's inputs applied, registers updated) and 2*cycle (clock low, the outputs compared).
extern "C" void gs_{name}_step(void* p, const uint64_t* in, uint64_t* out, int reset, uint64_t cycle) {{
    H_{name}* h = (H_{name}*)p;
    h->top->reset = reset ? 1 : 0;
{set_inputs}    h->top->clock = 1;
    h->top->eval();
{get_outputs}    if (h->tfp && cycle > 0) h->tfp->dump(2 * cycle - 1);
    h->top->clock = 0;
    h->top->eval();
    if (h->tfp) h->tfp->dump(2 * cycle);
}}
extern "C" int gs_{name}_trace_open(void* p, const char* path) {{
    H_{name}* h = (H_{name}*)p;
    if (h->tfp) return 1;
    h->vf = new GsVcdFile;
    h->tfp = new VerilatedVcdC(h->vf);
    h->top->trace(h->tfp, 99);
    h->tfp->open(path);
    return h->tfp->isOpen() ? 0 : 2;
}}
// Closes the VCD; the errno of its first failed write, 0 when every write went through.
extern "C" int gs_{name}_trace_close(void* p) {{
    H_{name}* h = (H_{name}*)p;
    int err = 0;
    if (h->tfp) {{
        h->tfp->close();
        err = h->vf->err;
        delete h->tfp;
        delete h->vf;
        h->tfp = nullptr;
        h->vf = nullptr;
    }}
    return err;
}}
// The whole state of the model, handed to `sink` in pieces.
extern "C" void gs_{name}_save(void* p, void* ctx, void (*sink)(void*, const uint8_t*, size_t)) {{
    H_{name}* h = (H_{name}*)p;
    MemSave os(ctx, sink);
    os << *h->top;
}}
// Restores a state written by gs_{name}_save of this module.
extern "C" void gs_{name}_restore(void* p, const uint8_t* data, size_t len) {{
    H_{name}* h = (H_{name}*)p;
    MemRestore is(data, len);
    is >> *h->top;
}}
"#,
        module = m.module,
    )
}

fn rust_table(modules: &[Module], available: bool) -> String {
    let mut s = String::from("// Generated by testbench/build.rs from rtl-out/manifest.json.\n");
    writeln!(
        s,
        "/// Whether this build has Verilated modules.\npub const VERILATOR_BUILT: bool = {available};"
    )
    .unwrap();
    if !modules.is_empty() {
        s.push_str("extern \"C\" {\n");
        for m in modules {
            let n = &m.module;
            writeln!(
                s,
                "    fn gs_{n}_new(x_seed: u64) -> *mut c_void;\n    fn gs_{n}_free(h: *mut c_void);\n    \
                 fn gs_{n}_step(h: *mut c_void, i: *const u64, o: *mut u64, reset: i32, cycle: u64);\n    \
                 fn gs_{n}_trace_open(h: *mut c_void, path: *const c_char) -> i32;\n    \
                 fn gs_{n}_trace_close(h: *mut c_void) -> i32;\n    \
                 fn gs_{n}_save(h: *mut c_void, ctx: *mut c_void, sink: SaveSink);\n    \
                 fn gs_{n}_restore(h: *mut c_void, data: *const u8, len: usize);"
            )
            .unwrap();
        }
        s.push_str("}\n");
    }
    let planted: Vec<String> = modules
        .iter()
        .filter(|m| m.module == PLANTED)
        .map(|m| format!("\"{}\"", m.module))
        .collect();
    writeln!(
        s,
        "/// Models with a planted bug, for the tests that show a check catches it.\n\
         pub const PLANTED_MODULES: &[&str] = &[{}];",
        planted.join(", ")
    )
    .unwrap();
    s.push_str("/// Every Verilated model of this build.\n");
    s.push_str("pub static MODULES: &[ModuleFns] = &[\n");
    for m in modules {
        let list = |ps: Vec<&Port>| {
            ps.iter()
                .map(|p| format!("(\"{}\", {})", p.name, p.width))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let n = &m.module;
        writeln!(
            s,
            "    ModuleFns {{ name: \"{n}\", inputs: &[{}], outputs: &[{}], \
             new: gs_{n}_new, free: gs_{n}_free, step: gs_{n}_step, \
             trace_open: gs_{n}_trace_open, trace_close: gs_{n}_trace_close, \
             save: gs_{n}_save, restore: gs_{n}_restore }},",
            list(inputs(m).collect()),
            list(outputs(m).collect()),
        )
        .unwrap();
    }
    s.push_str("];\n");
    s
}
