//! BPMN DI (`bpmndi:BPMNDiagram` children of `definitions`), read as the XML reader streams it
//! past the tree: the shapes and edges of every plane, keyed by their `bpmnElement`, with the
//! problems of their attributes; or only checked, with where it is kept for later
//! ([`UnreadDiagram`]).

use std::borrow::Cow;

use smallvec::SmallVec;

use super::*;
use crate::xml::{self, Streamed};

/// Reads BPMN DI as the XML reader streams it by (see the module documentation).
pub(super) struct DiReader<'s, 'a> {
    pub(super) problems: DiProblems<'s>,
    reading: DiagramReading,
    /// Where each `BPMNDiagram` is (start tag to end tag).
    pub(super) parts: Vec<std::ops::Range<u32>>,
    /// What was drawn (when `reading` keeps it).
    pub(super) diagram: Diagram,
    /// The number of open elements of the diagram.
    open: usize,
    in_plane: bool,
    item: Option<DiItem<'a>>,
    /// A `BPMNLabel` being read: its first `dc:Bounds`.
    label: Option<Option<Bounds>>,
}

/// The problems of the diagram's attributes, each with the start of its `BPMNDiagram`.
pub(super) struct DiProblems<'s> {
    source: &'s Source,
    pub(super) diagnostics: Vec<(u32, Diagnostic)>,
    /// The start of the `BPMNDiagram` being read.
    diagram_start: u32,
}

/// Where the DI of a parsed file is, to read it later: `None` when the file has none.
pub(super) fn unread(
    source: &Source,
    doc: &Document<'_>,
    parts: Vec<std::ops::Range<u32>>,
) -> Option<UnreadDiagram> {
    let first_part = parts.first()?.start;
    let text = source.text();
    let root = doc.node(doc.root);
    let name_end = text[root.start as usize + 1..]
        .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        .map_or(text.len(), |at| root.start as usize + 1 + at);
    // Up to the root's first child: only white space, comments or dropped text lie between
    // its start tag and that child.
    let first_child = doc.children(doc.root).next().map(|(_, child)| child.start);
    let head_end = first_child.map_or(first_part, |at| at.min(first_part));
    Some(UnreadDiagram {
        text: source.shared_text().clone(),
        head_end,
        root_name: root.start + 1..name_end as u32,
        parts,
    })
}

impl UnreadDiagram {
    /// Reads the DI: only the root's start tag and the `BPMNDiagram` elements are read again,
    /// not the rest of the file.
    pub fn read(&self) -> Diagram {
        let text = &*self.text;
        let slice = |range: &std::ops::Range<u32>| &text[range.start as usize..range.end as usize];
        let mut fragment = String::with_capacity(
            self.head_end as usize
                + self
                    .parts
                    .iter()
                    .map(|p| (p.end - p.start) as usize)
                    .sum::<usize>()
                + 64,
        );
        fragment.push_str(&text[..self.head_end as usize]);
        for part in &self.parts {
            fragment.push_str(slice(part));
        }
        fragment.push_str("</");
        fragment.push_str(slice(&self.root_name));
        fragment.push('>');
        parse(&Source::new("", fragment), DiagramReading::Read)
            .definitions
            .map(|definitions| definitions.diagram)
            .unwrap_or_default()
    }
}

/// A shape or edge being read, with its `bpmnElement` and its own id (for messages).
struct DiItem<'a> {
    element: Cow<'a, str>,
    di_id: Option<Cow<'a, str>>,
    drawn: Drawn,
}

enum Drawn {
    Shape(Shape),
    Edge(Edge),
    /// Checked, not kept (`DiagramReading::Defer`): a shape (`true`) or an edge.
    Checked(bool),
}

impl<'s, 'a> DiReader<'s, 'a> {
    pub(super) fn new(source: &'s Source, reading: DiagramReading) -> Self {
        DiReader {
            problems: DiProblems {
                source,
                diagnostics: Vec::new(),
                diagram_start: 0,
            },
            reading,
            parts: Vec::new(),
            diagram: Diagram::default(),
            open: 0,
            in_plane: false,
            item: None,
            label: None,
        }
    }
}

impl<'a> DiProblems<'_> {
    fn error(&mut self, attr: &Attr<'_>, di_id: Option<&str>, message: String) {
        let diagnostic = Diagnostic::at(
            self.source,
            attr.span.start,
            Rule::InvalidAttribute,
            di_id,
            message,
        );
        self.diagnostics.push((self.diagram_start, diagnostic));
    }

    fn boolean(
        &mut self,
        element: &Streamed<'_, 'a>,
        name: &str,
        di_id: Option<&str>,
    ) -> Option<bool> {
        let attr = element.attr(name)?;
        match boolean_value(element.value(attr), name) {
            Ok(value) => Some(value),
            Err(message) => {
                self.error(attr, di_id, message);
                None
            }
        }
    }

    fn number(
        &mut self,
        element: &Streamed<'_, 'a>,
        attr: Option<&Attr<'a>>,
        name: &str,
        di_id: Option<&str>,
    ) -> f64 {
        let Some(attr) = attr else {
            return 0.0;
        };
        let value = element.value(attr);
        // Diagram coordinates are nearly always small integers: read here, the rest (and the
        // error's message) out of line, so this stays a small function without a frame to set
        // up (thousands of calls per file).
        match parse_integer(value) {
            Some(number) => number,
            None => self.number_slow(attr, value, name, di_id),
        }
    }

    #[cold]
    #[inline(never)]
    fn number_slow(
        &mut self,
        attr: &Attr<'_>,
        value: &str,
        name: &str,
        di_id: Option<&str>,
    ) -> f64 {
        match number_value(value, name) {
            Ok(number) => number,
            Err(message) => {
                self.error(attr, di_id, message);
                0.0
            }
        }
    }

    fn bounds(&mut self, element: &Streamed<'_, 'a>, di_id: Option<&str>) -> Bounds {
        // One pass over the attributes instead of one lookup per coordinate (there are
        // thousands of these); the first attribute of a name counts, as in `Document::attr`.
        let mut found: [Option<&Attr<'a>>; 4] = [None; 4];
        for attr in element.attrs().iter().filter(|a| a.ns == Ns::None) {
            let slot = match attr.local {
                "x" => 0,
                "y" => 1,
                "width" => 2,
                "height" => 3,
                _ => continue,
            };
            found[slot].get_or_insert(attr);
        }
        let [x, y, width, height] = found;
        Bounds {
            x: self.number(element, x, "x", di_id),
            y: self.number(element, y, "y", di_id),
            width: self.number(element, width, "width", di_id),
            height: self.number(element, height, "height", di_id),
        }
    }

    /// The `x` and `y` of a waypoint, in one pass over its attributes.
    fn point(&mut self, element: &Streamed<'_, 'a>, di_id: Option<&str>) -> (f64, f64) {
        let mut found: [Option<&Attr<'a>>; 2] = [None; 2];
        for attr in element.attrs().iter().filter(|a| a.ns == Ns::None) {
            let slot = match attr.local {
                "x" => 0,
                "y" => 1,
                _ => continue,
            };
            found[slot].get_or_insert(attr);
        }
        let [x, y] = found;
        (
            self.number(element, x, "x", di_id),
            self.number(element, y, "y", di_id),
        )
    }
}

impl<'a> xml::Stream<'a> for DiReader<'_, 'a> {
    fn reading(&self, depth: usize, ns: Ns, local: &str) -> xml::Reading {
        match ns {
            Ns::BpmnDi if depth == 1 && local == "BPMNDiagram" => xml::Reading::Stream,
            // A flow node's `incoming`/`outgoing` repeat what its sequence flows say: the
            // parser reads the flows, so these (a third of a modeler file's process elements)
            // are not kept.
            Ns::Bpmn if depth >= 2 && matches!(local, "incoming" | "outgoing") => {
                xml::Reading::Skip
            }
            _ => xml::Reading::Keep,
        }
    }

    fn open(&mut self, element: &Streamed<'_, 'a>) {
        self.open = element.depth + 1;
        match element.depth {
            0 => self.problems.diagram_start = element.start,
            1 => {
                self.in_plane = element.is(Ns::BpmnDi, "BPMNPlane");
                if self.in_plane
                    && self.reading != DiagramReading::Defer
                    && self.diagram.shapes.is_empty()
                {
                    // Sized once rather than grown (each growth copies every entry): a flow
                    // node is about four elements of the tree (itself, its extension elements)
                    // and has a shape, and about as many edges are drawn.
                    let drawn = element.tree_size / 4;
                    self.diagram.shapes.reserve(drawn);
                    self.diagram.edges.reserve(drawn);
                }
            }
            2 => {
                self.item = None;
                if !self.in_plane {
                    return;
                }
                let Some(drawn) = element.attr("bpmnElement") else {
                    return;
                };
                let di_id = element.attr("id").map(|a| element.value_cow(a));
                let di = di_id.as_deref();
                if self.reading == DiagramReading::Defer {
                    // The same problems, nothing built.
                    let is_shape = element.is(Ns::BpmnDi, "BPMNShape");
                    if is_shape {
                        self.problems.boolean(element, "isExpanded", di);
                        self.problems.boolean(element, "isHorizontal", di);
                    } else if !element.is(Ns::BpmnDi, "BPMNEdge") {
                        return;
                    }
                    self.item = Some(DiItem {
                        element: Cow::Borrowed(""),
                        di_id,
                        drawn: Drawn::Checked(is_shape),
                    });
                    return;
                }
                let item = if element.is(Ns::BpmnDi, "BPMNShape") {
                    Drawn::Shape(Shape {
                        bounds: Bounds::default(),
                        is_expanded: self.problems.boolean(element, "isExpanded", di),
                        is_horizontal: self.problems.boolean(element, "isHorizontal", di),
                        label: None,
                    })
                } else if element.is(Ns::BpmnDi, "BPMNEdge") {
                    Drawn::Edge(Edge {
                        waypoints: SmallVec::new(),
                        label: None,
                    })
                } else {
                    return;
                };
                self.item = Some(DiItem {
                    element: element.value_cow(drawn),
                    di_id,
                    drawn: item,
                });
            }
            3 => {
                let Some(item) = &mut self.item else {
                    return;
                };
                let di_id = item.di_id.as_deref();
                match &mut item.drawn {
                    _ if element.is(Ns::BpmnDi, "BPMNLabel") => self.label = Some(None),
                    Drawn::Shape(shape) if element.is(Ns::Dc, "Bounds") => {
                        shape.bounds = self.problems.bounds(element, di_id);
                    }
                    Drawn::Edge(edge) if element.is(Ns::Di, "waypoint") => {
                        edge.waypoints.push(self.problems.point(element, di_id));
                    }
                    Drawn::Checked(true) if element.is(Ns::Dc, "Bounds") => {
                        self.problems.bounds(element, di_id);
                    }
                    Drawn::Checked(false) if element.is(Ns::Di, "waypoint") => {
                        self.problems.point(element, di_id);
                    }
                    _ => {}
                }
            }
            4 if matches!(self.label, Some(None)) && element.is(Ns::Dc, "Bounds") => {
                let di_id = self.item.as_ref().and_then(|item| item.di_id.as_deref());
                self.label = Some(Some(self.problems.bounds(element, di_id)));
            }
            _ => {}
        }
    }

    fn close(&mut self, end: u32) {
        self.open -= 1;
        match self.open {
            0 => self.parts.push(self.problems.diagram_start..end),
            1 => self.in_plane = false,
            2 => {
                if let Some(item) = self.item.take()
                    && self.reading != DiagramReading::Defer
                {
                    let element = item.element.into_owned();
                    match item.drawn {
                        Drawn::Shape(shape) => {
                            self.diagram.shapes.insert(element, shape);
                        }
                        Drawn::Edge(edge) => {
                            self.diagram.edges.insert(element, edge);
                        }
                        Drawn::Checked(_) => {}
                    }
                }
            }
            3 => {
                if let (Some(label), Some(item)) = (self.label.take(), &mut self.item) {
                    match &mut item.drawn {
                        Drawn::Shape(shape) => shape.label = label,
                        Drawn::Edge(edge) => edge.label = label,
                        Drawn::Checked(_) => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// A finite `xs:double`, or why the value is not one. Diagram coordinates are nearly always
/// small integers: those skip the general (and much slower) float parser.
fn number_value(value: &str, name: &str) -> Result<f64, String> {
    // Most coordinates are plain integers: read without trimming first.
    if let Some(number) = parse_integer(value) {
        return Ok(number);
    }
    match parse_number(value.trim()) {
        Some(number) if number.is_finite() => Ok(number),
        _ => Err(format!("'{value}' is not a number (attribute '{name}')")),
    }
}

fn parse_number(text: &str) -> Option<f64> {
    parse_integer(text).or_else(|| text.parse::<f64>().ok())
}

/// An integer of at most 15 digits (exact as an `f64`), optionally negative.
fn parse_integer(text: &str) -> Option<f64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    // One pass: each byte is checked and added at once.
    let mut magnitude: i64 = 0;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        magnitude = magnitude * 10 + i64::from(digit);
    }
    // Exact: 15 decimal digits stay below 2^53.
    let value = magnitude as f64;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagram_problems_keep_their_place_among_the_others() {
        // The DI comes first here: its problems are still reported in document order, and its
        // shapes are read whatever comes after.
        let xml = r#"<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" id="d">
  <bpmndi:BPMNDiagram id="diagram">
    <bpmndi:BPMNPlane id="plane" bpmnElement="p">
      <bpmndi:BPMNShape id="a_di" bpmnElement="a"><dc:Bounds x="1" y="two" width="3" height="4"/></bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
  <bpmn:process id="p" isExecutable="maybe"><bpmn:task id="a"/></bpmn:process>
  <bpmndi:BPMNDiagram id="second">
    <bpmndi:BPMNPlane id="plane2"><bpmndi:BPMNShape id="b_di" bpmnElement="b" isExpanded="no"/></bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>"#;
        let parsed = parse(&Source::new("order.bpmn", xml), DiagramReading::Read);
        let found: Vec<(Option<&str>, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.element_id.as_deref(), d.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Some("a_di"), "'two' is not a number (attribute 'y')"),
                (
                    Some("p"),
                    "'maybe' is not a boolean value of attribute 'isExecutable'"
                ),
                (
                    Some("b_di"),
                    "'no' is not a boolean value of attribute 'isExpanded'"
                ),
            ]
        );
        let source = Source::new("order.bpmn", xml);
        let diagram = parsed.definitions.unwrap().diagram;
        let shapes: Vec<&str> = diagram.shapes.keys().map(String::as_str).collect();
        assert_eq!(shapes, ["a", "b"]);
        assert_eq!(diagram.shapes["a"].bounds.height, 4.0);

        // Checked only: the same problems, nothing kept, the text kept to read it from later.
        let checked = parse(&source, DiagramReading::Defer);
        assert_eq!(
            checked.diagnostics,
            parse(&source, DiagramReading::Read).diagnostics
        );
        let definitions = checked.definitions.unwrap();
        assert!(definitions.diagram.shapes.is_empty() && definitions.diagram.edges.is_empty());
        let unread = definitions.unread_diagram.as_ref().unwrap();
        assert_eq!(unread.parts.len(), 2);
        let read = unread.read();
        assert_eq!(read.shapes, diagram.shapes);
        assert_eq!(read.edges, diagram.edges);
        // A file without BPMN DI has nothing to read later.
        let bare = Source::new(
            "bare.bpmn",
            xml.split("  <bpmndi").next().unwrap().to_owned() + "</bpmn:definitions>",
        );
        let bare = parse(&bare, DiagramReading::Defer).definitions.unwrap();
        assert!(bare.unread_diagram.is_none());
    }
}
