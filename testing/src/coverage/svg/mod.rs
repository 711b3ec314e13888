//! One plane of a process's [`Diagram`](super::diagram::Diagram) drawn as SVG, with coverage
//! marked: covered elements and taken flows in green, the rest grey, AI agent tools with a badge,
//! a `<title>` tooltip on every element and flow.
//!
//! Plain text output (same input, same bytes): presentation attributes rather than CSS, so the
//! picture stands on its own; `class` and `data-id` attributes name what each group is.
//!
//! - `shapes` — elements: activities, events, gateways, pools and lanes, artifacts, tool badges.
//! - `edges` — sequence flows and associations.
//! - `text` — escaping, coordinates, labels and word wrap.

mod edges;
mod shapes;
mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::data::ProcessCoverageData;
use super::diagram::{Plane, Shape, ShapeKind};

use edges::edge;
use shapes::shape;
use text::N;
pub use text::{Escaped, escape};

/// Colours of the picture (and of the HTML legend).
pub mod palette {
    pub const COVERED_STROKE: &str = "#2e7d32";
    pub const COVERED_FILL: &str = "#e6f4e7";
    pub const COVERED_TEXT: &str = "#1d2a1e";
    pub const MISSED_STROKE: &str = "#9ea3a8";
    pub const MISSED_FILL: &str = "#f3f4f5";
    pub const MISSED_TEXT: &str = "#80868c";
    pub const NEUTRAL_STROKE: &str = "#5f6368";
    pub const NEUTRAL_TEXT: &str = "#3c4043";
    pub const TOOL: &str = "#6a3fb5";
}
use palette::*;

const FONT: &str = "Arial, Helvetica, sans-serif";
const LINE_HEIGHT: f64 = 14.0;

/// What was covered in a process, for looking up while drawing.
pub struct Marks<'a> {
    covered: BTreeSet<&'a str>,
    taken: BTreeSet<&'a str>,
    tools: BTreeSet<&'a str>,
    /// Element id → Zeebe's element type.
    kinds: BTreeMap<&'a str, &'a str>,
    /// Flow id → (source, target).
    flows: BTreeMap<&'a str, (&'a str, &'a str)>,
}

impl<'a> Marks<'a> {
    pub fn of(data: &'a ProcessCoverageData) -> Marks<'a> {
        Marks {
            covered: data.covered_elements.iter().map(String::as_str).collect(),
            taken: data.taken_flows.iter().map(String::as_str).collect(),
            tools: data.tools.iter().map(String::as_str).collect(),
            kinds: data
                .elements
                .iter()
                .map(|e| (e.id.as_str(), e.kind.as_str()))
                .collect(),
            flows: data
                .flows
                .iter()
                .map(|f| (f.id.as_str(), (f.source.as_str(), f.target.as_str())))
                .collect(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Covered,
    Missed,
    Neutral,
}

impl Status {
    fn class(self) -> &'static str {
        match self {
            Status::Covered => "covered",
            Status::Missed => "missed",
            Status::Neutral => "neutral",
        }
    }
    fn stroke(self) -> &'static str {
        match self {
            Status::Covered => COVERED_STROKE,
            Status::Missed => MISSED_STROKE,
            Status::Neutral => NEUTRAL_STROKE,
        }
    }
    fn fill(self) -> &'static str {
        match self {
            Status::Covered => COVERED_FILL,
            Status::Missed => MISSED_FILL,
            Status::Neutral => "#ffffff",
        }
    }
    fn text(self) -> &'static str {
        match self {
            Status::Covered => COVERED_TEXT,
            Status::Missed => MISSED_TEXT,
            Status::Neutral => NEUTRAL_TEXT,
        }
    }
}

/// The SVG being written and the area it covers.
struct Canvas {
    out: String,
    min: (f64, f64),
    max: (f64, f64),
}

impl Canvas {
    fn cover(&mut self, x: f64, y: f64, w: f64, h: f64) {
        if !(x.is_finite() && y.is_finite() && w.is_finite() && h.is_finite()) {
            return;
        }
        self.min = (self.min.0.min(x), self.min.1.min(y));
        self.max = (self.max.0.max(x + w), self.max.1.max(y + h));
    }
}

/// Draws one plane. `prefix` makes the ids of the arrowhead definitions unique in a page that
/// holds several pictures.
pub fn render(plane: &Plane, marks: &Marks<'_>, prefix: &str) -> String {
    let mut c = Canvas {
        out: String::new(),
        min: (f64::INFINITY, f64::INFINITY),
        max: (f64::NEG_INFINITY, f64::NEG_INFINITY),
    };
    let shape_status = |s: &Shape| {
        if !s.kind.is_flow_node() {
            Status::Neutral
        } else if marks.covered.contains(s.id.as_str()) {
            Status::Covered
        } else {
            Status::Missed
        }
    };
    // Back to front: pools and lanes, groups, open sub-processes, flows, then everything else
    // (boundary events last, on the border of their activity).
    let layer = |s: &Shape| match s.kind {
        ShapeKind::Participant => 0,
        ShapeKind::Lane => 1,
        ShapeKind::Group => 2,
        _ if s.expanded => 3,
        ShapeKind::BoundaryEvent => 6,
        _ => 5,
    };
    for l in 0..=3 {
        for s in plane.shapes.iter().filter(|s| layer(s) == l) {
            shape(&mut c, s, shape_status(s), marks);
        }
    }
    for e in &plane.edges {
        edge(&mut c, e, marks, prefix);
    }
    for l in 5..=6 {
        for s in plane.shapes.iter().filter(|s| layer(s) == l) {
            shape(&mut c, s, shape_status(s), marks);
        }
    }
    let (x, y, w, h) = if c.min.0.is_finite() {
        let pad = 12.0;
        (
            c.min.0 - pad,
            c.min.1 - pad,
            c.max.0 - c.min.0 + 2.0 * pad,
            c.max.1 - c.min.1 + 2.0 * pad,
        )
    } else {
        (0.0, 0.0, 100.0, 40.0)
    };
    let mut svg = String::with_capacity(c.out.len() + 1200);
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bpmn-diagram\" viewBox=\"{} {} {} {}\" width=\"{}\" height=\"{}\" font-family=\"{FONT}\" font-size=\"12\">",
        N(x),
        N(y),
        N(w),
        N(h),
        N(w),
        N(h)
    );
    svg.push_str("<defs>\n");
    for (name, color) in [
        ("taken", COVERED_STROKE),
        ("missed", MISSED_STROKE),
        ("neutral", NEUTRAL_STROKE),
    ] {
        let _ = writeln!(
            svg,
            "<marker id=\"{prefix}-arrow-{name}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0,0.5 L10,5 L0,9.5 Z\" fill=\"{color}\"/></marker>"
        );
        let _ = writeln!(
            svg,
            "<marker id=\"{prefix}-diamond-{name}\" viewBox=\"0 0 16 10\" refX=\"0\" refY=\"5\" markerWidth=\"16\" markerHeight=\"10\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0.5,5 L8,1 L15.5,5 L8,9 Z\" fill=\"#ffffff\" stroke=\"{color}\"/></marker>"
        );
    }
    svg.push_str("</defs>\n");
    svg.push_str(&c.out);
    svg.push_str("</svg>\n");
    svg
}
