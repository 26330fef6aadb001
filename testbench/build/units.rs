//! The C++ of the Verilated models as *units* built and cached one by one: the Verilator
//! runtime, one unit per module and one per host bridge. A unit is Verilated and compiled into
//! its own static library under `target/verilated/<name>-<key>/`, the key a SHA-256 of
//! everything its objects come from (its Verilog and shim text, Verilator's and the C++
//! compiler's versions, the Verilator arguments and the compile flags), so a change rebuilds
//! only the units it touches. The units still to build are Verilated, then their files compiled,
//! largest first, on `NUM_JOBS` threads (cargo's `-j`), each beyond the first holding a token of
//! cargo's jobserver while it runs a job, so the build never runs more compilers than cargo allows.

use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
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

/// The relative cost of compiling a byte of `file`: `-O2` takes about four times as long as
/// `-O0` (measured on `la_tb_dispatch_base_fermi`'s unity files).
fn cost_per_byte(file: &Path) -> u64 {
    match opt_level_of(file) {
        COLD_OPT => 1,
        _ => 4,
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
pub(crate) fn unity(dir: &Path, src: &Sources) -> Vec<(u64, PathBuf)> {
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
                // Relative to the unity file, so that it still holds once the folder is
                // published under its key.
                .map(|f| {
                    format!(
                        "#include \"{}\"\n",
                        f.strip_prefix(dir).unwrap_or(f).display()
                    )
                })
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
        .flag("-w")
        .include(root.join("include"))
        .include(root.join("include/vltstd"));
    b
}

/// Links the C++ standard library the units need: its archive when the compiler has one (a
/// `gpusched` process then starts about a millisecond sooner: no shared library to load and
/// bind at each run, which short simulations feel), else the shared library.
pub(crate) fn link_cxx_runtime(root: &Path) {
    let cxx = cc_build(root, Path::new("."), HOT_OPT).get_compiler();
    let archive = Command::new(cxx.path())
        .arg("-print-file-name=libstdc++.a")
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_absolute() && p.is_file());
    match archive.as_deref().and_then(Path::parent) {
        Some(dir) => {
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static=stdc++");
        }
        None => println!("cargo:rustc-link-lib=stdc++"),
    }
}

/// What every unit's key shares: the compiler's command line at each optimisation level (as
/// [`cc_build`] makes it: the flags, not a description of them), the unity bound, and the
/// versions of the compiler and Verilator.
fn recipe(verilator: &str, root: &Path) -> Vec<u8> {
    let mut r = format!("unity {UNITY_BYTES}\n");
    for opt in [HOT_OPT, COLD_OPT] {
        let tool = cc_build(root, Path::new("."), opt).get_compiler();
        let _ = writeln!(r, "{:?} {:?}", tool.path(), tool.args());
    }
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

/// Cargo's jobserver, taken once. Call it first thing in the build script: `from_env` trusts
/// the descriptor numbers in the environment, which must not have been reused by files the
/// script opened since.
pub(crate) fn jobserver() -> Option<&'static jobserver::Client> {
    static CLIENT: OnceLock<Option<jobserver::Client>> = OnceLock::new();
    // SAFETY: see above; the first call happens before the script opens any file.
    CLIENT
        .get_or_init(|| unsafe { jobserver::Client::from_env() })
        .as_ref()
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
/// What each job of the build did, and when, is written to `dir/build-log.tsv`.
pub(crate) fn build(verilator: &str, root: &Path, dir: &Path, units: Vec<Unit>) {
    fs::create_dir_all(dir).expect("create the Verilated cache folder");
    let recipe = recipe(verilator, root);
    let folders: Vec<PathBuf> = units
        .iter()
        .map(|u| dir.join(folder_of(u, &recipe)))
        .collect();
    let todo: Vec<Pending> = units
        .iter()
        .zip(&folders)
        .filter(|(u, f)| !f.join(format!("lib{}.a", u.lib_name())).is_file())
        .map(|(unit, f)| {
            let staging = f.with_extension(format!("tmp{}", std::process::id()));
            let _ = fs::remove_dir_all(&staging);
            fs::create_dir_all(&staging).expect("create a unit's staging folder");
            Pending {
                unit,
                folder: f.clone(),
                staging,
                includes: OnceLock::new(),
                left: Mutex::new((0, vec![])),
            }
        })
        .collect();
    if !todo.is_empty() {
        let log = Pool::new(&todo, root).run();
        let _ = fs::write(dir.join("build-log.tsv"), log);
    }
    for (u, f) in units.iter().zip(&folders) {
        println!("cargo:rustc-link-search=native={}", f.display());
        println!("cargo:rustc-link-lib=static={}", u.lib_name());
    }
    prune(dir, &folders);
}

/// A unit being built.
struct Pending<'u, 'a> {
    unit: &'u Unit<'a>,
    /// Its cache folder, and the folder it is built in (renamed to the other when done).
    folder: PathBuf,
    staging: PathBuf,
    /// Its include folders, once its sources are written.
    includes: OnceLock<Vec<PathBuf>>,
    /// Its compiles still running or queued, and the objects of those done.
    left: Mutex<(usize, Vec<PathBuf>)>,
}

/// A job of the build.
enum Job {
    /// Write unit `i`'s sources (Verilate it).
    Make(usize),
    /// Compile a file of unit `i` (its bytes: the queue runs the costliest first).
    Compile(usize, u64, PathBuf),
}

/// The jobs of a build on `NUM_JOBS` threads (cargo's `-j`): Verilator runs first, each
/// queueing its unit's compiles, which run largest first; the last compile of a unit archives
/// and publishes it. The first thread runs on the build script's own token; each other one
/// takes a token of cargo's jobserver for each job it runs.
struct Pool<'p, 'u, 'a> {
    todo: &'p [Pending<'u, 'a>],
    root: &'p Path,
    queue: Mutex<Vec<Job>>,
    /// Jobs queued or running (the threads stop at 0).
    open: Mutex<usize>,
    /// Per job: thread, start and end (seconds from the pool's start), what it did.
    log: Mutex<Vec<(usize, f64, f64, String)>>,
    start: std::time::Instant,
    /// A job panicked (Verilator or the compiler failed).
    failed: AtomicBool,
}

impl<'p, 'u, 'a> Pool<'p, 'u, 'a> {
    fn new(todo: &'p [Pending<'u, 'a>], root: &'p Path) -> Self {
        Self {
            todo,
            root,
            // The largest unit is Verilated first.
            queue: Mutex::new({
                let mut make: Vec<usize> = (0..todo.len()).collect();
                make.sort_by_key(|&i| todo[i].unit.inputs.len());
                make.into_iter().map(Job::Make).collect()
            }),
            open: Mutex::new(todo.len()),
            log: Mutex::new(vec![]),
            start: std::time::Instant::now(),
            failed: AtomicBool::new(false),
        }
    }

    /// Runs every job; returns the log as TSV.
    fn run(self) -> String {
        let threads: usize = env::var("NUM_JOBS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let client = jobserver();
        std::thread::scope(|s| {
            for t in 0..threads.max(1) {
                let pool = &self;
                s.spawn(move || pool.work(t, client.filter(|_| t > 0)));
            }
        });
        assert!(
            !self.failed.into_inner(),
            "building the Verilated units failed (the first error is above)"
        );
        let mut log = self.log.into_inner().unwrap();
        log.sort_by(|a, b| a.1.total_cmp(&b.1));
        log.iter().fold(
            String::from("thread\tstart_s\tend_s\tjob\n"),
            |mut s, (t, a, b, what)| {
                let _ = writeln!(s, "{t}\t{a:.2}\t{b:.2}\t{what}");
                s
            },
        )
    }

    /// One thread: takes jobs (with a token from `client` for each) until none is left or one
    /// failed.
    fn work(&self, thread: usize, client: Option<&jobserver::Client>) {
        while *self.open.lock().unwrap() > 0 && !self.failed.load(Ordering::Relaxed) {
            let token = client.map(|c| c.acquire().expect("a jobserver token"));
            let Some(job) = self.queue.lock().unwrap().pop() else {
                // Only compiles of units still being Verilated are left.
                drop(token);
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            };
            let a = self.start.elapsed().as_secs_f64();
            let Ok(what) = panic::catch_unwind(AssertUnwindSafe(|| self.execute(job))) else {
                // Its message is printed; the other threads stop after their job.
                self.failed.store(true, Ordering::Relaxed);
                return;
            };
            let b = self.start.elapsed().as_secs_f64();
            drop(token);
            self.log.lock().unwrap().push((thread, a, b, what));
            *self.open.lock().unwrap() -= 1;
        }
    }

    /// Runs `job`; says what it did.
    fn execute(&self, job: Job) -> String {
        match job {
            Job::Make(i) => {
                let p = &self.todo[i];
                let src = (p.unit.make)(&p.staging);
                let files = unity(&p.staging, &src);
                p.includes.set(src.includes).expect("made once");
                p.left.lock().unwrap().0 = files.len();
                *self.open.lock().unwrap() += files.len();
                let mut q = self.queue.lock().unwrap();
                q.extend(files.into_iter().map(|(n, f)| Job::Compile(i, n, f)));
                // Verilator runs first, then the costliest compile (the queue pops its end).
                q.sort_by_key(|j| match j {
                    Job::Make(_) => (1, 0),
                    Job::Compile(_, n, f) => (0, n * cost_per_byte(f)),
                });
                format!("verilate {}", p.unit.name)
            }
            Job::Compile(i, bytes, f) => {
                let p = &self.todo[i];
                let mut b = cc_build(self.root, &p.staging.join("obj"), opt_level_of(&f));
                for (k, v) in p.unit.defines {
                    b.define(k, *v);
                }
                b.includes(p.includes.get().expect("made first")).file(&f);
                let objs = b.compile_intermediates();
                let done = {
                    let mut left = p.left.lock().unwrap();
                    left.0 -= 1;
                    left.1.extend(objs);
                    (left.0 == 0).then(|| std::mem::take(&mut left.1))
                };
                let what = format!("compile {} ({bytes} B)", f.display());
                match done {
                    Some(objs) => format!("{what}; archive {}", self.publish(p, objs)),
                    None => what,
                }
            }
        }
    }

    /// Archives unit `p`'s objects and publishes its folder (another build may have done it
    /// meanwhile); returns its name.
    fn publish(&self, p: &Pending, mut objs: Vec<PathBuf>) -> String {
        objs.sort();
        cc_build(self.root, &p.staging, HOT_OPT)
            .objects(objs)
            .compile(&p.unit.lib_name());
        // The library holds them.
        let _ = fs::remove_dir_all(p.staging.join("obj"));
        if fs::rename(&p.staging, &p.folder).is_err() {
            let _ = fs::remove_dir_all(&p.staging);
        }
        p.unit.name.clone()
    }
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
