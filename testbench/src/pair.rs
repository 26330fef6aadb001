//! A mismatch's two waveforms as one file a viewer opens in one window, and a GTKWave save
//! file for it.
//!
//! GTKWave shows one dump file per window, so [`write_pair`] merges `<name>.golden.vcd` and
//! `<name>.rtl.vcd` into `<name>.pair.vcd`: the golden waveform under the top scope `golden`,
//! the RTL one under `rtl`, with the time base they share (time `2c - 1`: the rising edge that
//! starts cycle `c`, its inputs applied and registers updated; `2c`: clock low, cycle `c`'s
//! inputs and the outputs compared). Vectors without a
//! range (the golden model's, and the port-level RTL waveform of a board run) get the
//! `[msb:0]` range Verilator writes, so a port has the same name under both scopes.
//!
//! `<name>.gtkw` opens the pair with the clock, then the outputs (those that differ first),
//! then the inputs, each port as its golden trace above its RTL trace, and the cursor at time
//! `2c` of the mismatching cycle `c`, where the compared values are shown. The RTL model's
//! internal signals and the golden model's `state` scope are in the file for the signal tree.

use crate::TbError;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use vcd::{Command, Header, IdCode, ReferenceIndex, Scope, ScopeItem, ScopeType, Writer};

/// The files [`write_pair`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairFiles {
    /// Both waveforms, scopes `golden` and `rtl`.
    pub vcd: PathBuf,
    /// The GTKWave save file.
    pub gtkw: PathBuf,
}

/// What the save file shows: the scope holding the ports in each waveform, the mismatching
/// cycle, the output and input port names, and which outputs differ.
#[derive(Clone, Debug)]
pub struct PairView<'a> {
    /// Scope of the ports in the golden waveform (the lockstep pair's name).
    pub golden_scope: &'a str,
    /// Scope of the ports in the RTL waveform (the Verilated module's name).
    pub rtl_scope: &'a str,
    /// Cycle of the mismatch (the cursor goes to time `2 * cycle`).
    pub cycle: u64,
    /// Output ports, in port order.
    pub outputs: &'a [String],
    /// Input ports, in port order.
    pub inputs: &'a [String],
    /// Outputs whose values differ at the mismatch.
    pub differing: &'a [String],
}

/// Merges `golden` and `rtl` into `<stem>.pair.vcd` beside them and writes `<stem>.gtkw`
/// (module documentation), `stem` being the golden file's name without `.golden.vcd`.
pub fn write_pair(golden: &Path, rtl: &Path, view: &PairView) -> Result<PairFiles, TbError> {
    let dir = golden.parent().unwrap_or(Path::new("."));
    let file = golden
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("waveform.golden.vcd");
    let stem = file.strip_suffix(".golden.vcd").unwrap_or(file);
    let files = PairFiles {
        vcd: dir.join(format!("{stem}.pair.vcd")),
        gtkw: dir.join(format!("{stem}.gtkw")),
    };
    let mut next = IdCode::FIRST;
    let (g_header, g_events) = read(golden, &mut next, true)?;
    let (r_header, r_events) = read(rtl, &mut next, true)?;
    let widths = port_widths(&g_header, view.golden_scope);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| TbError::Io { path, source }
    };
    let mut w = Writer::new(BufWriter::new(
        File::create(&files.vcd).map_err(io(&files.vcd))?,
    ));
    write_vcd(&mut w, (g_header, g_events), (r_header, r_events)).map_err(io(&files.vcd))?;
    w.flush().map_err(io(&files.vcd))?;
    std::fs::write(&files.gtkw, gtkw(&files.vcd, view, &widths)).map_err(io(&files.gtkw))?;
    Ok(files)
}

/// One change at a time: (time, command with its id code already renumbered).
type Events = Vec<(u64, Command)>;

/// Parses `path`, renumbering its id codes from `next` on (so the two files' codes do not
/// collide; aliases stay aliases). With `ranges`, vectors without an index get `[msb:0]`.
fn read(path: &Path, next: &mut IdCode, ranges: bool) -> Result<(Header, Events), TbError> {
    let bad = |what: String| TbError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, what),
    };
    let f = File::open(path).map_err(|source| TbError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut p = vcd::Parser::new(BufReader::new(f));
    let mut header = p.parse_header().map_err(|e| bad(e.to_string()))?;
    let mut codes = HashMap::new();
    renumber(&mut header.items, &mut codes, next, ranges);
    let mut events = vec![];
    let mut time = 0;
    for cmd in p {
        let cmd = cmd.map_err(|e| bad(e.to_string()))?;
        let code = |c: &IdCode| {
            codes
                .get(c)
                .copied()
                .ok_or_else(|| bad(format!("value change of undeclared id code {c}")))
        };
        let cmd = match cmd {
            Command::Timestamp(t) => {
                time = t;
                continue;
            }
            Command::ChangeScalar(c, v) => Command::ChangeScalar(code(&c)?, v),
            Command::ChangeVector(c, v) => Command::ChangeVector(code(&c)?, v),
            Command::ChangeReal(c, v) => Command::ChangeReal(code(&c)?, v),
            Command::ChangeString(c, v) => Command::ChangeString(code(&c)?, v),
            _ => continue,
        };
        events.push((time, cmd));
    }
    Ok((header, events))
}

fn renumber(
    items: &mut [ScopeItem],
    codes: &mut HashMap<IdCode, IdCode>,
    next: &mut IdCode,
    ranges: bool,
) {
    for item in items {
        match item {
            ScopeItem::Scope(s) => renumber(&mut s.items, codes, next, ranges),
            ScopeItem::Var(v) => {
                v.code = *codes.entry(v.code).or_insert_with(|| {
                    let c = *next;
                    *next = next.next();
                    c
                });
                if ranges && v.size > 1 && v.index.is_none() {
                    v.index = Some(ReferenceIndex::Range(v.size as i32 - 1, 0));
                }
            }
            _ => {}
        }
    }
}

/// Port name -> width, from the variables directly in scope `module` of the golden header.
fn port_widths(h: &Header, module: &str) -> HashMap<String, u32> {
    h.find_scope(&[module])
        .map(|s| {
            s.items
                .iter()
                .filter_map(|i| match i {
                    ScopeItem::Var(v) => Some((v.reference.clone(), v.size)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn write_vcd(
    w: &mut Writer<BufWriter<File>>,
    (golden, g_events): (Header, Events),
    (rtl, r_events): (Header, Events),
) -> std::io::Result<()> {
    w.version("gpusched lockstep: golden and RTL waveforms of one mismatch")?;
    if let Some((n, unit)) = golden.timescale.or(rtl.timescale) {
        w.timescale(n, unit)?;
    }
    for (name, header) in [("golden", golden), ("rtl", rtl)] {
        let mut scope = Scope::new(ScopeType::Module, name.into());
        scope.items = header.items;
        w.scope(&scope)?;
    }
    w.enddefinitions()?;
    // Both lists are in time order: merge them, golden first at equal times.
    let mut events = g_events;
    events.extend(r_events);
    events.sort_by_key(|(t, _)| *t);
    let mut at = None;
    for (t, cmd) in events {
        if at != Some(t) {
            w.timestamp(t)?;
            at = Some(t);
        }
        match cmd {
            Command::ChangeScalar(c, v) => w.change_scalar(c, v)?,
            Command::ChangeVector(c, v) => w.change_vector(c, v.iter())?,
            Command::ChangeReal(c, v) => w.change_real(c, v)?,
            Command::ChangeString(c, v) => w.change_string(c, &v)?,
            _ => {}
        }
    }
    Ok(())
}

/// The GTKWave save file (module documentation).
fn gtkw(vcd: &Path, view: &PairView, widths: &HashMap<String, u32>) -> String {
    let abs = std::fs::canonicalize(vcd).unwrap_or_else(|_| vcd.to_path_buf());
    let cursor = 2 * view.cycle;
    let mut s = format!(
        "[*] gpusched: {} mismatch at cycle {} (cursor at time {cursor}: the compared values)\n\
         [dumpfile] \"{}\"\n[timestart] {}\n[treeopen] golden.\n[treeopen] rtl.\n\
         *-3.000000 {cursor}{}\n",
        view.golden_scope,
        view.cycle,
        abs.display(),
        (2 * view.cycle).saturating_sub(32),
        " -1".repeat(26),
    );
    let name = |top: &str, port: &str| {
        let w = widths.get(port).copied().unwrap_or(1);
        let range = if w > 1 {
            format!("[{}:0]", w - 1)
        } else {
            String::new()
        };
        let scope = if top == "golden" {
            view.golden_scope
        } else {
            view.rtl_scope
        };
        format!("{top}.{scope}.{port}{range}")
    };
    let pair = |s: &mut String, port: &str| {
        let flag = if widths.get(port).copied().unwrap_or(1) > 1 {
            "@22"
        } else {
            "@28"
        };
        s.push_str(&format!(
            "{flag}\n{}\n{}\n",
            name("golden", port),
            name("rtl", port)
        ));
    };
    s.push_str(&format!("@28\n{}\n", name("golden", "clock")));
    let group = |s: &mut String, title: &str, ports: Vec<&String>| {
        s.push_str(&format!("@800200\n-{title}\n"));
        for p in ports {
            pair(s, p);
        }
        s.push_str(&format!("@1000200\n-{title}\n"));
    };
    let (differ, same): (Vec<&String>, Vec<&String>) = view
        .outputs
        .iter()
        .partition(|p| view.differing.contains(p));
    group(&mut s, "outputs that differ (golden over rtl)", differ);
    group(&mut s, "other outputs", same);
    group(&mut s, "inputs", view.inputs.iter().collect());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: &str = "$timescale 1ps $end\n$scope module m $end\n\
        $var wire 1 ! clock $end\n$var wire 4 \" a $end\n$var wire 1 # y $end\n\
        $upscope $end\n$enddefinitions $end\n#0\n0!\nb0011 \"\n1#\n#1\n1!\n#2\n0!\nb0100 \"\n#3\n1!\n";
    const RTL: &str = "$timescale 1ps $end\n$scope module m $end\n\
        $var wire 1 ! clock $end\n$var wire 4 \" a [3:0] $end\n$var wire 1 # y $end\n\
        $var wire 1 # y_alias $end\n$upscope $end\n$enddefinitions $end\n\
        #0\n0!\nb0011 \"\n1#\n#1\n1!\n#2\n0!\nb0100 \"\n0#\n#3\n1!\n";

    #[test]
    fn the_pair_holds_both_waveforms_and_the_save_file_points_at_the_mismatch() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("m.golden.vcd");
        let r = dir.path().join("m.rtl.vcd");
        std::fs::write(&g, GOLDEN).unwrap();
        std::fs::write(&r, RTL).unwrap();
        let outputs = vec!["y".to_string()];
        let inputs = vec!["a".to_string()];
        let view = PairView {
            golden_scope: "m",
            rtl_scope: "m",
            cycle: 1,
            outputs: &outputs,
            inputs: &inputs,
            differing: &outputs,
        };
        let files = write_pair(&g, &r, &view).unwrap();
        assert_eq!(files.vcd, dir.path().join("m.pair.vcd"));
        // Parse the pair back: both scopes, distinct codes, y differs at time 2 only.
        let mut p = vcd::Parser::new(BufReader::new(File::open(&files.vcd).unwrap()));
        let h = p.parse_header().unwrap();
        let gy = h.find_var(&["golden", "m", "y"]).unwrap().code;
        let ry = h.find_var(&["rtl", "m", "y"]).unwrap().code;
        let alias = h.find_var(&["rtl", "m", "y_alias"]).unwrap().code;
        assert_ne!(gy, ry);
        assert_eq!(ry, alias);
        let ga = h.find_var(&["golden", "m", "a"]).unwrap();
        assert_eq!(ga.index, Some(ReferenceIndex::Range(3, 0)));
        let (mut t, mut y) = (0, HashMap::new());
        let mut at2 = None;
        for c in p {
            match c.unwrap() {
                Command::Timestamp(x) => t = x,
                Command::ChangeScalar(c, v) => {
                    y.insert(c, v);
                }
                _ => {}
            }
            if t == 2 {
                at2 = Some((y.get(&gy).copied(), y.get(&ry).copied()));
            }
        }
        assert_eq!(
            at2,
            Some((Some(vcd::Value::V1), Some(vcd::Value::V0))),
            "golden y stays 1, rtl y falls at time 2"
        );
        let save = std::fs::read_to_string(&files.gtkw).unwrap();
        assert!(save.contains("[dumpfile] \""), "{save}");
        assert!(save.contains("*-3.000000 2 -1"), "{save}");
        let lines: Vec<&str> = save.lines().collect();
        let gpos = lines.iter().position(|l| *l == "golden.m.y").unwrap();
        assert_eq!(lines[gpos + 1], "rtl.m.y", "{save}");
        assert!(lines.contains(&"golden.m.a[3:0]") && lines.contains(&"rtl.m.a[3:0]"));
    }
}
