//! The C++ of the Verilated models as *units* built and cached one by one: the Verilator
//! runtime, one unit per module and one per host bridge. A unit is Verilated and compiled into
//! its own static library under `target/verilated/<name>-<key>/`, the key a SHA-256 of
//! everything its objects come from (its Verilog and shim text, Verilator's and the C++
//! compiler's versions, the Verilator arguments and the compile flags), so a change rebuilds
//! only the units it touches. The units still to build are Verilated, then their files compiled,
//! largest first, on `NUM_JOBS` threads (cargo's `-j`), each beyond the first holding a token of
//! cargo's jobserver while it runs a job, so the build never runs more compilers than cargo allows.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::{env, fs};

/// Optimisation of the code that runs every cycle.
const HOT_OPT: u32 = 2;
/// Optimisation of Verilator's cold code (see [`opt_level_of`]).
const COLD_OPT: u32 = 0;

/// What a unit compiles: its C++ files and the folders they include from (besides
/// Verilator's own headers).
pub(crate) struct Sources {
    /// Files, each compiled at [`opt_level_of`]'s level.
    pub files: Vec<PathBuf>,
    /// Include folders.
    pub includes: Vec<PathBuf>,
    /// Whether the files may be compiled together ([`unity`]; Verilated models' can, as
    /// Verilator's own `__ALL.cpp` does).
    pub unity: bool,
}

/// Writes a unit's sources into the folder it is given (runs Verilator, writes the shim).
pub(crate) type Make<'a> = Box<dyn Fn(&Path) -> Sources + Send + Sync + 'a>;

/// One piece of the library: built once per key, linked as `lib<lib_name>.a`.
pub(crate) struct Unit<'a> {
    /// Its name (a module's, `runtime`, `bridge_<module>`): the cache folder's and the
    /// library's.
    pub name: String,
    /// Everything its objects come from besides the shared recipe: Verilog, shim and
    /// generated top texts, Verilator arguments.
    pub inputs: Vec<u8>,
    /// Preprocessor definitions of every file.
    pub defines: &'static [(&'static str, &'static str)],
    /// Writes its sources.
    pub make: Make<'a>,
}

impl Unit<'_> {
    /// The static library's name (`-l static=<it>`).
    pub(crate) fn lib_name(&self) -> String {
        format!("gs_{}", self.name)
    }
}

/// The optimisation level of a Verilated file: Verilator's cold code (its `__Slow` files:
/// construction, the initial settle, tracing's declarations and full dumps, snapshot save and
/// restore, run once or every `SNAPSHOT_INTERVAL` cycles) and the per-cycle dumps of tracing (its
/// `__Trace__<n>` files, which run only while a waveform is open: a short window after a
/// mismatch, or `--vcd`) at `-O0`, which compiles about 15x faster (measured on
/// `la_tb_dispatch_base_fermi`'s two largest cold files: 135 s at `-O2`, 9 s at `-O0`) and is more
/// than half of the C++; the rest at `-O2`.
pub(crate) fn opt_level_of(file: &Path) -> u32 {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    match stem.ends_with("__Slow") || stem.contains("__Trace__") {
        true => COLD_OPT,
        false => HOT_OPT,
    }
}

/// The `.cpp` files of a Verilated model's folder (`--cc` output), in name order.
pub(crate) fn model_files(mdir: &Path) -> Vec<PathBuf> {
    let mut cpps: Vec<PathBuf> = fs::read_dir(mdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    cpps.sort();
    cpps
}

/// Source bytes a unity file gathers at most (a larger file is compiled alone).
const UNITY_BYTES: u64 = 1 << 20;

/// The files to compile for `src`, written into `dir`: when `src.unity`, per optimisation
/// level its files in name order gathered into files of at most [`UNITY_BYTES`] that include
/// them (each compile of a Verilated file spends about 0.6 s on Verilator's headers: a `proto`
/// module's nine files take 7.5 s one by one, 2.1 s as two unity files); otherwise its files.
/// Each with the bytes it compiles.
fn unity(dir: &Path, src: &Sources) -> Vec<(u64, PathBuf)> {
    let len = |f: &Path| fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    if !src.unity {
        return src.files.iter().map(|f| (len(f), f.clone())).collect();
    }
    let mut out = vec![];
    for opt in [HOT_OPT, COLD_OPT] {
        let mut chunks: Vec<(u64, Vec<&Path>)> = vec![];
        for f in src.files.iter().filter(|f| opt_level_of(f) == opt) {
            let len = len(f);
            match chunks.last_mut() {
                Some((n, fs)) if *n + len <= UNITY_BYTES => {
                    *n += len;
                    fs.push(f);
                }
                _ => chunks.push((len, vec![f])),
            }
        }
        for (k, (bytes, files)) in chunks.iter().enumerate() {
            let text: String = files
                .iter()
                .map(|f| format!("#include \"{}\"\n", f.display()))
                .collect();
            // The name keeps the level `opt_level_of` reads from it.
            let cold = if opt == COLD_OPT { "__Slow" } else { "" };
            let path = dir.join(format!("unity_{k}{cold}.cpp"));
            fs::write(&path, text).expect("write a unity file");
            out.push((*bytes, path));
        }
    }
    out
}

/// A C++ build with the flags every unit shares: no debug information, C++17, no warnings,
/// Verilator's include folders (`root`), objects into `out`.
fn cc_build(root: &Path, out: &Path, opt: u32) -> cc::Build {
    let mut b = cc::Build::new();
    b.out_dir(out)
        .cargo_metadata(false)
        .debug(false)
        .cpp(true)
        .std("c++17")
        .opt_level(opt)
        .warnings(false)
        .flag_if_supported("-w")
        .include(root.join("include"))
        .include(root.join("include/vltstd"));
    b
}

/// What every unit's key shares: the compile flags above, the compiler's identity and
/// Verilator's version.
fn recipe(verilator: &str, root: &Path) -> Vec<u8> {
    let mut r =
        format!("c++17 -w no-debug hot -O{HOT_OPT} cold -O{COLD_OPT} unity {UNITY_BYTES}\n");
    let compiler = cc_build(root, Path::new("."), HOT_OPT).get_compiler();
    for (what, mut cmd) in [
        ("c++", Command::new(compiler.path())),
        ("verilator", Command::new(verilator)),
    ] {
        if let Ok(o) = cmd.arg("--version").output() {
            let _ = writeln!(r, "{what}: {}", String::from_utf8_lossy(&o.stdout));
        }
    }
    r.into_bytes()
}

/// The cache folder name of `unit`: its name and the first 12 bytes of its key in hex.
fn folder_of(unit: &Unit, recipe: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(recipe);
    h.update(unit.name.as_bytes());
    for (k, v) in unit.defines {
        h.update(format!("-D{k}={v}\n"));
    }
    h.update(&unit.inputs);
    let key = h.finalize()[..12].iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    format!("{}-{key}", unit.name)
}

/// Builds the `units` not yet in `dir` (Verilator's headers from `root`) and prints the link
/// lines of all, in their order (a unit may use the ones after it: the runtime goes last).
pub(crate) fn build(verilator: &str, root: &Path, dir: &Path, units: Vec<Unit>) {
    fs::create_dir_all(dir).expect("create the Verilated cache folder");
    let recipe = recipe(verilator, root);
    let folders: Vec<PathBuf> = units
        .iter()
        .map(|u| dir.join(folder_of(u, &recipe)))
        .collect();
    let todo: Vec<(&Unit, PathBuf, PathBuf)> = units
        .iter()
        .zip(&folders)
        .filter(|(u, f)| !f.join(format!("lib{}.a", u.lib_name())).is_file())
        .map(|(u, f)| {
            let staging = f.with_extension(format!("tmp{}", std::process::id()));
            let _ = fs::remove_dir_all(&staging);
            fs::create_dir_all(&staging).expect("create a unit's staging folder");
            (u, f.clone(), staging)
        })
        .collect();
    // Verilate (or write) every unit's sources, then compile every file, largest first.
    let sources = parallel(
        todo.iter()
            .map(|(u, _, staging)| move || (u.make)(staging))
            .collect(),
    );
    let mut files: Vec<(u64, usize, PathBuf)> = sources
        .iter()
        .zip(&todo)
        .enumerate()
        .flat_map(|(i, (s, (_, _, staging)))| {
            unity(staging, s).into_iter().map(move |(n, f)| (n, i, f))
        })
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    let objects = parallel(
        files
            .iter()
            .map(|(_, i, f)| {
                let (unit, _, staging) = &todo[*i];
                let includes = &sources[*i].includes;
                move || {
                    let mut b = cc_build(root, &staging.join("obj"), opt_level_of(f));
                    for (k, v) in unit.defines {
                        b.define(k, *v);
                    }
                    b.includes(includes).file(f);
                    (*i, b.compile_intermediates())
                }
            })
            .collect(),
    );
    for (i, (unit, folder, staging)) in todo.iter().enumerate() {
        let mut objs: Vec<PathBuf> = objects
            .iter()
            .filter(|(j, _)| *j == i)
            .flat_map(|(_, o)| o.iter().cloned())
            .collect();
        objs.sort();
        cc_build(root, staging, HOT_OPT)
            .objects(objs)
            .compile(&unit.lib_name());
        // The library holds them.
        let _ = fs::remove_dir_all(staging.join("obj"));
        // Publish it (another build may have done it meanwhile).
        if fs::rename(staging, folder).is_err() {
            let _ = fs::remove_dir_all(staging);
        }
    }
    for (u, f) in units.iter().zip(&folders) {
        println!("cargo:rustc-link-search=native={}", f.display());
        println!("cargo:rustc-link-lib=static={}", u.lib_name());
    }
    prune(dir, &folders);
}

/// Runs `jobs` on up to `NUM_JOBS` threads and returns their results in order. The first
/// thread runs on the build script's own token; each other one takes a token of cargo's
/// jobserver for each job it runs.
fn parallel<T: Send, F: FnOnce() -> T + Send>(jobs: Vec<F>) -> Vec<T> {
    let threads: usize = env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    static CLIENT: std::sync::OnceLock<Option<jobserver::Client>> = std::sync::OnceLock::new();
    // SAFETY: taken once, before this script opens any file descriptor of its own that the
    // jobserver's inherited ones could be confused with.
    let client = CLIENT.get_or_init(|| unsafe { jobserver::Client::from_env() });
    let n = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new((0..n).map(|_| None).collect::<Vec<Option<T>>>());
    std::thread::scope(|s| {
        for t in 0..threads.clamp(1, n.max(1)) {
            let (queue, results) = (&queue, &results);
            s.spawn(move || loop {
                let token = match (t, client) {
                    (0, _) | (_, None) => None,
                    (_, Some(c)) => Some(c.acquire().expect("a jobserver token")),
                };
                // Take the next job only once a token is held.
                let Some((i, job)) = ({
                    let mut q = queue.lock().unwrap();
                    (!q.is_empty()).then(|| q.remove(0))
                }) else {
                    return;
                };
                let r = job();
                drop(token);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Removes from `dir` the unit folders of earlier builds (each a few to tens of MB): per unit
/// name, all but the ones in `keep` and the newest other finished folder; the folders of the
/// whole-library cache this one replaced; a staging folder only once it is an hour old (a
/// build that was interrupted, not one running beside this one).
fn prune(dir: &Path, keep: &[PathBuf]) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let name_of = |p: &Path| -> String {
        let f = p.file_name().unwrap_or_default().to_string_lossy();
        f.rsplit_once('-')
            .map(|(n, _)| n.to_string())
            .unwrap_or_default()
    };
    let staging = |p: &Path| {
        p.extension()
            .is_some_and(|x| x.to_string_lossy().starts_with("tmp"))
    };
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| !keep.contains(p))
        .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    others.sort();
    let now = std::time::SystemTime::now();
    let mut seen = std::collections::BTreeSet::new();
    for (modified, p) in others.into_iter().rev() {
        let young = now
            .duration_since(modified)
            .is_ok_and(|age| age.as_secs() < 3600);
        let newest_of_name = !staging(&p) && !name_of(&p).is_empty() && seen.insert(name_of(&p));
        if newest_of_name || (staging(&p) && young) {
            continue;
        }
        let _ = fs::remove_dir_all(&p);
    }
}
