//! A sweep's results on disk, in its output directory:
//! - `sweep.json`: the spec (name, text and digest) and every point with its key;
//! - `points/<key>.json`: one result per point (its report, or the error that ended it), with a
//!   digest of its content, so a file damaged on disk is seen and the point run again.
//!
//! A point's key is the SHA-256 of everything that determines its result: the point (workload,
//! size, policy), the configuration's values, the run options, the trace files' contents and
//! the gpusched executable itself. An unchanged point is never simulated twice; any change
//! (a config value, a trace file, a rebuilt simulator) gives a new key.

use super::spec::{Point, Spec};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// Hex SHA-256 of the file at `path`, read in 1 MiB pieces.
pub fn file_sha256(path: &Path) -> Result<String> {
    let mut f =
        gpusim::input::open_regular(path).with_context(|| format!("reading {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:x}", h.finalize()))
}

/// The files of trace directory `dir` (every regular file, by name) with their SHA-256.
pub fn trace_digests(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut files = vec![];
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e.with_context(|| format!("reading {}", dir.display()))?;
        // Through symlinks: a linked trace file is keyed by what it points to.
        if std::fs::metadata(e.path())
            .with_context(|| format!("reading {}", e.path().display()))?
            .is_file()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            files.push((name, file_sha256(&e.path())?));
        }
    }
    files.sort();
    Ok(files)
}

/// The key of a point: SHA-256 of a canonical JSON document of what determines its result. A
/// trace counts by its files' contents, not by where it lies (the same trace reached by
/// another path has the same key).
pub fn point_key(
    point: &Point,
    config_json: &str,
    options: &str,
    exe: &str,
    traces: &[(String, String)],
) -> String {
    let doc = serde_json::json!({
        "gpusched": env!("CARGO_PKG_VERSION"),
        "executable": exe,
        "workload": {
            "kind": match point.workload {
                super::spec::Workload::Named { .. } => "named",
                super::spec::Workload::Trace { .. } => "trace",
            },
            "name": point.workload.name(),
            "size": point.workload.size(),
        },
        "policy": point.policy.name,
        "config": config_json,
        "options": options,
        "trace_files": traces,
    });
    sha256_hex(doc.to_string().as_bytes())
}

/// `sweep.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// The spec's name.
    pub name: String,
    /// SHA-256 of the spec's text.
    pub spec_digest: String,
    /// The spec's text.
    pub spec: String,
    /// Metrics to collect.
    pub metrics: Vec<String>,
    /// Every point and its key, in order.
    pub points: Vec<(Point, String)>,
}

impl Manifest {
    /// The manifest of `spec` with `keys`.
    pub fn new(spec: &Spec, keys: Vec<String>) -> Self {
        Self {
            name: spec.name.clone(),
            spec_digest: sha256_hex(spec.text.as_bytes()),
            spec: spec.text.clone(),
            metrics: spec.metrics.clone(),
            points: spec.points.iter().cloned().zip(keys).collect(),
        }
    }

    /// Reads `dir/sweep.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let p = dir.join("sweep.json");
        let text = std::fs::read_to_string(&p).with_context(|| {
            format!(
                "reading {} (is it a sweep's output directory?)",
                p.display()
            )
        })?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not a sweep manifest", p.display()))
    }

    /// Writes `dir/sweep.json`, refusing to replace the manifest of another spec unless `force`.
    pub fn write(&self, dir: &Path, force: bool) -> Result<()> {
        if dir.exists() && !dir.is_dir() {
            bail!("{}: exists and is not a directory", dir.display());
        }
        if let Ok(old) = Self::read(dir) {
            if old.spec_digest != self.spec_digest && !force {
                bail!(
                    "{} holds the results of another spec (`{}`); use another --out, or --force to add this one's beside them",
                    dir.display(),
                    old.name
                );
            }
        }
        std::fs::create_dir_all(dir.join("points"))
            .with_context(|| format!("creating {}", dir.join("points").display()))?;
        write_atomic(
            &dir.join("sweep.json"),
            &serde_json::to_string_pretty(self)?,
        )
    }
}

/// The result of one point.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PointResult {
    /// The point's key.
    pub key: String,
    /// The point.
    pub point: Point,
    /// The run's report (`gpusched sim --json`), when it completed.
    pub report: Option<serde_json::Value>,
    /// What ended it otherwise (deadlock, bad trace...).
    pub error: Option<String>,
    /// Wall time of the run, seconds (not part of the results table).
    pub seconds: f64,
    /// SHA-256 of the fields above (see [`PointResult::digest_of`]).
    pub digest: String,
}

impl PointResult {
    /// The run stopped at its `--max-cycles` before its workload finished (its figures
    /// describe part of the workload).
    pub fn truncated(&self) -> bool {
        self.report
            .as_ref()
            .is_some_and(|r| r.get("truncated").and_then(|t| t.as_bool()) == Some(true))
    }

    /// `failed`, `truncated` or `ok`.
    pub fn status(&self) -> &'static str {
        match (self.error.is_some(), self.truncated()) {
            (true, _) => "failed",
            (false, true) => "truncated",
            (false, false) => "ok",
        }
    }

    /// The result of `point` (key `key`): `report` or `error`, digested.
    pub fn new(
        key: String,
        point: Point,
        outcome: std::result::Result<serde_json::Value, String>,
        seconds: f64,
    ) -> Self {
        let (report, error) = match outcome {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e)),
        };
        let mut r = Self {
            key,
            point,
            report,
            error,
            seconds,
            digest: String::new(),
        };
        r.digest = r.digest_of();
        r
    }

    /// SHA-256 of the result's JSON with an empty digest.
    fn digest_of(&self) -> String {
        let mut copy = self.clone();
        copy.digest.clear();
        sha256_hex(
            serde_json::to_string(&copy)
                .expect("a result serializes")
                .as_bytes(),
        )
    }

    /// The file of the point with key `key` in `dir`.
    pub fn path(dir: &Path, key: &str) -> PathBuf {
        dir.join("points").join(format!("{key}.json"))
    }

    /// Reads the result of key `key` from `dir`: `Ok(None)` when absent, `Err` (with why)
    /// when the file is damaged (unreadable JSON, another key, a digest that does not match).
    pub fn read(dir: &Path, key: &str) -> Result<Option<Self>> {
        let p = Self::path(dir, key);
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("reading {}", p.display())),
        };
        let r: Self = serde_json::from_str(&text)
            .with_context(|| format!("{}: damaged (not a point result)", p.display()))?;
        if r.key != key || r.digest != r.digest_of() {
            bail!(
                "{}: damaged (its digest does not match its content)",
                p.display()
            );
        }
        Ok(Some(r))
    }

    /// Writes the result into `dir` (through a temporary file and a rename: a reader never
    /// sees half a file).
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_atomic(
            &Self::path(dir, &self.key),
            &serde_json::to_string_pretty(self)?,
        )
    }
}

/// Writes `text` to `path` through a temporary file of a name no other writer uses (host,
/// process, time, a counter: shards on several nodes share the directory) and a rename.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = path.with_extension(format!(
        "{}.{}.{nanos}.{}.tmp",
        host.trim(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::sweep::spec::{Policy, Workload};

    fn point() -> Point {
        Point {
            index: 0,
            workload: Workload::Named {
                name: "bfs".into(),
                size: "small".into(),
            },
            config: "gtx480".into(),
            policy: Policy {
                name: "gto".into(),
                args: String::new(),
            },
        }
    }

    /// Floats (IPCs, rates) read back exactly, so a result written is never taken for a
    /// damaged one and the collected table has the run's values bit for bit.
    #[test]
    fn a_result_reads_back_exactly_whatever_its_floats() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("points")).unwrap();
        for k in 0..2000u64 {
            let x = (k as f64 * 0.731 + 1.0) / 7.0 * 1.37e1 + (k as f64).sqrt() / 3.0;
            let report = serde_json::json!({ "ipc": x, "rate": 1.0 / (k as f64 + 3.0) });
            let key = format!("k{k}");
            let r = PointResult::new(key.clone(), point(), Ok(report), 0.5);
            r.write(dir.path()).unwrap();
            let back = PointResult::read(dir.path(), &key).unwrap().unwrap();
            assert_eq!(back, r, "{x}");
        }
    }

    #[test]
    fn a_damaged_or_misfiled_result_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("points")).unwrap();
        let r = PointResult::new("k".into(), point(), Err("deadlock".into()), 0.1);
        r.write(dir.path()).unwrap();
        assert_eq!(PointResult::read(dir.path(), "k").unwrap(), Some(r));
        assert_eq!(PointResult::read(dir.path(), "absent").unwrap(), None);
        let p = PointResult::path(dir.path(), "k");
        std::fs::copy(&p, PointResult::path(dir.path(), "other")).unwrap();
        let e = PointResult::read(dir.path(), "other").unwrap_err();
        assert!(format!("{e:#}").contains("damaged"), "{e:#}");
        std::fs::write(&p, "{ not json").unwrap();
        let e = PointResult::read(dir.path(), "k").unwrap_err();
        assert!(
            format!("{e:#}").contains("damaged (not a point result)"),
            "{e:#}"
        );
    }

    /// A trace is keyed by its files' contents wherever it lies, and through symlinks.
    #[test]
    fn a_trace_key_follows_contents_not_paths() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(a.join("kernel-1.traceg"), "one").unwrap();
        std::os::unix::fs::symlink(a.join("kernel-1.traceg"), b.join("kernel-1.traceg")).unwrap();
        let (da, db) = (trace_digests(&a).unwrap(), trace_digests(&b).unwrap());
        assert_eq!(da.len(), 1);
        assert_eq!(da, db);
        let at = |dir: &Path| Point {
            workload: Workload::Trace {
                name: "t".into(),
                dir: dir.to_path_buf(),
            },
            ..point()
        };
        let key = |p: &Point, d: &[(String, String)]| point_key(p, "{}", "opts", "exe", d);
        assert_eq!(key(&at(&a), &da), key(&at(&b), &db));
        std::fs::write(a.join("kernel-1.traceg"), "two").unwrap();
        let db2 = trace_digests(&b).unwrap();
        assert_ne!(key(&at(&b), &db2), key(&at(&b), &db));
    }
}
