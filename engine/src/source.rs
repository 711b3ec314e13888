//! A source file: its name, its text, the byte spans positions are kept as, and the byte offset
//! → line:column conversion that every message with a position goes through; the largest
//! resource accepted.

use std::sync::OnceLock;

use arcstr::ArcStr;

/// The largest resource accepted, as Zeebe's default maximum message size (4 MiB).
pub const MAX_RESOURCE_BYTES: usize = 4 * 1024 * 1024;

/// A half-open byte range `start..end` in the source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

/// A 1-based line and column. The column counts characters (Unicode scalar values), not bytes,
/// so it matches what editors show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// The name and text of one resource, with a line index built the first time a position is
/// asked for (a file that deploys cleanly never pays for it). The text is shared with the
/// resource it was read from, not copied.
#[derive(Debug)]
pub struct Source {
    name: String,
    text: ArcStr,
    line_starts: OnceLock<Vec<u32>>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<ArcStr>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }

    /// The name the resource was given (usually its path).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text itself, to keep beyond the source without a copy.
    pub fn shared_text(&self) -> &ArcStr {
        &self.text
    }

    /// The line and column of a byte offset. Offsets past the end map to the end of the text;
    /// an offset inside a multi-byte character maps to that character.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = (offset as usize).min(self.text.len());
        let starts = self.line_starts.get_or_init(|| line_starts(&self.text));
        // `starts[0] == 0`, so the partition point is at least 1.
        let line = starts.partition_point(|&start| start as usize <= offset);
        let line_start = starts[line - 1] as usize;
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[line_start..end].chars().count() + 1;
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }
}

fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = vec![0];
    starts.extend(
        text.bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| (i + 1) as u32),
    );
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_character_columns() {
        let source = Source::new("a.bpmn", "ab\ncdé\n\nx");
        let at = |offset| {
            let LineCol { line, col } = source.line_col(offset);
            (line, col)
        };
        assert_eq!(at(0), (1, 1));
        assert_eq!(at(2), (1, 3));
        assert_eq!(at(3), (2, 1));
        assert_eq!(at(5), (2, 3));
        // `é` is two bytes: the offset after it is column 4, the offset inside it column 3.
        assert_eq!(at(7), (2, 4));
        assert_eq!(at(6), (2, 3));
        assert_eq!(at(8), (3, 1));
        assert_eq!(at(9), (4, 1));
        assert_eq!(at(1000), (4, 2));
    }
}
