//! Element instances, element-major: the lifecycle skeleton every element goes through
//! (`processor`: ACTIVATING → ACTIVATED → COMPLETING → COMPLETED, or TERMINATING → TERMINATED,
//! with input and output mappings, execution listeners, sequence flows and joins) and one
//! behaviour per element family behind [`behavior::ElementBehavior`], like Zeebe's
//! `BpmnElementProcessor`s.

pub(crate) mod ad_hoc;
pub(crate) mod behavior;
pub(crate) mod call_activity;
pub(crate) mod event;
pub(crate) mod gateway;
pub(crate) mod multi_instance;
pub(crate) mod process;
pub(crate) mod processor;
pub(crate) mod sub_process;
pub(crate) mod task;
pub(crate) mod transition;
pub(crate) mod user_task;

pub use ad_hoc::INNER_INSTANCE_SUFFIX;
