//! The shapes of a plane: activities with their task icons and markers, events with their
//! definitions' symbols, gateways, pools and lanes, annotations, data, groups, and the badge of
//! an AI agent tool.

use std::fmt::Write;

use super::super::diagram::{EventMarker, MultiInstanceMarker, Shape, ShapeKind};
use super::palette::*;
use super::text::{N, escape, label_centered, label_in, label_outside, wrap};
use super::{Canvas, LINE_HEIGHT, Marks, Status};

fn title(c: &mut Canvas, s: &Shape, status: Status, marks: &Marks<'_>) {
    let _ = write!(c.out, "<title>");
    match &s.name {
        Some(name) if !name.trim().is_empty() => {
            let _ = write!(c.out, "{} ({})", escape(name.trim()), escape(&s.id));
        }
        _ => {
            let _ = write!(c.out, "{}", escape(&s.id));
        }
    }
    let _ = write!(c.out, "\n{}", s.kind.words());
    if let Some(event) = s.event {
        let _ = write!(c.out, ", {}", event.words());
    }
    if let Some(kind) = marks.kinds.get(s.id.as_str()) {
        let _ = write!(c.out, " ({})", escape(kind));
    }
    match status {
        Status::Covered => c.out.push_str("\ncovered"),
        Status::Missed => c.out.push_str("\nnot covered"),
        Status::Neutral => {}
    }
    if marks.tools.contains(s.id.as_str()) {
        c.out.push_str(if status == Status::Covered {
            "\nAI agent tool: called"
        } else {
            "\nAI agent tool: never called"
        });
    }
    c.out.push_str("</title>");
}

pub(super) fn shape(c: &mut Canvas, s: &Shape, status: Status, marks: &Marks<'_>) {
    let [x, y, w, h] = s.bounds;
    if !(x.is_finite() && y.is_finite() && w.is_finite() && h.is_finite()) {
        return;
    }
    c.cover(x, y, w, h);
    let tool = marks.tools.contains(s.id.as_str());
    let _ = write!(
        c.out,
        "<g class=\"shape {}{}\" data-id=\"{}\" data-kind=\"{}\">",
        status.class(),
        if tool { " tool" } else { "" },
        escape(&s.id),
        kind_name(s.kind)
    );
    title(c, s, status, marks);
    let (stroke, fill, text) = (status.stroke(), status.fill(), status.text());
    match s.kind {
        k if k.is_event() => event(c, s, stroke, fill, text),
        k if k.is_gateway() => gateway(c, s, stroke, fill, text),
        ShapeKind::Participant | ShapeKind::Lane => pool(c, s),
        ShapeKind::TextAnnotation => annotation(c, s),
        ShapeKind::DataObjectReference | ShapeKind::DataStoreReference => data(c, s),
        ShapeKind::Group => group(c, s),
        _ => activity(c, s, stroke, fill, text),
    }
    if tool {
        badge(c, s, status);
    }
    c.out.push_str("</g>\n");
}

fn kind_name(kind: ShapeKind) -> String {
    // The serde name: one spelling of each kind everywhere.
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn activity(c: &mut Canvas, s: &Shape, stroke: &str, fill: &str, text: &str) {
    let [x, y, w, h] = s.bounds;
    let width = if s.kind == ShapeKind::CallActivity {
        4
    } else {
        2
    };
    let dash = if s.kind == ShapeKind::EventSubProcess {
        " stroke-dasharray=\"2 3\""
    } else {
        ""
    };
    let fill = if s.expanded { "none" } else { fill };
    let _ = write!(
        c.out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"10\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>",
        N(x),
        N(y),
        N(w),
        N(h)
    );
    if s.kind == ShapeKind::Transaction {
        let _ = write!(
            c.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
            N(x + 3.0),
            N(y + 3.0),
            N(w - 6.0),
            N(h - 6.0)
        );
    }
    task_icon(c, s.kind, x, y, stroke, fill);
    // Markers along the bottom edge, centred, in bpmn-js's order.
    let mut markers: Vec<&str> = Vec::new();
    match s.multi_instance {
        Some(MultiInstanceMarker::Parallel) => markers.push("parallel"),
        Some(MultiInstanceMarker::Sequential) => markers.push("sequential"),
        None => {}
    }
    if !s.expanded && (s.kind.is_sub_process() || s.kind == ShapeKind::CallActivity) {
        markers.push("collapsed");
    }
    if s.kind == ShapeKind::AdHocSubProcess {
        markers.push("adhoc");
    }
    if s.for_compensation {
        markers.push("compensation");
    }
    let total = markers.len() as f64 * 14.0 + (markers.len().max(1) - 1) as f64 * 4.0;
    let mut mx = x + w / 2.0 - total / 2.0;
    let my = y + h - 19.0;
    for m in markers {
        let _ = write!(
            c.out,
            "<g transform=\"translate({} {})\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.5\">",
            N(mx),
            N(my)
        );
        c.out.push_str(match m {
            "parallel" => "<path d=\"M3,1 V13 M7,1 V13 M11,1 V13\" stroke-width=\"2\"/>",
            "sequential" => "<path d=\"M1,3 H13 M1,7 H13 M1,11 H13\" stroke-width=\"2\"/>",
            "collapsed" => {
                "<rect x=\"0\" y=\"0\" width=\"14\" height=\"14\"/><path d=\"M7,3 V11 M3,7 H11\"/>"
            }
            "adhoc" => "<path d=\"M0,9 C2,4 5,4 7,7 S12,10 14,5\" stroke-width=\"2\"/>",
            _ => "<path d=\"M7,3 L1,7 L7,11 Z M13,3 L7,7 L13,11 Z\"/>",
        });
        c.out.push_str("</g>");
        mx += 18.0;
    }
    if s.expanded {
        label_in(
            c,
            s.name.as_deref(),
            x + 10.0,
            y + 6.0,
            w - 20.0,
            2,
            text,
            false,
        );
    } else {
        let inset = if task_has_icon(s.kind) { 8.0 } else { 5.0 };
        let lines = ((h - 2.0 * inset) / LINE_HEIGHT).floor().max(1.0) as usize;
        label_centered(c, s.name.as_deref(), x + 5.0, y, w - 10.0, h, lines, text);
    }
}

fn task_has_icon(kind: ShapeKind) -> bool {
    matches!(
        kind,
        ShapeKind::ServiceTask
            | ShapeKind::SendTask
            | ShapeKind::ReceiveTask
            | ShapeKind::UserTask
            | ShapeKind::ManualTask
            | ShapeKind::ScriptTask
            | ShapeKind::BusinessRuleTask
    )
}

/// The task type's icon in the top-left corner (a 16×16 box at x+6, y+6).
fn task_icon(c: &mut Canvas, kind: ShapeKind, x: f64, y: f64, stroke: &str, fill: &str) {
    if !task_has_icon(kind) {
        return;
    }
    let _ = write!(
        c.out,
        "<g transform=\"translate({} {})\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.2\">",
        N(x + 6.0),
        N(y + 6.0)
    );
    match kind {
        ShapeKind::ServiceTask => {
            // A cog: a ring and eight teeth.
            c.out.push_str("<circle cx=\"8\" cy=\"8\" r=\"4\"/><circle cx=\"8\" cy=\"8\" r=\"1.5\"/><path d=\"M8,1 V3.5 M8,12.5 V15 M1,8 H3.5 M12.5,8 H15 M3.05,3.05 L4.82,4.82 M11.18,11.18 L12.95,12.95 M3.05,12.95 L4.82,11.18 M11.18,4.82 L12.95,3.05\" stroke-width=\"2\"/>");
        }
        ShapeKind::UserTask => {
            c.out.push_str("<circle cx=\"8\" cy=\"4.5\" r=\"3.5\"/><path d=\"M1.5,15.5 C1.5,10.5 4,9 8,9 S14.5,10.5 14.5,15.5 Z\"/>");
        }
        ShapeKind::SendTask => {
            let _ = write!(
                c.out,
                "<rect x=\"0.5\" y=\"2.5\" width=\"15\" height=\"11\" fill=\"{stroke}\"/><path d=\"M0.5,2.5 L8,8.5 L15.5,2.5\" stroke=\"{fill}\"/>"
            );
        }
        ShapeKind::ReceiveTask => {
            c.out.push_str("<rect x=\"0.5\" y=\"2.5\" width=\"15\" height=\"11\"/><path d=\"M0.5,2.5 L8,8.5 L15.5,2.5\"/>");
        }
        ShapeKind::ScriptTask => {
            c.out.push_str("<path d=\"M4,1 H14 C11,4 11,7 13,9 S15,13 12,15 H2 C5,12 5,9 3,7 S1,3 4,1 Z M5,4.5 H11 M6,7.5 H12 M6,10.5 H12\"/>");
        }
        ShapeKind::BusinessRuleTask => {
            let _ = write!(
                c.out,
                "<rect x=\"0.5\" y=\"2.5\" width=\"15\" height=\"11\"/><rect x=\"0.5\" y=\"2.5\" width=\"15\" height=\"3\" fill=\"{stroke}\"/><path d=\"M0.5,9.5 H15.5 M5,5.5 V13.5\"/>"
            );
        }
        _ => {
            // Manual task: a hand, palm and fingers.
            c.out.push_str("<path d=\"M1,8 C1,6 3,5 5,5 H13 C14.5,5 14.5,7 13,7 H8 M7,7 H14 C15.5,7 15.5,9.5 14,9.5 H8 M8,9.5 H13.5 C15,9.5 15,12 13.5,12 H8 M8,12 H12 C13.5,12 13.5,14.5 12,14.5 H5 C2.5,14.5 1,12.5 1,10.5 Z\"/>");
        }
    }
    c.out.push_str("</g>");
}

fn event(c: &mut Canvas, s: &Shape, stroke: &str, fill: &str, text: &str) {
    let [x, y, w, h] = s.bounds;
    let (cx, cy, r) = (x + w / 2.0, y + h / 2.0, w.min(h) / 2.0);
    let dash = if s.non_interrupting {
        " stroke-dasharray=\"5 3\""
    } else {
        ""
    };
    match s.kind {
        ShapeKind::StartEvent => {
            let _ = write!(
                c.out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\"{dash}/>",
                N(cx),
                N(cy),
                N(r)
            );
        }
        ShapeKind::EndEvent => {
            let _ = write!(
                c.out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"4\"/>",
                N(cx),
                N(cy),
                N(r - 1.0)
            );
        }
        _ => {
            let _ = write!(
                c.out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"{dash}/><circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.5\"{dash}/>",
                N(cx),
                N(cy),
                N(r),
                N(cx),
                N(cy),
                N(r - 3.0)
            );
        }
    }
    if let Some(marker) = s.event {
        let throw = matches!(
            s.kind,
            ShapeKind::EndEvent | ShapeKind::IntermediateThrowEvent
        );
        event_marker(c, marker, throw, cx, cy, r / 18.0, stroke, fill);
    }
    label_outside(c, s, text);
}

/// An event definition's symbol, drawn for a radius of 18 around (0, 0) and scaled.
#[allow(clippy::too_many_arguments)]
fn event_marker(
    c: &mut Canvas,
    marker: EventMarker,
    throw: bool,
    cx: f64,
    cy: f64,
    scale: f64,
    stroke: &str,
    fill: &str,
) {
    // Throwing events have solid symbols, catching ones outlined.
    let (body, lines) = if throw {
        (stroke, fill)
    } else {
        (fill, stroke)
    };
    let _ = write!(
        c.out,
        "<g transform=\"translate({} {}) scale({})\" fill=\"{body}\" stroke=\"{stroke}\" stroke-width=\"1.5\" stroke-linejoin=\"round\">",
        N(cx),
        N(cy),
        N(scale)
    );
    let _ = match marker {
        EventMarker::Message => write!(
            c.out,
            "<rect x=\"-9\" y=\"-6.5\" width=\"18\" height=\"13\"/><path d=\"M-9,-6.5 L0,1 L9,-6.5\" fill=\"none\" stroke=\"{lines}\"/>"
        ),
        EventMarker::Timer => write!(
            c.out,
            "<circle r=\"11\" fill=\"{fill}\" stroke-width=\"2\"/><path d=\"M0,-11 V-8 M0,11 V8 M-11,0 H-8 M11,0 H8 M0,0 L1,-8 M0,0 L6,2\" fill=\"none\"/>"
        ),
        EventMarker::Error => c
            .out
            .write_str("<path d=\"M-8,9 L-3.5,-8 L2,2 L8,-9 L4,8 L-1.5,-2 Z\"/>"),
        EventMarker::Escalation => c.out.write_str("<path d=\"M0,-10 L7,9 L0,2 L-7,9 Z\"/>"),
        EventMarker::Signal => c.out.write_str("<path d=\"M0,-10 L9,7 L-9,7 Z\"/>"),
        EventMarker::Compensation => c
            .out
            .write_str("<path d=\"M-10,0 L-1,-6 V6 Z M-1,0 L8,-6 V6 Z\"/>"),
        EventMarker::Conditional => write!(
            c.out,
            "<rect x=\"-6.5\" y=\"-8.5\" width=\"13\" height=\"17\" fill=\"{fill}\"/><path d=\"M-4,-5 H4 M-4,-1.5 H4 M-4,2 H4 M-4,5.5 H4\" fill=\"none\"/>"
        ),
        EventMarker::Link => c
            .out
            .write_str("<path d=\"M-8,-3.5 H1 V-8 L9,0 L1,8 V3.5 H-8 Z\"/>"),
        EventMarker::Terminate => write!(c.out, "<circle r=\"10\" fill=\"{stroke}\"/>"),
        EventMarker::Cancel => c
            .out
            .write_str("<path d=\"M-7,-7 L7,7 M7,-7 L-7,7\" fill=\"none\" stroke-width=\"4\"/>"),
        EventMarker::Multiple => c
            .out
            .write_str("<path d=\"M0,-10 L9.5,-3 L6,8 L-6,8 L-9.5,-3 Z\"/>"),
    };
    c.out.push_str("</g>");
}

fn gateway(c: &mut Canvas, s: &Shape, stroke: &str, fill: &str, text: &str) {
    let [x, y, w, h] = s.bounds;
    let (cx, cy) = (x + w / 2.0, y + h / 2.0);
    let _ = write!(
        c.out,
        "<polygon points=\"{},{} {},{} {},{} {},{}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"2\" stroke-linejoin=\"round\"/>",
        N(cx),
        N(y),
        N(x + w),
        N(cy),
        N(cx),
        N(y + h),
        N(x),
        N(cy)
    );
    let _ = write!(
        c.out,
        "<g transform=\"translate({} {}) scale({})\" fill=\"none\" stroke=\"{stroke}\">",
        N(cx),
        N(cy),
        N(w.min(h) / 50.0)
    );
    c.out.push_str(match s.kind {
        ShapeKind::ExclusiveGateway => "<path d=\"M-7,-7 L7,7 M7,-7 L-7,7\" stroke-width=\"3.5\"/>",
        ShapeKind::ParallelGateway => "<path d=\"M0,-10 V10 M-10,0 H10\" stroke-width=\"3.5\"/>",
        ShapeKind::InclusiveGateway => "<circle r=\"9\" stroke-width=\"2.5\"/>",
        ShapeKind::EventBasedGateway => "<circle r=\"11\" stroke-width=\"1\"/><circle r=\"9\" stroke-width=\"1\"/><path d=\"M0,-6 L5.7,-1.9 L3.5,4.9 L-3.5,4.9 L-5.7,-1.9 Z\" stroke-width=\"1.2\"/>",
        _ => "<path d=\"M0,-10 V10 M-10,0 H10 M-7,-7 L7,7 M7,-7 L-7,7\" stroke-width=\"3\"/>",
    });
    c.out.push_str("</g>");
    label_outside(c, s, text);
}

fn pool(c: &mut Canvas, s: &Shape) {
    let [x, y, w, h] = s.bounds;
    let width = if s.kind == ShapeKind::Participant {
        "1.5"
    } else {
        "1"
    };
    let fill = if s.kind == ShapeKind::Participant {
        "#ffffff"
    } else {
        "none"
    };
    let _ = write!(
        c.out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"{width}\"/>",
        N(x),
        N(y),
        N(w),
        N(h)
    );
    let Some(name) = s.name.as_deref().filter(|n| !n.trim().is_empty()) else {
        return;
    };
    // The name runs along the 30 px band at the start of the pool or lane.
    let line = if s.vertical {
        format!("M{},{} H{}", N(x), N(y + 30.0), N(x + w))
    } else {
        format!("M{},{} V{}", N(x + 30.0), N(y), N(y + h))
    };
    if s.kind == ShapeKind::Participant {
        let _ = write!(
            c.out,
            "<path d=\"{line}\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"1\"/>"
        );
    }
    let (along, transform) = if s.vertical {
        (w, format!("translate({} {})", N(x + w / 2.0), N(y + 15.0)))
    } else {
        (
            h,
            format!("translate({} {}) rotate(-90)", N(x + 15.0), N(y + h / 2.0)),
        )
    };
    let lines = wrap(name, along - 10.0, 2);
    let _ = write!(
        c.out,
        "<text transform=\"{transform}\" text-anchor=\"middle\" fill=\"{NEUTRAL_TEXT}\">"
    );
    let first = 4.0 - (lines.len() as f64 - 1.0) * LINE_HEIGHT / 2.0;
    for (i, l) in lines.iter().enumerate() {
        let _ = write!(
            c.out,
            "<tspan x=\"0\" y=\"{}\">{}</tspan>",
            N(first + i as f64 * LINE_HEIGHT),
            escape(l)
        );
    }
    c.out.push_str("</text>");
}

fn annotation(c: &mut Canvas, s: &Shape) {
    let [x, y, w, h] = s.bounds;
    let _ = write!(
        c.out,
        "<path d=\"M{},{} H{} V{} H{}\" fill=\"none\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"1.5\"/>",
        N(x + 10.0),
        N(y),
        N(x),
        N(y + h),
        N(x + 10.0)
    );
    let lines = ((h - 6.0) / LINE_HEIGHT).floor().max(1.0) as usize;
    label_in(
        c,
        s.name.as_deref(),
        x + 5.0,
        y + 3.0,
        w - 10.0,
        lines,
        NEUTRAL_TEXT,
        false,
    );
}

fn data(c: &mut Canvas, s: &Shape) {
    let [x, y, w, h] = s.bounds;
    if s.kind == ShapeKind::DataStoreReference {
        let e = (h * 0.15).min(10.0);
        let _ = write!(
            c.out,
            "<path d=\"M{x0},{y1} C{x0},{y0} {x2},{y0} {x2},{y1} V{y3} C{x2},{y4} {x0},{y4} {x0},{y3} Z M{x0},{y1} C{x0},{y2} {x2},{y2} {x2},{y1}\" fill=\"#ffffff\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"1.5\"/>",
            x0 = N(x),
            x2 = N(x + w),
            y0 = N(y - e),
            y1 = N(y + e),
            y2 = N(y + 3.0 * e),
            y3 = N(y + h - e),
            y4 = N(y + h + e),
        );
    } else {
        let fold = (w * 0.3).min(12.0);
        let _ = write!(
            c.out,
            "<path d=\"M{},{} H{} L{},{} V{} H{} Z M{},{} V{} H{}\" fill=\"#ffffff\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"1.5\" stroke-linejoin=\"round\"/>",
            N(x),
            N(y),
            N(x + w - fold),
            N(x + w),
            N(y + fold),
            N(y + h),
            N(x),
            N(x + w - fold),
            N(y),
            N(y + fold),
            N(x + w)
        );
    }
    label_outside(c, s, NEUTRAL_TEXT);
}

fn group(c: &mut Canvas, s: &Shape) {
    let [x, y, w, h] = s.bounds;
    let _ = write!(
        c.out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"10\" fill=\"none\" stroke=\"{NEUTRAL_STROKE}\" stroke-width=\"1\" stroke-dasharray=\"8 3 1 3\"/>",
        N(x),
        N(y),
        N(w),
        N(h)
    );
    match s.label {
        Some([lx, ly, lw, _]) => label_in(c, s.name.as_deref(), lx, ly, lw, 3, NEUTRAL_TEXT, true),
        None => label_in(c, s.name.as_deref(), x, y + 4.0, w, 2, NEUTRAL_TEXT, true),
    }
}

/// The badge of an AI agent tool, on the top-right corner: solid once called, outlined if not.
fn badge(c: &mut Canvas, s: &Shape, status: Status) {
    let [x, y, w, _] = s.bounds;
    let (bw, bh) = (46.0, 16.0);
    let (bx, by) = (x + w - bw + 6.0, y - bh / 2.0);
    c.cover(bx, by, bw, bh);
    let (fill, text, dash) = if status == Status::Covered {
        (TOOL, "#ffffff", "")
    } else {
        ("#ffffff", TOOL, " stroke-dasharray=\"3 2\"")
    };
    let _ = write!(
        c.out,
        "<g class=\"tool-badge\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" fill=\"{fill}\" stroke=\"{TOOL}\" stroke-width=\"1.5\"{dash}/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"{text}\">AI tool</text></g>",
        N(bx),
        N(by),
        N(bw),
        N(bh),
        N(bx + bw / 2.0),
        N(by + 11.5)
    );
}
