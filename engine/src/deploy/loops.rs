//! Zeebe's `StraightThroughProcessingLoopValidator`: a cycle of elements that never wait (undefined
//! and manual tasks, FEEL script tasks, gateways, ...) would spin forever, so such a process is
//! rejected.
//!
//! Zeebe walks every path from each element of a "rejected" type; this walk finds the same loops
//! with a coloured depth-first search, so it stays linear on graphs with many paths.

use crate::model::{
    Definitions, ElementIdx, ElementKind, GatewayKind, Process, SubProcessKind, TaskKind,
};

/// The first straight-through loop of `process`, as the element ids around it (the first id
/// repeated at the end), or `None`. A call activity with a static process id continues into that
/// process when the same file defines it, as in Zeebe.
pub(super) fn straight_through_loop(
    definitions: &Definitions,
    process: &Process,
) -> Option<Vec<String>> {
    let processes: Vec<&Process> = definitions
        .processes
        .iter()
        .filter(|p| p.is_executable)
        .collect();
    let home = processes.iter().position(|p| std::ptr::eq(*p, process))?;
    let mut starts: Vec<ElementIdx> = (0..process.elements.len() as u32)
        .map(ElementIdx)
        .filter(|&idx| is_rejected(process, idx))
        .collect();
    starts.sort_by(|a, b| process.element(*a).id.cmp(&process.element(*b).id));

    let mut walk = Walk {
        colour: processes
            .iter()
            .map(|p| vec![Colour::White; p.elements.len()])
            .collect(),
        processes,
        path: Vec::new(),
    };
    starts
        .into_iter()
        .find_map(|start| walk.visit((home, start)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Colour {
    White,
    /// On the current path.
    Grey,
    /// Explored: no loop is reachable from it.
    Black,
}

/// An element of one of the file's executable processes.
type ProcessElement = (usize, ElementIdx);

struct Walk<'a> {
    processes: Vec<&'a Process>,
    colour: Vec<Vec<Colour>>,
    path: Vec<ProcessElement>,
}

impl Walk<'_> {
    /// Depth-first from `start`, with an explicit stack: a chain of thousands of manual tasks
    /// must not overflow the thread's stack.
    fn visit(&mut self, start: ProcessElement) -> Option<Vec<String>> {
        // Each frame: the node on the path and the successors still to try.
        let mut stack: Vec<(ProcessElement, Vec<ProcessElement>)> = Vec::new();
        let mut pending = Some(start);
        loop {
            if let Some(node) = pending.take() {
                let (p, idx) = node;
                match self.colour[p][idx.0 as usize] {
                    Colour::Black => {}
                    Colour::Grey => {
                        let from = self.path.iter().position(|&n| n == node).unwrap_or(0);
                        let mut ids: Vec<String> = self.path[from..]
                            .iter()
                            .map(|&(p, i)| self.processes[p].element(i).id.to_string())
                            .collect();
                        ids.push(self.processes[p].element(idx).id.to_string());
                        return Some(ids);
                    }
                    Colour::White if is_straight_through(self.processes[p], idx) => {
                        self.colour[p][idx.0 as usize] = Colour::Grey;
                        self.path.push(node);
                        let mut next = self.next(node);
                        next.reverse();
                        stack.push((node, next));
                    }
                    Colour::White => {}
                }
            }
            let (node, next) = stack.last_mut()?;
            match next.pop() {
                Some(successor) => pending = Some(successor),
                None => {
                    let (p, idx) = *node;
                    self.colour[p][idx.0 as usize] = Colour::Black;
                    self.path.pop();
                    stack.pop();
                    if stack.is_empty() {
                        return None;
                    }
                }
            }
        }
    }

    /// Where execution goes after `node` without waiting.
    fn next(&self, (p, idx): ProcessElement) -> Vec<ProcessElement> {
        let process = self.processes[p];
        let element = process.element(idx);
        let targets = |flows: &[crate::model::FlowIdx]| -> Vec<ProcessElement> {
            flows
                .iter()
                .map(|&flow| (p, process.flow(flow).target))
                .collect()
        };
        match &element.kind {
            ElementKind::SubProcess(SubProcessKind::Embedded) => {
                none_start_event(process, &element.children)
                    .map(|start| (p, start))
                    .into_iter()
                    .collect()
            }
            ElementKind::CallActivity => {
                let called = element
                    .zeebe
                    .called_element
                    .as_ref()
                    .and_then(|c| c.process_id.as_ref())
                    .filter(|id| id.feel().is_none());
                let Some(called) = called else {
                    return Vec::new();
                };
                self.processes
                    .iter()
                    .position(|candidate| candidate.id == called.text)
                    .and_then(|q| {
                        let callee = self.processes[q];
                        none_start_event(callee, &callee.children).map(|start| (q, start))
                    })
                    .into_iter()
                    .collect()
            }
            _ if !element.outgoing.is_empty() => targets(&element.outgoing),
            _ => match element.parent {
                Some(parent) => targets(&process.element(parent).outgoing),
                None => Vec::new(),
            },
        }
    }
}

fn none_start_event(process: &Process, children: &[ElementIdx]) -> Option<ElementIdx> {
    children.iter().copied().find(|&child| {
        let element = process.element(child);
        matches!(element.kind, ElementKind::StartEvent { .. })
            && element.event_definitions.is_empty()
    })
}

/// Element types a loop must contain to be rejected.
fn is_rejected(process: &Process, idx: ElementIdx) -> bool {
    let element = process.element(idx);
    match &element.kind {
        ElementKind::Task(TaskKind::Manual | TaskKind::Undefined) => true,
        ElementKind::Task(TaskKind::Script { .. } | TaskKind::BusinessRule) => {
            element.zeebe.task_definition.is_none()
        }
        ElementKind::CallActivity | ElementKind::IntermediateThrowEvent => true,
        _ => false,
    }
}

/// Element types that pass a token on without waiting.
fn is_straight_through(process: &Process, idx: ElementIdx) -> bool {
    let element = process.element(idx);
    is_rejected(process, idx)
        || matches!(
            element.kind,
            ElementKind::Gateway(
                GatewayKind::Exclusive | GatewayKind::Inclusive | GatewayKind::Parallel
            ) | ElementKind::StartEvent { .. }
                | ElementKind::EndEvent
                | ElementKind::SubProcess(SubProcessKind::Embedded)
        )
}
