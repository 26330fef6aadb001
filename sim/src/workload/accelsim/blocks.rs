//! Which thread blocks of a kernel trace were read, and where. Every reader that goes through
//! a whole kernel (`sim` through the trace kernel, `trace info`, the analyses, `bench`) checks
//! with one [`BlockSet`] that each block of the grid is listed exactly once, so they accept and
//! refuse the same traces with the same messages.

use super::TraceError;
use crate::workload::Dim3;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The thread blocks of one kernel trace read so far, each with the line of its `#BEGIN_TB`.
#[derive(Clone, Debug)]
pub struct BlockSet {
    file: PathBuf,
    grid: Dim3,
    /// Grid index -> line of its `#BEGIN_TB`.
    lines: HashMap<u64, usize>,
}

impl BlockSet {
    /// No block read yet of the trace `file`, whose grid is `grid`.
    pub fn new(file: &Path, grid: Dim3) -> Self {
        Self {
            file: file.to_path_buf(),
            grid,
            lines: HashMap::new(),
        }
    }

    /// Records block `id` (inside the grid, as the reader checks), whose `#BEGIN_TB` is at
    /// `line`; a block read before is an error naming both lines.
    pub fn add(&mut self, id: Dim3, line: usize) -> Result<(), TraceError> {
        match self.lines.insert(self.grid.linear(id), line) {
            None => Ok(()),
            Some(first) => {
                self.lines.insert(self.grid.linear(id), first);
                Err(TraceError::Invalid {
                    file: self.file.clone(),
                    line,
                    message: format!(
                        "thread block {id} appears twice in the trace (first at line {first})"
                    ),
                })
            }
        }
    }

    /// Every block of the grid has been read (any further block is listed twice).
    pub fn complete(&self) -> bool {
        self.lines.len() as u64 == self.grid.volume()
    }

    /// Blocks read so far.
    pub fn len(&self) -> u64 {
        self.lines.len() as u64
    }

    /// No block read yet.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The error for block `linear` of the grid, which the file (of `last_line` lines) does
    /// not list.
    pub fn missing(&self, linear: u64, last_line: usize) -> TraceError {
        TraceError::Invalid {
            file: self.file.clone(),
            line: last_line.max(1),
            message: format!(
                "the trace ends without thread block {} of the grid {} ({} of {} blocks listed)",
                self.grid.unlinear(linear),
                self.grid,
                self.len(),
                self.grid.volume()
            ),
        }
    }

    /// At the end of the file (of `last_line` lines): an error naming the first block of the
    /// grid that was not listed, if any.
    pub fn finish(&self, last_line: usize) -> Result<(), TraceError> {
        if self.complete() {
            return Ok(());
        }
        let absent = (0..self.grid.volume())
            .find(|b| !self.lines.contains_key(b))
            .unwrap_or(0);
        Err(self.missing(absent, last_line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_once_and_every_block_by_the_end() {
        let grid = Dim3 { x: 2, y: 2, z: 1 };
        let mut s = BlockSet::new(Path::new("k.traceg"), grid);
        s.add(Dim3 { x: 1, y: 0, z: 0 }, 12).unwrap();
        let e = s
            .add(Dim3 { x: 1, y: 0, z: 0 }, 40)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "k.traceg:40: thread block (1,0,0) appears twice in the trace (first at line 12)"
        );
        // The first place is kept.
        let e = s
            .add(Dim3 { x: 1, y: 0, z: 0 }, 50)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("(first at line 12)"), "{e}");
        s.add(Dim3 { x: 0, y: 0, z: 0 }, 60).unwrap();
        assert!(!s.complete());
        let e = s.finish(70).unwrap_err().to_string();
        assert_eq!(
            e,
            "k.traceg:70: the trace ends without thread block (0,1,0) of the grid (2,2,1) \
             (2 of 4 blocks listed)"
        );
        s.add(Dim3 { x: 0, y: 1, z: 0 }, 80).unwrap();
        s.add(Dim3 { x: 1, y: 1, z: 0 }, 90).unwrap();
        assert!(s.complete() && s.finish(99).is_ok());
    }
}
