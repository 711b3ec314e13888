//! The search: depth first from the first choice, forking the run at each choice (the last
//! alternative takes the run itself, the others a copy), states seen before pruned; or seeded
//! random walks. Deterministic whatever the number of threads: a first breadth-first pass (one
//! thread) splits the space into a fixed number of parts, each part is searched on its own
//! (with the states of the first pass and its own as the seen set), and the parts' tallies are
//! merged in part order.

use super::fingerprint::Fingerprinter;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use baton_engine::runtime::Engine;
use rustc_hash::FxHashSet;

use super::fork::{Fork, Status, StepReport};
use super::space::Search;
use super::tally::{Found, Tally, simplicity};

/// Parts the first pass splits the space into (a fixed number, so the parts, and with them the
/// report, do not depend on the number of threads).
pub(crate) const PARTS: usize = 64;

/// What a search runs with.
pub(crate) struct Settings {
    pub search: Search,
    pub trajectories: u64,
    /// When to stop (the wall-time bound).
    pub deadline: Option<Instant>,
    pub threads: usize,
    /// Only these parts (a shard): `(index, count)`, 1-based.
    pub shard: Option<(usize, usize)>,
    /// Re-run each branch's prefix from this run (not started) instead of copying the run at
    /// the choice: the same result, slower; what forking saves is measured with it.
    pub replay_from: Option<Fork>,
}

/// Why a search stopped before the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    Trajectories,
    Time,
    /// The space has a problem only a run shows (e.g. too many turns at a model call).
    Fatal(super::ExploreError),
}

/// One search's tally plus where it stopped early.
pub(crate) struct Outcome {
    pub tally: Tally,
    pub stopped: Option<Stop>,
}

/// Feeds a step's records to the tally's coverage and watches for broken invariants and
/// new run errors.
fn step(
    fork: &mut Fork,
    tally: &mut Tally,
    run: impl FnOnce(&mut Fork, &mut dyn FnMut(&Engine), &mut StepReport) -> Status,
) -> Status {
    let mut report = StepReport::default();
    let errors_before = fork.errors.len();
    let status = {
        let coverage = &mut tally.coverage;
        let mut on_records = |engine: &Engine| coverage.read(engine);
        run(fork, &mut on_records, &mut report)
    };
    for broken in report.broken {
        tally.broken(broken.invariant, &fork.choices, broken.message);
    }
    for message in fork.errors.drain(errors_before..) {
        tally.run_error(&fork.choices, message);
    }
    status
}

/// Counts a run that ended (or was cut at the model-call bound).
fn leaf(fork: &Fork, status: Status, tally: &mut Tally) {
    if let Some(counter) = &fork.plan.counter {
        counter.fetch_add(1, Ordering::Relaxed);
    }
    tally.trajectories += 1;
    if status == Status::Cut {
        tally.cut_at_bound += 1;
    }
}

pub(crate) fn fork_fingerprint(fork: &Fork, fingerprinter: &mut Fingerprinter) -> u64 {
    let calls: Vec<u32> = fork.agents.iter().map(|a| a.calls).collect();
    let paused = match &fork.paused {
        Some(super::fork::Paused::Model { agent, .. }) => (1u8, *agent),
        Some(super::fork::Paused::Outcome { mock, .. }) => (2, *mock),
        Some(super::fork::Paused::Order { jobs, .. }) => (3, jobs.len()),
        Some(super::fork::Paused::Cut) => (4, 0),
        None => (0, 0),
    };
    fingerprinter.fingerprint(
        &fork.engine,
        fork.root,
        (
            fork.model_calls,
            calls,
            &fork.watch,
            paused,
            fork.held_elements(),
        ),
    )
}

/// Runs the search from `root` (nothing started yet). Returns the run at its first choice (what
/// replays start from) and the outcome.
pub(crate) fn search(mut root: Fork, settings: &Settings) -> (Fork, Outcome) {
    let plan = root.plan.clone();
    let mut tally = Tally::new(&plan);
    let status = step(&mut root, &mut tally, |fork, on, report| {
        fork.start(on, report)
    });
    if let Some(fatal) = root.fatal.take() {
        let outcome = Outcome {
            tally,
            stopped: Some(Stop::Fatal(fatal)),
        };
        return (root, outcome);
    }
    if !matches!(status, Status::Choice(_)) {
        leaf(&root, status, &mut tally);
        let outcome = Outcome {
            tally,
            stopped: None,
        };
        return (root, outcome);
    }
    let first = root.clone();
    let outcome = match settings.search {
        Search::Exhaustive => exhaustive(root, tally, settings),
        Search::Sample { seed, runs } => sample(root, tally, settings, seed, runs),
    };
    (first, outcome)
}

/// The first pass: breadth first until there are [`PARTS`] runs waiting at a choice.
fn exhaustive(root: Fork, mut tally: Tally, settings: &Settings) -> Outcome {
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut fingerprinter = Fingerprinter::default();
    let fp = fork_fingerprint(&root, &mut fingerprinter);
    seen.insert(fp);
    tally.states.insert(fp);
    let mut frontier: std::collections::VecDeque<Fork> = std::collections::VecDeque::new();
    frontier.push_back(root);
    let mut stopped = None;
    while frontier.len() < PARTS {
        let Some(fork) = frontier.pop_front() else {
            break;
        };
        let Status::Choice(n) = fork.status() else {
            continue;
        };
        for i in 0..n {
            let mut child = fork.clone();
            let status = step(&mut child, &mut tally, |f, on, r| f.decide(i, on, r));
            if let Some(fatal) = child.fatal.take() {
                return Outcome {
                    tally,
                    stopped: Some(Stop::Fatal(fatal)),
                };
            }
            match status {
                Status::Choice(_) => {
                    let fp = fork_fingerprint(&child, &mut fingerprinter);
                    if seen.insert(fp) {
                        tally.states.insert(fp);
                        frontier.push_back(child);
                    } else {
                        tally.pruned += 1;
                    }
                }
                _ => leaf(&child, status, &mut tally),
            }
            if tally.trajectories >= settings.trajectories && i + 1 < n {
                stopped = Some(Stop::Trajectories);
                tally.cut_at(&fork.choices);
                break;
            }
        }
        if stopped.is_some() {
            break;
        }
    }
    let parts: Vec<Fork> = frontier.into_iter().collect();
    if stopped.is_some() || parts.is_empty() {
        return Outcome { tally, stopped };
    }
    // A shard counts the first pass only once: shard 1 keeps it.
    let (shard_index, shard_count) = settings.shard.unwrap_or((1, 1));
    if shard_index != 1 {
        let states = std::mem::take(&mut tally.states);
        tally = Tally::new(&parts[0].plan);
        tally.states = states;
    }
    let left = settings.trajectories.saturating_sub(tally.trajectories);
    let budgets: Vec<u64> = (0..parts.len() as u64)
        .map(|i| left / parts.len() as u64 + u64::from(i < left % parts.len() as u64))
        .collect();
    let mine: Vec<(usize, Fork)> = parts
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % shard_count == shard_index - 1)
        .collect();
    let results = in_parallel(mine, settings.threads, |index, part, cancel| {
        let mut part_tally = Tally::new(&part.plan);
        let mut part_seen = seen.clone();
        let stop = depth_first(
            part,
            settings.replay_from.as_ref(),
            budgets[index],
            &mut part_seen,
            &mut part_tally,
            settings.deadline,
            cancel,
        );
        (part_tally, stop)
    });
    for (part_tally, stop) in results {
        tally.merge(part_tally);
        if let Some(stop) = stop
            && (matches!(stop, Stop::Fatal(_)) || stopped.is_none())
        {
            stopped = Some(stop);
        }
    }
    Outcome { tally, stopped }
}

/// Depth first from `root` (waiting at a choice), at most `budget` trajectories.
fn depth_first(
    root: Fork,
    replay_from: Option<&Fork>,
    budget: u64,
    seen: &mut FxHashSet<u64>,
    tally: &mut Tally,
    deadline: Option<Instant>,
    cancel: &AtomicBool,
) -> Option<Stop> {
    let start = tally.trajectories;
    if budget == 0 {
        tally.cut_at(&root.choices);
        return Some(Stop::Trajectories);
    }
    if cancel.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
        cancel.store(true, Ordering::Relaxed);
        tally.cut_at(&root.choices);
        return Some(Stop::Time);
    }
    let mut fingerprinter = Fingerprinter::default();
    let mut stack: Vec<(Fork, u32, u32)> = Vec::new();
    if let Status::Choice(n) = root.status() {
        stack.push((root, 0, n));
    }
    while let Some(top) = stack.last_mut() {
        let i = top.1;
        let n = top.2;
        top.1 += 1;
        let mut child = match replay_from {
            Some(pristine) => {
                let prefix: Vec<u32> = top.0.choices.iter().map(|c| c.index).collect();
                if i + 1 == n {
                    stack.pop();
                }
                replay_prefix(pristine, &prefix)
            }
            None if i + 1 == n => stack.pop().expect("the top").0,
            None => top.0.clone(),
        };
        let status = step(&mut child, tally, |f, on, r| f.decide(i, on, r));
        if let Some(fatal) = child.fatal.take() {
            cancel.store(true, Ordering::Relaxed);
            return Some(Stop::Fatal(fatal));
        }
        match status {
            Status::Choice(n) => {
                let fp = fork_fingerprint(&child, &mut fingerprinter);
                if seen.insert(fp) {
                    tally.states.insert(fp);
                    stack.push((child, 0, n));
                } else {
                    tally.pruned += 1;
                }
            }
            _ => {
                leaf(&child, status, tally);
                let done = tally.trajectories - start;
                if done >= budget {
                    if let Some((fork, _, _)) = stack.last() {
                        tally.cut_at(&fork.choices);
                        return Some(Stop::Trajectories);
                    }
                    return None;
                }
                if done.is_multiple_of(64) {
                    if cancel.load(Ordering::Relaxed) {
                        return Some(Stop::Time);
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        cancel.store(true, Ordering::Relaxed);
                        if let Some((fork, _, _)) = stack.last() {
                            tally.cut_at(&fork.choices);
                        }
                        return Some(Stop::Time);
                    }
                }
            }
        }
    }
    None
}

/// `runs` random walks from `root`, run `r` drawing its choices from a generator seeded with
/// `seed` and `r`.
fn sample(root: Fork, mut tally: Tally, settings: &Settings, seed: u64, runs: u64) -> Outcome {
    let runs = runs.min(settings.trajectories);
    let (shard_index, shard_count) = settings.shard.unwrap_or((1, 1));
    // Runs go to threads (and shards) in chunks; a small sample is cut finer, so that each of
    // its shards gets some. Which chunk a run is in changes nothing in the report: each run's
    // choices come from its own number.
    let chunk = runs.div_ceil(shard_count as u64).clamp(1, 256);
    let chunks: Vec<(usize, (u64, u64))> = (0..runs.div_ceil(chunk))
        .map(|c| (c * chunk, ((c + 1) * chunk).min(runs)))
        .enumerate()
        .filter(|(i, _)| i % shard_count == shard_index - 1)
        .collect();
    let root = Arc::new(root);
    let results = in_parallel(chunks, settings.threads, |_, (from, to), cancel| {
        let mut part = Tally::new(&root.plan);
        let mut fingerprinter = Fingerprinter::default();
        for run in from..to {
            if cancel.load(Ordering::Relaxed)
                || settings.deadline.is_some_and(|d| Instant::now() >= d)
            {
                cancel.store(true, Ordering::Relaxed);
                return (part, Some(Stop::Time));
            }
            let mut rng = SplitMix64::new(seed ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut fork = (*root).clone();
            loop {
                match fork.status() {
                    Status::Choice(n) => {
                        part.states
                            .insert(fork_fingerprint(&fork, &mut fingerprinter));
                        let i = (rng.next() % u64::from(n)) as u32;
                        step(&mut fork, &mut part, |f, on, r| f.decide(i, on, r));
                        if let Some(fatal) = fork.fatal.take() {
                            cancel.store(true, Ordering::Relaxed);
                            return (part, Some(Stop::Fatal(fatal)));
                        }
                    }
                    status => {
                        leaf(&fork, status, &mut part);
                        break;
                    }
                }
            }
        }
        (part, None)
    });
    let mut stopped = None;
    for (part, stop) in results {
        tally.merge(part);
        if stop.is_some() && stopped.is_none() {
            stopped = stop;
        }
    }
    Outcome { tally, stopped }
}

/// Runs `work` on each item on up to `threads` threads (0: one per core); results in item order.
fn in_parallel<I: Send, R: Send>(
    items: Vec<(usize, I)>,
    threads: usize,
    work: impl Fn(usize, I, &AtomicBool) -> R + Sync,
) -> Vec<R> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .min(items.len().max(1));
    let cancel = AtomicBool::new(false);
    let count = items.len();
    let queue: Vec<Mutex<Option<(usize, I)>>> =
        items.into_iter().map(|i| Mutex::new(Some(i))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            if at >= count {
                return;
            }
            let Some((index, item)) = queue[at].lock().expect("not poisoned").take() else {
                continue;
            };
            let r = work(index, item, &cancel);
            *results[at].lock().expect("not poisoned") = Some(r);
        }
    };
    if threads <= 1 {
        run();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(run);
            }
        });
    }
    results
        .into_iter()
        .filter_map(|r| r.into_inner().expect("not poisoned"))
        .collect()
}

/// A small seeded generator (SplitMix64): the same seed gives the same choices on every
/// machine.
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Replays `choices` on `pristine` (a run not started yet): at each choice the next recorded
/// index, or 0 (the simplest) when the record is shorter or the index is out of range. Returns
/// the run at its end and the tally of this one run. `before` sees each choice before it is
/// taken (the run and the index), `on_records` each step's records.
pub(crate) fn replay(
    pristine: &Fork,
    choices: &[u32],
    before: &mut dyn FnMut(&Fork, u32),
    on_records: &mut dyn FnMut(&Engine),
) -> (Fork, Tally) {
    let mut fork = pristine.clone();
    let mut tally = Tally::new(&fork.plan);
    let mut report = StepReport::default();
    fork.start(on_records, &mut report);
    let mut k = 0;
    loop {
        let errors_before = fork.errors.len();
        for broken in std::mem::take(&mut report.broken) {
            tally.broken(broken.invariant, &fork.choices, broken.message);
        }
        for message in fork.errors.drain(errors_before..) {
            tally.run_error(&fork.choices, message);
        }
        let Status::Choice(n) = fork.status() else {
            break;
        };
        if fork.fatal.is_some() {
            break;
        }
        let i = if fork.is_forced() {
            0
        } else {
            let i = choices.get(k).copied().filter(|&i| i < n).unwrap_or(0);
            k += 1;
            i
        };
        before(&fork, i);
        fork.decide(i, on_records, &mut report);
    }
    (fork, tally)
}

/// The run after `prefix` (every choice recorded), re-run from `pristine`, nothing tallied.
fn replay_prefix(pristine: &Fork, prefix: &[u32]) -> Fork {
    let mut fork = pristine.clone();
    let mut report = StepReport::default();
    fork.start(&mut |_| {}, &mut report);
    for &i in prefix {
        fork.decide(i, &mut |_| {}, &mut report);
    }
    fork
}

/// Shrinks a trajectory that `fails` (replaying it breaks the same invariant): other choices are
/// tried, each simpler than the one taken, and kept when the run still fails; until no choice
/// can be made simpler.
pub(crate) fn shrink(
    pristine: &Fork,
    found: &Found,
    mut fails: impl FnMut(&Tally) -> Option<Found>,
) -> Found {
    let mut best = found.clone();
    let mut improved = true;
    let mut rounds = 0;
    while improved && rounds < 32 {
        improved = false;
        rounds += 1;
        let indices: Vec<u32> = best.choices.iter().map(|c| c.index).collect();
        'positions: for k in 0..indices.len() {
            for candidate_index in 0..indices[k] {
                let mut candidate = indices.clone();
                candidate[k] = candidate_index;
                // The choices after a changed one may not fit any more: try them as they were.
                let (_, tally) = replay(pristine, &candidate, &mut |_, _| {}, &mut |_| {});
                if let Some(f) = fails(&tally)
                    && simplicity(&f.choices) < simplicity(&best.choices)
                {
                    best = f;
                    improved = true;
                    break 'positions;
                }
            }
        }
    }
    best
}
