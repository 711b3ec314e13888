//! The edges of a plane: sequence flows (taken or not, conditional and default markers) and
//! associations, each with its tooltip and label.

use std::fmt::Write;

use super::super::diagram::{Edge, EdgeKind};
use super::text::{N, escape, label_in};
use super::{Canvas, Marks, Status};

pub(super) fn edge(c: &mut Canvas, e: &Edge, marks: &Marks<'_>, prefix: &str) {
    let points: Vec<[f64; 2]> = e
        .waypoints
        .iter()
        .copied()
        .filter(|[x, y]| x.is_finite() && y.is_finite())
        .collect();
    if points.len() < 2 {
        return;
    }
    for [x, y] in &points {
        c.cover(*x, *y, 0.0, 0.0);
    }
    let status = match e.kind {
        EdgeKind::Association => Status::Neutral,
        EdgeKind::SequenceFlow if marks.taken.contains(e.id.as_str()) => Status::Covered,
        EdgeKind::SequenceFlow => Status::Missed,
    };
    let _ = write!(
        c.out,
        "<g class=\"flow {}\" data-id=\"{}\">",
        match status {
            Status::Covered => "taken",
            Status::Missed => "missed",
            Status::Neutral => "neutral",
        },
        escape(&e.id)
    );
    c.out.push_str("<title>");
    match &e.name {
        Some(name) if !name.trim().is_empty() => {
            let _ = write!(c.out, "{} ({})", escape(name.trim()), escape(&e.id));
        }
        _ => {
            let _ = write!(c.out, "{}", escape(&e.id));
        }
    }
    if let Some((source, target)) = marks.flows.get(e.id.as_str()) {
        let _ = write!(c.out, "\n{} → {}", escape(source), escape(target));
    }
    c.out.push_str(match status {
        Status::Covered => "\ntaken",
        Status::Missed => "\nnot taken",
        Status::Neutral => "\nassociation",
    });
    c.out.push_str("</title>");
    let mut d = String::new();
    for (i, [x, y]) in points.iter().enumerate() {
        let _ = write!(d, "{}{},{}", if i == 0 { "M" } else { " L" }, N(*x), N(*y));
    }
    let name = match status {
        Status::Covered => "taken",
        Status::Missed => "missed",
        Status::Neutral => "neutral",
    };
    let stroke = status.stroke();
    match e.kind {
        EdgeKind::Association => {
            let _ = write!(
                c.out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"1.5\" stroke-dasharray=\"1 4\" stroke-linecap=\"round\"/>"
            );
        }
        EdgeKind::SequenceFlow => {
            let width = if status == Status::Covered {
                "2.5"
            } else {
                "1.5"
            };
            let start = if e.conditional {
                format!(" marker-start=\"url(#{prefix}-diamond-{name})\"")
            } else {
                String::new()
            };
            let _ = write!(
                c.out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\" stroke-linejoin=\"round\"{start} marker-end=\"url(#{prefix}-arrow-{name})\"/>"
            );
            if e.default {
                let ([x0, y0], [x1, y1]) = (points[0], points[1]);
                let len = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
                if len > 16.0 {
                    let (dx, dy) = ((x1 - x0) / len, (y1 - y0) / len);
                    let (mx, my) = (x0 + dx * 10.0, y0 + dy * 10.0);
                    let _ = write!(
                        c.out,
                        "<path d=\"M{},{} L{},{}\" stroke=\"{stroke}\" stroke-width=\"1.5\"/>",
                        N(mx - dy * 5.0 - dx * 3.0),
                        N(my + dx * 5.0 - dy * 3.0),
                        N(mx + dy * 5.0 + dx * 3.0),
                        N(my - dx * 5.0 + dy * 3.0)
                    );
                }
            }
        }
    }
    if let Some(name) = e.name.as_deref().filter(|n| !n.trim().is_empty()) {
        let text = status.text();
        match e.label {
            Some([lx, ly, lw, _]) => {
                let width = lw.max(90.0);
                label_in(
                    c,
                    Some(name),
                    lx + lw / 2.0 - width / 2.0,
                    ly,
                    width,
                    3,
                    text,
                    true,
                )
            }
            None => {
                // Beside the middle of the middle segment.
                let i = (points.len() - 1) / 2;
                let ([x0, y0], [x1, y1]) = (points[i], points[i + 1]);
                let (mx, my) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
                label_in(c, Some(name), mx - 45.0, my - 18.0, 90.0, 2, text, true);
            }
        }
    }
    c.out.push_str("</g>\n");
}
