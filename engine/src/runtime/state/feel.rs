//! What FEEL evaluation keeps between evaluations: the count that seeds `uuid()` and
//! `random number()`, and the JSON of `now()` at the current instant.

use serde_json::Value as Json;

use crate::runtime::compile::expr::baton_feel_bridge;

/// Counts an engine's FEEL evaluations (see [`Engine::next_feel_seed`](crate::runtime::engine::Engine::next_feel_seed)). Atomic only so that a
/// deployed engine can be shared between test threads; each engine counts its own evaluations,
/// in the order it makes them, and a clone carries on from the same count.
#[derive(Debug, Default)]
pub(crate) struct EvaluationCounter(std::sync::atomic::AtomicU64);

impl EvaluationCounter {
    pub(crate) fn next(&self) -> u64 {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Clone for EvaluationCounter {
    fn clone(&self) -> Self {
        EvaluationCounter(std::sync::atomic::AtomicU64::new(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

/// The JSON of FEEL's `now()` (an ISO text, dear to format) kept for the instant it was built
/// for: asked again at the same instant, it is cloned. A clone starts empty.
#[derive(Debug, Default)]
pub(crate) struct NowJson(std::sync::Mutex<Option<(i64, Json)>>);

impl NowJson {
    pub(crate) fn at(&self, now_ms: i64) -> Json {
        let mut cached = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*cached {
            Some((at, json)) if *at == now_ms => json.clone(),
            _ => {
                let json = baton_feel_bridge::now_json(now_ms);
                *cached = Some((now_ms, json.clone()));
                json
            }
        }
    }
}

impl Clone for NowJson {
    fn clone(&self) -> Self {
        NowJson::default()
    }
}

/// The FEEL evaluation state of an engine.
#[derive(Debug, Clone, Default)]
pub(crate) struct FeelState {
    /// FEEL evaluations so far: each one seeds `uuid()` and `random number()` with the next
    /// count, so values differ between evaluations and repeat from run to run.
    pub(crate) evaluations: EvaluationCounter,
    /// FEEL's `now()` as JSON at the last instant it was built for (the clock moves rarely).
    pub(crate) now_json: NowJson,
}
