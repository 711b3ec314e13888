//! Text in the picture: escaping, coordinates, labels wrapped to their box.

use std::fmt::{self, Write};

use super::super::diagram::Shape;
use super::{Canvas, LINE_HEIGHT};

/// Escapes text for XML/HTML content and attribute values.
pub fn escape(text: &str) -> Escaped<'_> {
    Escaped(text)
}

/// See [`escape`].
pub struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..i])?;
            f.write_str(match rest.as_bytes()[i] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[i + 1..];
        }
        f.write_str(rest)
    }
}

/// A coordinate: at most two decimals, no trailing zeros (`152`, `152.5`).
pub(super) struct N(pub(super) f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = (self.0 * 100.0).round() / 100.0;
        // -0 prints as 0.
        write!(f, "{}", if v == 0.0 { 0.0 } else { v })
    }
}

/// The label of an event, gateway or data shape: in its label bounds, or centred below it.
pub(super) fn label_outside(c: &mut Canvas, s: &Shape, color: &str) {
    let [x, y, w, h] = s.bounds;
    match s.label {
        // Modelers size these bounds to the text wrapped at 90 px; wrapping to the same width
        // (centred on the bounds) keeps their lines even where this width estimate is off.
        Some([lx, ly, lw, _]) => {
            let width = lw.max(90.0);
            label_in(
                c,
                s.name.as_deref(),
                lx + lw / 2.0 - width / 2.0,
                ly,
                width,
                4,
                color,
                true,
            )
        }
        None => label_in(
            c,
            s.name.as_deref(),
            x + w / 2.0 - 45.0,
            y + h + 5.0,
            90.0,
            4,
            color,
            true,
        ),
    }
}

/// Text wrapped to `width`, its first line at the top of the box.
#[allow(clippy::too_many_arguments)]
pub(super) fn label_in(
    c: &mut Canvas,
    text: Option<&str>,
    x: f64,
    y: f64,
    width: f64,
    max_lines: usize,
    color: &str,
    centred: bool,
) {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return;
    };
    let lines = wrap(text, width, max_lines);
    let (anchor, tx) = if centred {
        ("middle", x + width / 2.0)
    } else {
        ("start", x)
    };
    c.cover(x, y, width, lines.len() as f64 * LINE_HEIGHT);
    write_lines(c, &lines, tx, y + 11.0, anchor, color);
}

/// Text wrapped to `width` and centred in the box `(x, y, width, height)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn label_centered(
    c: &mut Canvas,
    text: Option<&str>,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    max_lines: usize,
    color: &str,
) {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return;
    };
    let lines = wrap(text, width, max_lines);
    let top = y + height / 2.0 - lines.len() as f64 * LINE_HEIGHT / 2.0;
    write_lines(c, &lines, x + width / 2.0, top + 11.0, "middle", color);
}

fn write_lines(c: &mut Canvas, lines: &[String], x: f64, baseline: f64, anchor: &str, color: &str) {
    let _ = write!(c.out, "<text text-anchor=\"{anchor}\" fill=\"{color}\">");
    for (i, line) in lines.iter().enumerate() {
        let _ = write!(
            c.out,
            "<tspan x=\"{}\" y=\"{}\">{}</tspan>",
            N(x),
            N(baseline + i as f64 * LINE_HEIGHT),
            escape(line)
        );
    }
    c.out.push_str("</text>");
}

/// The width of a character in 12 px Arial, roughly: enough to wrap names like bpmn-js does.
fn char_width(ch: char) -> f64 {
    match ch {
        'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 3.0,
        ' ' | 'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '-' | '/' => 4.0,
        'm' | 'w' | 'M' | 'W' | '@' => 10.0,
        'A'..='Z' => 8.0,
        c if c.is_ascii() => 6.5,
        // Wide scripts (CJK and the like) and everything else: a full em to be safe.
        _ => 12.0,
    }
}

fn text_width(s: &str) -> f64 {
    s.chars().map(char_width).sum()
}

/// Greedy word wrap to `width` (explicit line breaks kept, over-long words split), at most
/// `max_lines` lines, the last one ending in "…" when text was cut.
pub(super) fn wrap(text: &str, width: f64, max_lines: usize) -> Vec<String> {
    let width = width.max(24.0);
    let mut lines: Vec<String> = Vec::new();
    for paragraph in text.trim().lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if text_width(&candidate) <= width {
                line = candidate;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            // A word wider than the box is split where it has to be.
            for ch in word.chars() {
                if !line.is_empty() && text_width(&line) + char_width(ch) > width {
                    lines.push(std::mem::take(&mut line));
                }
                line.push(ch);
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    let max_lines = max_lines.max(1);
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        let last = &mut lines[max_lines - 1];
        while !last.is_empty() && text_width(last) + char_width('…') > width {
            last.pop();
        }
        let trimmed = last.trim_end().len();
        last.truncate(trimmed);
        last.push('…');
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & Jerry's</a>"#).to_string(),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape("plain").to_string(), "plain");
    }

    #[test]
    fn numbers_print_short() {
        assert_eq!(N(152.0).to_string(), "152");
        assert_eq!(N(152.5).to_string(), "152.5");
        assert_eq!(N(1.0 / 3.0).to_string(), "0.33");
        assert_eq!(N(-0.001).to_string(), "0");
    }

    #[test]
    fn wrap_breaks_words_and_cuts_with_an_ellipsis() {
        assert_eq!(
            wrap("Search knowledge base", 90.0, 3),
            ["Search", "knowledge base"]
        );
        assert_eq!(wrap("Look up order", 90.0, 3), ["Look up order"]);
        assert_eq!(wrap("one\ntwo", 90.0, 3), ["one", "two"]);
        let cut = wrap(
            "a very long name that does not fit in two lines at all",
            60.0,
            2,
        );
        assert_eq!(cut.len(), 2);
        assert!(cut[1].ends_with('…'), "{cut:?}");
        let split = wrap("Supercalifragilisticexpialidocious", 60.0, 5);
        assert!(
            split.len() > 1 && split.iter().all(|l| text_width(l) <= 60.0),
            "{split:?}"
        );
    }
}
