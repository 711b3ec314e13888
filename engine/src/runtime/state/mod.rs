//! The engine's data: plain, `Clone`, with bookkeeping methods only (no behaviour, no
//! `Engine`). Behaviours and elements read and change it; the engine owns it.

pub(crate) mod cluster_variables;
pub(crate) mod compensation;
pub(crate) mod conditionals;
pub(crate) mod deployments;
pub(crate) mod feel;
pub(crate) mod incidents;
pub(crate) mod instances;
pub(crate) mod jobs;
pub(crate) mod lifecycle;
pub(crate) mod log;
pub(crate) mod messages;
pub(crate) mod signals;
pub(crate) mod timers;
pub(crate) mod user_tasks;

pub use deployments::{DeployedDecision, DeployedDrg, DeployedForm};
pub use jobs::JobState;
pub use lifecycle::State;
pub use user_tasks::{UserTask, UserTaskState};
